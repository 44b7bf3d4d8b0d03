import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../../src/errors.js';
import { classify, createLogger, parseLogFormat, randomTickId, type LogFormat } from '../../src/log/logger.js';
import { NOW_MS } from '../fixtures/now.js';

const NOW = new Date(NOW_MS);

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c) => (text += c));
  return { stream, text: () => text };
}

function logger(format: LogFormat, timestamps = true) {
  const out = sink();
  const err = sink();
  let n = 0;
  const l = createLogger({ format, stdout: out.stream, stderr: err.stream, timestamps, now: () => NOW, newTickId: () => `tick${++n}` });
  return { l, out: out.text, err: err.text };
}

const parse = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test('text lines are what they always were: the time first for run, nothing added for reconcile', () => {
  const run = logger('text');
  run.l.line('running: schedule');
  assert.is(run.out(), '2026-11-29T08:00:00.000Z running: schedule\n');
  const once = logger('text', false);
  once.l.line('committed abc');
  once.l.stdout.write('tick summary\n');
  once.l.stderr.write('start m-0 failed: refused\n');
  assert.is(once.out(), 'committed abc\ntick summary\n');
  assert.is(once.err(), 'start m-0 failed: refused\n');
});

test('json: one object a line with exactly time, level, msg and tick', () => {
  const { l, out } = logger('json');
  l.line('running: schedule');
  assert.equal(parse(out()), [{ time: '2026-11-29T08:00:00.000Z', level: 'info', msg: 'running: schedule', tick: null }]);
});

test('json: the warning: and error: prefixes of the text become the level', () => {
  assert.equal(classify('warning: cluster.yaml:3:1: no webhooks'), { level: 'warn', msg: 'cluster.yaml:3:1: no webhooks' });
  assert.equal(classify('error: push failed'), { level: 'error', msg: 'push failed' });
  assert.equal(classify('a warning: inside'), { level: 'info', msg: 'a warning: inside' });
  const { l, out } = logger('json');
  l.line('warning: a broken state.json');
  assert.equal(
    parse(out()).map((e) => [e.level, e.msg]),
    [['warn', 'a broken state.json']],
  );
});

test('json: every line logged during one tick carries its id, across awaits; the next tick has another; outside a tick it is null', async () => {
  const { l, out } = logger('json');
  l.line('before');
  await l.inTick(async () => {
    l.line('pulled');
    await sleep(5);
    l.line('applied');
  });
  await l.inTick(async () => l.line('next'));
  l.line('after');
  assert.equal(
    parse(out()).map((e) => [e.msg, e.tick]),
    [
      ['before', null],
      ['pulled', 'tick1'],
      ['applied', 'tick1'],
      ['next', 'tick2'],
      ['after', null],
    ],
  );
});

test('json: two ticks interleaving in time keep their own ids', async () => {
  const { l, out } = logger('json');
  await Promise.all([
    l.inTick(async () => {
      await sleep(10);
      l.line('a');
    }),
    l.inTick(async () => {
      l.line('b');
      await sleep(20);
      l.line('b2');
    }),
  ]);
  assert.equal(
    parse(out()).map((e) => `${String(e.msg)}@${String(e.tick)}`),
    ['b@tick2', 'a@tick1', 'b2@tick2'],
  );
});

test('json: what is printed to the streams becomes lines, split and joined at newlines; stderr at level error', async () => {
  const { l, out, err } = logger('json');
  await l.inTick(async () => {
    l.stdout.write('events: node.lost\nsummary ');
    l.stdout.write('continues\n');
    l.stderr.write('start m-0 failed: refused\n');
  });
  assert.equal(
    parse(out()).map((e) => [e.level, e.msg, e.tick]),
    [
      ['info', 'events: node.lost', 'tick1'],
      ['info', 'summary continues', 'tick1'],
    ],
  );
  assert.equal(
    parse(err()).map((e) => [e.level, e.msg]),
    [['error', 'start m-0 failed: refused']],
  );
});

test('json: control characters from a node stay escaped inside one line', () => {
  const { l, out } = logger('json');
  l.line('gpu name \u001b[2J\rBEL\u0007 and a\nnewline');
  const text = out();
  assert.is(text.split('\n').length, 2, 'one line and its newline');
  assert.not.match(text, /[\u0000-\u0009\u000b-\u001f]/);
  assert.is(parse(text)[0]!.msg, 'gpu name \u001b[2J\rBEL\u0007 and a\nnewline');
});

test('--log-format takes text or json; anything else is one usage line', () => {
  assert.is(parseLogFormat(undefined), 'text');
  assert.is(parseLogFormat('json'), 'json');
  assert.throws(
    () => parseLogFormat('xml'),
    (e: unknown) => e instanceof UsageError && (e as Error).message === '--log-format xml: expected text or json',
  );
});

test('tick ids are 8 hex digits and differ', () => {
  const ids = new Set(Array.from({ length: 50 }, randomTickId));
  assert.is(ids.size, 50);
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}$/);
});

test.run();
