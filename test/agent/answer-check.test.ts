import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { report } from '../../src/agent/report.js';
import type { AgentEnv } from '../../src/agent/env.js';
import type { AgentReport, AnswerCheck, ReplicaReport, StartRequest } from '../../src/types/snapshot.js';
import { getValidator } from '../../src/util/schema.js';
import { startCheckEngine, type CheckEngine, type EngineBehaviour } from './check-engine.js';
import { makeNode, type TestNode } from './helpers.js';

// Each attempt is cut after 2 s here (10 s by default), so a silent engine costs a test 2 s.
let node: TestNode;
const engines: CheckEngine[] = [];
test.before(async () => {
  node = await makeNode(undefined, { LLMGW_AGENT_CHECK_ATTEMPT_TIMEOUT: '2' });
});
test.after(async () => {
  await node.cleanup();
  await Promise.all(engines.map((e) => e.close()));
});

const READY: AnswerCheck = { prompt: 'Reply with the word ready.', expect: 'ready', flags: 'i', timeoutSeconds: 3600 };

/** A replica whose process is a plain sleep and whose endpoint is a test engine. */
async function replica(id: string, check: AnswerCheck | undefined, behaviour: Partial<EngineBehaviour> = {}): Promise<CheckEngine> {
  const engine = await startCheckEngine(behaviour);
  engines.push(engine);
  const start: StartRequest = {
    replica: id,
    model: 'chk',
    spec: 's1',
    weights: 'org/m',
    weightsPath: '/models/org/m',
    gpus: [0],
    port: Number(new URL(engine.url).port),
    endpoint: engine.url,
    rank: 0,
    peers: ['n1'],
    command: ['sleep', '300'],
    env: {},
    health: '/health',
    startTimeoutSeconds: 600,
    ...(check === undefined ? {} : { check }),
  };
  assert.equal((await node.apply([start])).results, [{ replica: id, op: 'start', ok: true }]);
  return engine;
}

async function observe(id: string, opts: { env?: AgentEnv; now?: Date } = {}): Promise<{ r: ReplicaReport; all: AgentReport }> {
  const all = await report({ version: 1, node: 'n1', storage: [], weights: [] }, { ...node.env, ...opts.env }, () => opts.now ?? new Date());
  const r = all.replicas.find((x) => x.id === id);
  if (r === undefined) throw new Error(`${id} is not in the report`);
  return { r, all };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('a replica with a check is running once an answer matches, and the engine was asked exactly the documented question', async () => {
  const engine = await replica('ok-0', READY);
  const { r, all } = await observe('ok-0');
  assert.is(r.state, 'running');
  assert.is(r.check?.ok, true);
  assert.match(r.check?.at ?? '', ISO);
  assert.is(r.check?.error, undefined);
  assert.equal(engine.requests, [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'chk', messages: [{ role: 'user', content: 'Reply with the word ready.' }], max_tokens: 32, temperature: 0 },
    },
  ]);
  assert.equal(getValidator('agent-report')(all), { ok: true });
  await node.apply([], ['ok-0']);
});

test('no question is asked before health answers 200, and a replica without a check reports none', async () => {
  const engine = await replica('cold-0', READY, { health: 503 });
  const { r } = await observe('cold-0');
  assert.is(r.state, 'starting');
  assert.is(r.check, undefined);
  assert.equal(engine.requests, []);
  const plain = await replica('plain-0', undefined);
  const p = (await observe('plain-0')).r;
  assert.is(p.state, 'running');
  assert.is(p.check, undefined);
  assert.equal(plain.requests, [], 'health alone decides without a check');
  await node.apply([], ['cold-0', 'plain-0']);
});

