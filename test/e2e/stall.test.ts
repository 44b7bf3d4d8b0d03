// Acceptance of docs/placement.md#stalled-and-ejected-replicas and the router's
// ejection (docs/operations.md#ejection), end to end over the simulated fleet
// and the real router, with models.yaml's liveness shortened to seconds.
//
// Three replicas of one model under one load of streams: A hangs mid-stream
// (the stub's stallAfterTokens: /health stays 200, no token comes), B is slow
// but progressing (the stub's slow prefill: a chunk every second, a quarter
// of stallAfter), C is quick. What must follow, in this order: the router
// ejects A as stalled; A's started streams end with an error event and are
// closed; the completions that were waiting on A, having sent nothing to
// their clients, are answered by B or C; the reconciler, once A has been
// ejected by every router past replaceAfter, starts a replacement (surge) and
// stops A. B is never ejected. Nothing here measures time: each step waits on
// what the fleet reports, and the order is read from one sequence of events.

import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StartAction, StopAction } from '../../src/types/plan.js';
import type { RouterEjection } from '../../src/types/snapshot.js';
import { of, settle, startLifecycleWorld, until, type LifecycleWorld } from './lifecycle-world.js';

const LIVENESS = '{ stallAfter: 4s, ejectFor: 20s, replaceAfter: 3s }';
const MODELS = `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: 3, routing: least-inflight, liveness: ${LIVENESS} }\n`;
/** Each replica answers with its own words, so a client can tell which one served it. */
const words = (letter: string, n: number) => Array.from({ length: n }, (_, i) => `${letter}${i}`).join(' ');
const STREAMS = 9;
const COMPLETIONS = 6;

let w: LifecycleWorld;
/** What happened, in the order it was seen: the test's one clock. */
const seen: string[] = [];
const at = (what: string): number => seen.indexOf(what);
function mark(what: string): void {
  if (!seen.includes(what)) seen.push(what);
}

test.before(async () => {
  w = await startLifecycleWorld(MODELS, { hook: true });
  // Ticks on the real clock: the router's and the agents' since-times are real times.
  w.tick = () => w.e.tick();
  await settle(w);
});
test.after(async () => {
  await w.close();
});

interface Streamed {
  status: number;
  tokens: string[];
  /** The router's `event: error` ended it. */
  errorEvent: boolean;
  done: boolean;
}

