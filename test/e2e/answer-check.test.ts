// Acceptance of docs/protocol.md#the-answer-check's answer check, end to end over the
// simulated fleet and the real router: the reconciler sends the model's check
// with the start; a replica whose stub engine answers it wrongly is never
// routed (not one request) and ends `failed` with the check named as the
// reason — in `llmgw status --json`, in STATUS.md's failure memory
// (state.json) and in the apply.failed event — while one that answers right
// is routed. A running replica whose re-check starts failing leaves the table.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import type { StatusReport } from '../../src/status/index.js';
import { captureIo } from '../helpers/io.js';
import { of, startLifecycleWorld, until, type LifecycleWorld } from './lifecycle-world.js';

const CHECK = '{ prompt: "Reply with the word ready.", expect: "(?i)ready", timeout: 3s }';
const MODELS =
  'apiVersion: llmgw/v1\nkind: Models\nmodels:\n' +
  `  - { name: good, weights: org/good, engine: vllm, gpus: 1, replicas: 1, check: ${CHECK} }\n` +
  `  - { name: bad, weights: org/bad, engine: vllm, gpus: 1, replicas: 1, check: ${CHECK}, args: [--wrong] }\n`;

let w: LifecycleWorld;
test.before(async () => {
  // `--wrong` makes the stub answer every prompt with the same wrong text: the engine allows it here.
  w = await startLifecycleWorld(MODELS, { hook: true, cluster: (doc) => doc.engines.vllm.allowArgs.push('--wrong') });
  // Every report re-checks a running replica (the default is at most every 30 s).
  for (const node of w.e.world.nodeNames) w.e.world.agentEnv(node).LLMGW_AGENT_CHECK_INTERVAL = '0';
});
test.after(async () => {
  await w.close();
});

async function status(): Promise<StatusReport> {
  const io = captureIo({ cwd: w.e.workdir, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' } });
  const code = await main(['status', '--json', '--repo', w.e.workdir, '--now', new Date(w.t).toISOString()], io.io);
  assert.is(code, 0, io.err());
  return JSON.parse(io.out()) as StatusReport;
}

test('a replica whose engine answers the check wrongly never gets traffic and is failed with the check as its reason', async () => {
  const started = await w.tick();
  assert.equal(
    started.plan!.actions.map((a) => `${a.op} ${a.replica}`),
    ['start good-0', 'start bad-0'],
  );
  const good = await until('good-0 passing its check', async () => (await of(w, 'good', 'running'))[0]);
  assert.equal(good.check?.ok, true);
  // bad-0 answers health but not the check: `starting` until the check's timeout, then failed. Either way a tick routes good-0, never it.
  await w.tick();
  assert.equal(Object.keys((await w.usage()).inflight ?? {}), ['good-0']);
  const failed = await until('bad-0 failed by its check', async () => (await of(w, 'bad', 'failed'))[0], 30_000);
  assert.match(failed.error!, /^answer check failed: expected \/ready\/i, got "Lorem ipsum dolor sit amet/);
  assert.equal(failed.check?.ok, false);

  const seen = await status();
  const row = seen.replicas.find((r) => r.id === 'bad-0')!;
  assert.equal([row.state, row.error], ['failed', failed.error]);
  assert.equal(
    seen.models.find((m) => m.name === 'bad'),
    { name: 'bad', desired: 1, running: 0, starting: 0, failed: 1 },
  );

  const next = await w.tick();
  assert.ok(next.plan!.actions.some((a) => a.op === 'stop' && a.replica === 'bad-0' && a.reason === 'failed'));
  const memory = (await w.state()).startFailures.find((f) => f.replica === 'bad-0')!;
  assert.is(memory.error, failed.error, 'placement steers away from that node, remembering why');
  assert.ok(
    w.events.some((e) => e.event === 'apply.failed' && e.subject === 'bad-0' && JSON.stringify(e.details).includes('answer check failed')),
    JSON.stringify(w.events),
  );
  const usage = await w.usage();
  assert.not.ok('bad-0' in usage.lastUsed || 'bad-0' in (usage.served ?? {}) || 'bad-0' in (usage.inflight ?? {}), 'never routed');
});

test('a running replica whose re-check starts failing leaves the routers and counts as down', async () => {
  const good = (await of(w, 'good', 'running'))[0]!;
  await w.stub(good.endpoint!, { wrong: true });
  await until('its re-check failing', async () => (await of(w, 'good')).find((r) => r.id === good.id && r.check?.ok === false));
  const tick = await w.tick();
  assert.equal(Object.keys((await w.usage()).inflight ?? {}), [], 'out of the table');
  const row = tick.report!.replicas.find((r) => r.id === good.id)!;
  assert.equal([row.state, row.check?.ok], ['running', false]);
  assert.match(tick.status, /- 1 replica failing its answer check \(not routed\): good-0 \(on [\w.-]+: expected \/ready\/i, got "Lorem ipsum/);
  assert.ok(w.events.some((e) => e.event === 'model.down' && e.subject === 'good'));
  // It answers right again: back in the table.
  await w.stub(good.endpoint!, { wrong: false });
  await until('its re-check passing', async () => (await of(w, 'good')).find((r) => r.id === good.id && r.check?.ok === true));
  await w.tick();
  assert.equal(Object.keys((await w.usage()).inflight ?? {}), ['good-0']);
  assert.ok(w.events.some((e) => e.event === 'model.recovered' && e.subject === 'good'));
});

test.run();