test('a wrong answer past the timeout is failed, naming the check and quoting the answer; failed is sticky', async () => {
  const engine = await replica('wrong-0', { ...READY, timeoutSeconds: 0 }, { answer: 'Hello from the llmgw stub engine.' });
  const { r, all } = await observe('wrong-0');
  assert.is(r.state, 'failed');
  assert.is(r.error, 'answer check failed: expected /ready/i, got "Hello from the llmgw stub engine."');
  assert.equal({ ...r.check, at: 'x' }, { ok: false, at: 'x', error: 'expected /ready/i, got "Hello from the llmgw stub engine."' });
  assert.ok(all.warnings.includes('replica wrong-0 failed: answer check failed: expected /ready/i, got "Hello from the llmgw stub engine."'));
  assert.equal(getValidator('agent-report')(all), { ok: true });
  engine.set({ answer: 'ready' });
  assert.is((await observe('wrong-0')).r.state, 'failed', 'a later right answer does not bring it back');
  assert.is(engine.requests.length, 1, 'a failed replica is not asked again');
  await node.apply([], ['wrong-0']);
});

test('a wrong answer within the timeout is starting, not failed; a right one later makes it running', async () => {
  const engine = await replica('late-0', READY, { answer: 'I am not sure.' });
  const first = (await observe('late-0')).r;
  assert.is(first.state, 'starting');
  assert.is(first.check?.error, 'expected /ready/i, got "I am not sure."');
  engine.set({ answer: 'READY' });
  const second = (await observe('late-0')).r;
  assert.is(second.state, 'running');
  assert.is(second.check?.ok, true);
  await node.apply([], ['late-0']);
});

test('the timeout counts from the first healthy answer, not from the start', async () => {
  const engine = await replica('t0-0', { ...READY, timeoutSeconds: 10 }, { health: 503, answer: 'no' });
  const t = Date.now();
  const at = (s: number) => ({ now: new Date(t + s * 1000) });
  assert.is((await observe('t0-0', at(100))).r.state, 'starting', 'not healthy yet: the check clock has not started');
  engine.set({ health: 200 });
  assert.is((await observe('t0-0', at(200))).r.state, 'starting', 'first healthy answer at +200 s, wrong answer');
  assert.is((await observe('t0-0', at(209))).r.state, 'starting', '9 s after the first healthy answer');
  const last = (await observe('t0-0', at(210))).r;
  assert.is(last.state, 'failed', '10 s after it');
  assert.is(last.error, 'answer check failed: expected /ready/i, got "no"');
  await node.apply([], ['t0-0']);
});

test('a slow answer within the attempt bound counts', async () => {
  await replica('slow-0', READY, { delayMs: 300 });
  assert.is((await observe('slow-0')).r.state, 'running');
  await node.apply([], ['slow-0']);
});

test("a cold engine's first answers may outlast an attempt: starting, then running once one matches within the timeout", async () => {
  const engine = await replica('cold-1', READY, { delays: [4000] });
  const first = (await observe('cold-1')).r;
  assert.is(first.state, 'starting');
  assert.is(first.check?.error, 'no answer within 2 s');
  const second = (await observe('cold-1')).r;
  assert.is(second.state, 'running');
  assert.is(engine.requests.length, 2);
  await node.apply([], ['cold-1']);
});

test('an engine that accepts and never answers is cut at the attempt bound: the report comes back and says so', async () => {
  await replica('mute-0', READY, { mode: 'silent' });
  const { r, all } = await observe('mute-0');
  assert.is(r.state, 'starting');
  assert.is(r.check?.error, 'no answer within 2 s');
  assert.equal(getValidator('agent-report')(all), { ok: true });
  await replica('mute-1', { ...READY, timeoutSeconds: 0 }, { mode: 'silent' });
  const failed = (await observe('mute-1')).r;
  assert.is(failed.state, 'failed');
  assert.is(failed.error, 'answer check failed: no answer within 2 s');
  await node.apply([], ['mute-0', 'mute-1']);
});

test('an engine error is a failing check with the status, never the engine text', async () => {
  await replica('err-0', { ...READY, timeoutSeconds: 0 }, { mode: 'status', status: 500 });
  assert.is((await observe('err-0')).r.error, 'answer check failed: HTTP 500');
  await node.apply([], ['err-0']);
});