/** One streaming chat completion through the router, its tokens recorded as they arrive (`live`), read until the router closes it. */
function streamLive(prompt: string): { live: Streamed; ended: Promise<Streamed> } {
  const live: Streamed = { status: 0, tokens: [], errorEvent: false, done: false };
  const ended = (async () => {
    const res = await fetch(`http://127.0.0.1:${w.e.world.routerPort}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: prompt }] }),
    });
    live.status = res.status;
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const bytes of res.body ?? []) {
      buffered += decoder.decode(bytes, { stream: true });
      let cut: number;
      while ((cut = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        if (event.startsWith('event: error')) live.errorEvent = true;
        const data = event
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6);
        if (data === '[DONE]') live.done = true;
        else if (data !== undefined && !live.errorEvent) {
          const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[] };
          live.tokens.push((chunk.choices[0]?.delta?.content ?? '').trim());
        }
      }
    }
    return live;
  })();
  return { live, ended };
}

/** A plain completion through the router: its status and content. */
async function complete(prompt: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${w.e.world.routerPort}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: prompt }] }),
  });
  const body = (await res.json()) as { choices?: { message: { content: string } }[] };
  return { status: res.status, text: body.choices?.[0]?.message.content ?? '' };
}

async function stubRequests(endpoint: string): Promise<number> {
  return ((await (await fetch(`${endpoint}/stub/stats`)).json()) as { requests: number }).requests;
}

test('a replica that stalls mid-stream is ejected, its streams end, its waiting requests are answered elsewhere, and it is replaced; a slow one is never ejected', async () => {
  const three = await of(w, 'm1', 'running');
  assert.is(three.length, 3);
  const [a, b, c] = three.map((r) => ({ id: r.id, endpoint: r.endpoint! }));
  await w.stub(a!.endpoint, { answer: words('a', 60), tokenDelayMs: 200 });
  await w.stub(b!.endpoint, { answer: words('b', 8), slowPrefillMs: 1_000 });
  await w.stub(c!.endpoint, { answer: words('c', 40), tokenDelayMs: 200 });

  // Every router reading from here to the end: which replicas were ever ejected, and how busy B was.
  const ejections = new Map<string, RouterEjection>();
  let bBusy = 0;
  const watch = { on: true };
  const watcher = (async () => {
    while (watch.on) {
      const u = await w.usage();
      for (const [id, e] of Object.entries(u.ejected ?? {})) {
        if (!ejections.has(id)) ejections.set(id, e);
        mark(`ejected ${id === a!.id ? 'A' : id}`);
      }
      bBusy = Math.max(bBusy, u.inflight?.[b!.id] ?? 0);
      await sleep(100);
    }
  })();

  const streams = Array.from({ length: STREAMS }, (_, i) => streamLive(`stream ${i}`));
  const onA = () => streams.filter((s) => s.live.tokens[0]?.startsWith('a'));
  // Mid-stream: every stream A serves has sent its client at least two tokens.
  await until('A streaming', async () => onA().length > 0 && onA().every((s) => s.live.tokens.length >= 2));
  const aStreams = onA();
  const beforeStall = await stubRequests(a!.endpoint);
  await w.stub(a!.endpoint, { stallAfterTokens: 0 });
  mark('A stalls');
  // Sent while A hangs: those routed to A get nothing from it and wait there.
  const completions = Array.from({ length: COMPLETIONS }, (_, i) => complete(`completion ${i}`));
  await until('some completion reached the stalled A', async () => (await stubRequests(a!.endpoint)) > beforeStall);

  void Promise.all(aStreams.map((s) => s.ended.then(() => mark('A streams ended'))));
  await until('A ejected', async () => at('ejected A') >= 0);
  const answered = await Promise.all(completions);
  const ended = await Promise.all(aStreams.map((s) => s.ended));

  // The reconciler: ticks until A is replaced, reading what each planned.
  let start: StartAction | undefined;
  let stop: StopAction | undefined;
  let stalledInStatus = false;
  await until(
    'A replaced',
    async () => {
      const r = await w.tick();
      const listed = r.report?.stuckReplicas?.find((x) => x.replica === a!.id);
      if (listed && r.status.includes(`${a!.id} (ejected by every router since ${listed.since})`)) {
        stalledInStatus = listed.kind === 'ejected' && listed.since === ejections.get(a!.id)?.since;
      }
      for (const x of r.plan?.actions ?? []) {
        if (x.op === 'start' && x.model === 'm1' && !start) {
          start = x;
          mark('surge planned');
        }
        if (x.op === 'stop' && x.replica === a!.id && !stop) {
          stop = x;
          mark('A stop planned');
        }
      }
      const now = await of(w, 'm1');
      if (start && now.some((x) => x.id === start!.replica && x.state === 'running')) mark('replacement running');
      if (!now.some((x) => x.id === a!.id)) mark('A stopped');
      return at('A stopped') >= 0 && at('replacement running') >= 0;
    },
    120_000,
  );
  const bStreams = streams.filter((s) => s.live.tokens[0]?.startsWith('b'));
  const rest = await Promise.all(streams.filter((s) => !aStreams.includes(s)).map((s) => s.ended));
  watch.on = false;
  await watcher;

  // The order of events. A's streams end at its ejection (the watcher, polling, may see the
  // ejection a moment after the streams saw their end), and both come before any tick acts.
  const order = ['A stalls', 'ejected A', 'surge planned', 'A stop planned', 'A stopped'];
  assert.equal(
    seen.filter((x) => order.includes(x)),
    order,
    seen.join(' → '),
  );
  assert.ok(at('A stalls') < at('A streams ended') && at('A streams ended') < at('surge planned'), seen.join(' → '));

  // The ejection: stalled, by the one router.
  assert.is(ejections.get(a!.id)?.reason, 'stalled');
  // A's started streams: tokens from A, then the router's error event, then the close; never [DONE].
  for (const s of ended) {
    assert.is(s.status, 200);
    assert.ok(s.tokens.length >= 2 && s.tokens.every((t) => t.startsWith('a')), s.tokens.join(' '));
    assert.ok(s.errorEvent, 'ended with an error event');
    assert.not.ok(s.done);
  }
  // The completions that waited on A were answered elsewhere: every one 200, none by A.
  assert.equal(
    answered.map((x) => x.status),
    Array<number>(COMPLETIONS).fill(200),
  );
  assert.equal(
    answered.filter((x) => !(x.text === words('b', 8) || x.text === words('c', 40))),
    [],
  );
  // Surge first: the stop waited for the replacement, and went without a drain.
  assert.ok(start && stop);
  assert.equal(stop.waitFor, [start.replica]);
  assert.is(stop.phase, 'stop');
  assert.match(stop.reason, /^ejected by every router since /);
  assert.ok(stalledInStatus, 'STATUS.md listed A as ejected, with its since-time');
  const after = await of(w, 'm1', 'running');
  assert.equal(after.map((r) => r.id).sort(), [b!.id, c!.id, start.replica].sort());

  // B: under the same load, slow, never ejected; its streams and C's came back whole.
  assert.equal([...ejections.keys()], [a!.id]);
  assert.ok(bStreams.length > 0 && bBusy > 0, 'B carried streams');
  for (const s of rest) assert.ok(s.done && !s.errorEvent && s.status === 200, JSON.stringify(s));
  for (const s of bStreams) assert.equal(s.live.tokens, words('b', 8).split(' '));
  // One replica.stalled, for A.
  assert.equal(
    w.events.filter((e) => e.event === 'replica.stalled').map((e) => e.subject),
    [a!.id],
  );
});

test.run();
