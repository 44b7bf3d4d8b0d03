import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHECK_ATTEMPT_TIMEOUT_MS, CHECK_INTERVAL_MS, checkSettings, compileExpect, describeExpect } from '../../src/agent/answer-check.js';
import { MAX_ANSWER_BYTES, answerContent } from '../../src/agent/chat-probe.js';
import { cleanText, quoteText } from '../../src/agent/quote.js';
import { MAX_WARNINGS, boundWarnings } from '../../src/agent/report.js';

test('quoted engine text is one line, without control or bidi characters, cut by code points', () => {
  assert.is(quoteText('ready'), '"ready"');
  assert.is(quoteText('a\r\n\tb'), '"a b"');
  assert.is(quoteText('\u001b]0;pwned\u0007\u009b31m x'), '"]0;pwned31m x"');
  assert.is(quoteText('\u202eevil\u200b\u2066'), '"evil"');
  assert.is(quoteText('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
  assert.is(quoteText('😀'.repeat(100), 3), '"😀😀😀"…', 'no surrogate pair is split');
  assert.is(cleanText('x'.repeat(10), 4), 'xxxx…');
  assert.is(cleanText('ends…', 80), 'ends…', 'an answer ending in … is not taken as cut');
});

test('an answer is choices[0].message.content, or the deltas of an SSE stream; anything else says what it lacks', () => {
  assert.equal(answerContent('{"choices":[{"message":{"content":"Ready"}}]}', 'application/json'), { kind: 'answer', content: 'Ready' });
  assert.equal(answerContent('{"choices":[{"text":"Ready"}]}', undefined), { kind: 'answer', content: 'Ready' });
  const sse =
    'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\ndata: {"choices":[{"delta":{"content":"Re"}}]}\n\n: keep-alive\n\ndata: {"choices":[{"delta":{"content":"ady"}}]}\n\ndata: [DONE]\n\n';
  assert.equal(answerContent(sse, 'text/event-stream; charset=utf-8'), { kind: 'answer', content: 'Ready' });
  assert.equal(answerContent(sse, 'application/octet-stream'), { kind: 'answer', content: 'Ready' }, 'recognised by its data: lines too');
  assert.equal(answerContent('data: {"x":1}\n\n', 'text/event-stream'), { kind: 'problem', detail: 'a streamed answer without choices[0].delta.content' });
  assert.equal(answerContent('{"choices":[]}', 'application/json'), { kind: 'problem', detail: 'an answer without choices[0].message.content' });
  assert.equal(answerContent('<html>', 'text/html'), { kind: 'problem', detail: 'an answer that is not JSON' });
  assert.equal(answerContent(`{"a":"${'x'.repeat(MAX_ANSWER_BYTES)}`, 'application/json'), { kind: 'problem', detail: 'an answer larger than 64 KiB' });
});

test('expect compiles with its flags; stateful flags and bad sources are refused with the reason', () => {
  const ready = compileExpect({ expect: 'ready', flags: 'i' });
  assert.ok(typeof ready !== 'string' && ready.test('I am READY.') && !ready.test('not yet'));
  assert.is(compileExpect({ expect: 'ready', flags: 'g' }), 'check.flags "g" may only hold d, i, m, s, u, v');
  assert.is(
    compileExpect({ expect: '[', flags: '' }),
    'check.expect is not a valid regular expression: Invalid regular expression: /[/: Unterminated character class',
  );
  assert.is(describeExpect({ expect: 'ready', flags: 'i' }), '/ready/i');
  assert.is(describeExpect({ expect: 'a\u001bb' }), '/ab/');
});

test('expect is matched without backtracking: ^(a+)+$ against 20,000 a and a b answers false (a backtracking RegExp would never return)', () => {
  const evil = compileExpect({ expect: '^(a+)+$' });
  assert.ok(typeof evil !== 'string');
  if (typeof evil !== 'string') {
    assert.is(evil.test('a'.repeat(20_000) + 'b'), false);
    assert.is(evil.test('a'.repeat(20_000)), true);
  }
});

test('expect that RE2 cannot match in linear time is refused at the start, saying which construct', () => {
  assert.is(compileExpect({ expect: '(re)ady\\1' }), 'check.expect /(re)ady\\1/: a backreference (\\1) cannot be matched in linear time');
  assert.is(compileExpect({ expect: 'ready(?!\\.)' }), 'check.expect /ready(?!\\.)/: lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time');
  assert.is(compileExpect({ expect: 'a{2000}' }), 'check.expect /a{2000}/: invalid repeat count: `{2000}` (at most 1000)');
  const multi = compileExpect({ expect: '^ready$', flags: 'm' });
  assert.ok(typeof multi !== 'string' && multi.test('ok\nready\n'), 'flags m (and i, s) reach RE2');
});

test('attempt bound and re-check interval: 10 s and 30 s, set by environment, the attempt never above 30 s', () => {
  assert.equal(checkSettings({}), { attemptMs: CHECK_ATTEMPT_TIMEOUT_MS, intervalMs: CHECK_INTERVAL_MS });
  assert.equal([CHECK_ATTEMPT_TIMEOUT_MS, CHECK_INTERVAL_MS], [10_000, 30_000]);
  assert.equal(checkSettings({ LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT: '2', LLMGW_AGENT_CHECK_INTERVAL: '0' }), { attemptMs: 2000, intervalMs: 0 });
  assert.equal(checkSettings({ LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT: '600' }).attemptMs, 30_000);
  assert.equal(checkSettings({ LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT: '1e999', LLMGW_AGENT_CHECK_INTERVAL: '-1' }), { attemptMs: 10_000, intervalMs: 30_000 });
});

test('a report carries at most 100 warnings, each one clean line of at most 1000 characters', () => {
  const many = Array.from({ length: 250 }, (_, i) => `w${i}`);
  const bounded = boundWarnings(many);
  assert.is(bounded.length, MAX_WARNINGS);
  assert.is(bounded[MAX_WARNINGS - 1], '… and 151 more warnings');
  assert.equal(boundWarnings(['a\nb\u001b', 'y'.repeat(5000)]), ['a b', `${'y'.repeat(1000)}…`]);
});

test.run();