test('a streamed (SSE) answer is judged on its concatenated content', async () => {
  const engine = await replica('sse-0', READY, { mode: 'sse', answer: 'Ready!' });
  assert.is((await observe('sse-0')).r.state, 'running');
  engine.set({ answer: 'Nope' });
  const r = (await observe('sse-0', { env: { LLMGW_AGENT_CHECK_INTERVAL: '0' } })).r;
  assert.is(r.check?.error, 'expected /ready/i, got "Nope"');
  await node.apply([], ['sse-0']);
});

test('a running replica whose answers turn wrong stays running with check.ok false, and ok again when they are right', async () => {
  const engine = await replica('turn-0', READY);
  assert.is((await observe('turn-0')).r.state, 'running');
  engine.set({ answer: 'The weights are garbage.' });
  const now = { env: { LLMGW_AGENT_CHECK_INTERVAL: '0' } };
  const { r, all } = await observe('turn-0', now);
  assert.is(r.state, 'running');
  assert.equal({ ...r.check, at: 'x' }, { ok: false, at: 'x', error: 'expected /ready/i, got "The weights are garbage."' });
  assert.ok(all.warnings.includes('replica turn-0 answer check failing: expected /ready/i, got "The weights are garbage."'));
  assert.equal(getValidator('agent-report')(all), { ok: true });
  engine.set({ answer: 'ready' });
  const back = (await observe('turn-0', now)).r;
  assert.equal(back.check?.ok, true);
  assert.is(back.state, 'running');
  await node.apply([], ['turn-0']);
});

test('a running replica is asked again only once its last answer is older than the interval (30 s)', async () => {
  const engine = await replica('cadence-0', READY);
  const t0 = new Date(Date.now() + 1000);
  const first = (await observe('cadence-0', { now: t0 })).r;
  assert.is(first.check?.at, t0.toISOString());
  const soon = (await observe('cadence-0', { now: new Date(t0.getTime() + 29_000) })).r;
  assert.is(engine.requests.length, 1, 'not asked within the interval');
  assert.equal(soon.check, first.check, 'the last result is reported as it was');
  const later = new Date(t0.getTime() + 30_000);
  assert.is((await observe('cadence-0', { now: later })).r.check?.at, later.toISOString());
  assert.is(engine.requests.length, 2);
  await node.apply([], ['cadence-0']);
});

test('an answer with control characters and a huge length is quoted clean and cut', async () => {
  const answer = `\u001b[2J\u0007bad\r\n\u202eevil ${'A'.repeat(10_000)}`;
  await replica('dirty-0', { ...READY, expect: '^ready$', flags: '', timeoutSeconds: 0 }, { answer });
  const r = (await observe('dirty-0')).r;
  assert.is(r.error, `answer check failed: expected /^ready$/, got "[2Jbad evil ${'A'.repeat(68)}"…`);
  assert.not.match(r.error ?? '', /[\u0000-\u001f\u007f-\u009f\u202e]/);
  await node.apply([], ['dirty-0']);
});

test('a start whose expect is not a regular expression is refused and starts nothing', async () => {
  const reply = await node.apply([
    {
      replica: 'badre-0',
      model: 'chk',
      spec: 's',
      weights: 'w',
      weightsPath: '/w',
      gpus: [0],
      port: 1,
      endpoint: 'http://127.0.0.1:1',
      rank: 0,
      peers: ['n1'],
      command: ['sleep', '300'],
      env: {},
      health: '/health',
      startTimeoutSeconds: 60,
      check: { ...READY, expect: '(' },
    },
  ]);
  assert.equal(reply.results, [
    {
      replica: 'badre-0',
      op: 'start',
      ok: false,
      error: 'check.expect is not a valid regular expression: Invalid regular expression: /(/i: Unterminated group',
    },
  ]);
  assert.is(
    (await node.report()).replicas.find((r) => r.id === 'badre-0'),
    undefined,
  );
});

test.run();
