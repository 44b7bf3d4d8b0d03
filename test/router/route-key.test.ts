// What keys a request for `routing: prefix`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROMPT_KEY_CHARS, promptPrefix, routeKey } from '../../src/router/route-key.js';

const sys = 'You are a helpful assistant. '.repeat(40); // > 512 characters
const chat = (user: string, extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [
    { role: 'system', content: sys },
    { role: 'user', content: user },
  ],
  ...extra,
});

test('x-session-id wins over user and prompt; user wins over the prompt', () => {
  const a = routeKey('sess-1', chat('a', { user: 'alice' }));
  assert.is(a, routeKey('sess-1', chat('completely different', { user: 'bob' })));
  assert.is.not(a, routeKey('sess-2', chat('a', { user: 'alice' })));
  const u = routeKey(undefined, chat('a', { user: 'alice' }));
  assert.is(u, routeKey(undefined, chat('b', { user: 'alice' })));
  assert.is.not(u, routeKey(undefined, chat('a', { user: 'bob' })));
  assert.is(routeKey(['sess-1', 'sess-9'], chat('x')), a, 'a repeated header counts by its first value');
});

test('the same session id, user or prompt text never collide across kinds', () => {
  assert.is.not(routeKey('alice', { model: 'm' }), routeKey(undefined, { model: 'm', user: 'alice' }));
  assert.is.not(routeKey(undefined, { model: 'm', user: 'alice' }), routeKey(undefined, { model: 'm', prompt: 'alice' }));
});

test('two chats that share their first 512 characters share a key, whatever comes after', () => {
  assert.is(routeKey(undefined, chat('turn one')), routeKey(undefined, chat('turn five, much later in the conversation')));
  const other = routeKey(undefined, {
    model: 'm',
    messages: [
      { role: 'system', content: `X${sys}` },
      { role: 'user', content: 'turn one' },
    ],
  });
  assert.is.not(other, routeKey(undefined, chat('turn one')));
});

test('short chats are keyed by all their messages in order, roles included', () => {
  const k = (messages: unknown[]) => routeKey(undefined, { model: 'm', messages });
  const ab = k([
    { role: 'user', content: 'a' },
    { role: 'user', content: 'b' },
  ]);
  assert.is.not(
    ab,
    k([
      { role: 'user', content: 'b' },
      { role: 'user', content: 'a' },
    ]),
  );
  assert.is.not(ab, k([{ role: 'user', content: 'ab' }]));
  assert.is.not(k([{ role: 'user', content: 'a' }]), k([{ role: 'system', content: 'a' }]));
  assert.is(
    k([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]),
    k([{ role: 'user', content: 'ab' }]),
    'a content array counts by its text parts',
  );
});

test('completions are keyed by prompt (a string or a list), embeddings by input', () => {
  const long = 'p'.repeat(600);
  assert.is(routeKey(undefined, { model: 'm', prompt: `${long}A` }), routeKey(undefined, { model: 'm', prompt: `${long}B` }));
  assert.is.not(routeKey(undefined, { model: 'm', prompt: 'A' }), routeKey(undefined, { model: 'm', prompt: 'B' }));
  assert.is(promptPrefix({ prompt: ['a', 'b'] }), 'p\u0000a\u0000b\u0000');
  assert.is(promptPrefix({ prompt: [[1, 2], [3]] }), 'p\u00001,2\u00003\u0000');
  assert.is(promptPrefix({ input: 'embed me' }), 'p\u0000embed me');
});

test('the prefix is at most 512 characters of prompt, however long the messages', () => {
  const p = promptPrefix({ messages: Array.from({ length: 1000 }, () => ({ role: 'user', content: 'x'.repeat(10_000) })) });
  assert.is(p.length, PROMPT_KEY_CHARS + 2);
});

test('a request with nothing to key on (or hostile shapes) has no key, never a throw', () => {
  for (const body of [
    { model: 'm' },
    { model: 'm', messages: [] },
    { model: 'm', messages: 'nope' },
    { model: 'm', messages: [null, 7, { content: { text: 1 } }] },
    { model: 'm', user: '' },
    { model: 'm', user: 7 },
    { model: 'm', prompt: {} },
    { model: 'm', prompt: [] },
  ]) {
    const k = routeKey(undefined, body);
    assert.ok(k === null || Number.isInteger(k), JSON.stringify(body));
  }
  assert.is(routeKey(undefined, { model: 'm' }), null);
  assert.is(routeKey('', { model: 'm' }), null, 'an empty x-session-id is no session');
});

test('a Responses API input given as items keys like the same chat; a string input keys like a prompt', () => {
  const items = { model: 'm', input: chat('hi').messages };
  assert.is(promptPrefix(items), promptPrefix(chat('hi')));
  assert.is(promptPrefix({ model: 'm', input: 'hello' }), 'p\u0000hello');
  assert.is(promptPrefix({ model: 'm', input: ['a', 'b'] }), 'p\u0000a\u0000b\u0000', 'embeddings: a list of texts stays a prompt');
});

test.run();
