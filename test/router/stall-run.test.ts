// docs/operations.md#ejection: a stall episode begins when its replica went quiet,
// so a hung replica that is back after ejectFor and quiet again at once stays in
// one run of ejections (since kept, count growing, the time doubling) even with
// the defaults, where it is seen stallAfter (60 s) = 2 × ejectFor after its
// return. Failures eject at once, and keep judging the gap from the ejection.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http, { type ServerResponse } from 'node:http';
import { clientAgent, engineTracker, eventually, eventuallyAsync, withRouter, type TestRouter } from './helpers.js';
import { FakeTimers } from './fake-timers.js';
import { nextEjection } from '../../src/router/liveness.js';

const test = suite('router stall runs');

const { engine, closeAll: closeEngines } = engineTracker();
let router: TestRouter | null = null;

test.after.each(async () => {
  await router?.close();
  router = null;
  await closeEngines();
});
test.after(() => clientAgent.destroy());

const T0 = Date.parse('2026-11-29T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

test('a stall that began within 2 x ejectFor of the last episode continues the run, however late the sweep saw it; a run dates from when its replica went quiet', () => {
  // Quiet from T0, seen stalled at +60 s: out since T0, so replaceAfter counts from the hang, not from the sweep.
  const first = nextEjection(null, 'stalled', T0 + 60_000, 30_000, T0);
  assert.equal(first, { sinceMs: T0, untilMs: T0 + 90_000, reason: 'stalled', count: 1, out: true });
  // Back at +90 s, quiet again at once, seen at +150 s: 60 s after the episode ended, 0 s after it began.
  const second = nextEjection(first, 'stalled', T0 + 150_000, 30_000, T0 + 90_000);
  assert.equal(second, { sinceMs: T0, untilMs: T0 + 210_000, reason: 'stalled', count: 2, out: true });
  // Quiet only from 2 x ejectFor after the last episode: a new run, dated from that quiet start.
  const fresh = nextEjection(first, 'stalled', T0 + 210_000, 30_000, T0 + 150_000);
  assert.equal([fresh.sinceMs, fresh.count], [T0 + 150_000, 1]);
});

test('a failure ejection 2 x ejectFor after the last episode ended still starts a new run (it begins when it is seen)', () => {
  const first = nextEjection(null, 'errors', T0, 30_000);
  const fresh = nextEjection(first, 'errors', first.untilMs + 60_000, 30_000);
  assert.equal([fresh.sinceMs, fresh.count], [first.untilMs + 60_000, 1]);
});

/** A streaming chat: what has come so far (`seen`), and the whole text once the router ends it. */
function streamChat(port: number): { seen: { text: string }; ended: Promise<string> } {
  const seen = { text: '' };
  const ended = new Promise<string>((resolve, reject) => {
    const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent: clientAgent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => (seen.text += c));
        res.on('end', () => resolve(seen.text));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return { seen, ended };
}

test('with the defaults, a hung replica under load stays in one run: the second ejection keeps the first since, count 2, 60 s', async () => {
  const timers = new FakeTimers(T0);
  const held: ServerResponse[] = [];
  const hung = await engine('hung', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': accepted\n\n');
    held.push(res);
  });
  router = await withRouter({ timers });
  await router.setTable({ m: [{ replica: 'm-0', url: hung.url }] });
  const first = streamChat(router.port);
  // The head and a comment reached the client (so the router counted them), then nothing more for stallAfter.
  await eventually(() => first.seen.text.includes(': accepted'));
  timers.advance(1_000);
  timers.advance(60_000);
  assert.match(await first.ended, /event: error/);
  const one = (await router.usage()).ejected['m-0'];
  assert.equal([one?.count, one?.reason], [1, 'stalled']);
  // A request while it is out waits, and goes to it when the ejection ends; it hangs again.
  const second = streamChat(router.port);
  await eventuallyAsync(async () => (await router!.usage()).waiting['m']?.count === 1);
  timers.advance(30_000);
  await eventually(() => second.seen.text.includes(': accepted'));
  assert.equal((await router.usage()).ejected, {}, 'back in rotation after ejectFor');
  for (let i = 0; i < 70 && (await router.usage()).ejected['m-0'] === undefined; i++) timers.advance(1_000);
  assert.match(await second.ended, /event: error/);
  const two = (await router.usage()).ejected['m-0'];
  assert.ok(two, 'ejected again');
  assert.equal([two.since, two.count, two.reason], [one!.since, 2, 'stalled'], 'the same run');
  const left = Date.parse(two.until) - timers.now();
  assert.ok(left > 59_000 && left <= 60_000, `doubled to 60 s (${left} ms left)`);
  assert.is(iso(Date.parse(two.since)), two.since);
});

test.run();
