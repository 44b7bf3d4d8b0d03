import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_STOP_GRACE_MS, MAX_STOP_GRACE_MS, stopGraceMs } from '../../src/agent/apply.js';
import { runAgent } from '../../src/agent/main.js';
import { isAlive } from '../../src/agent/process.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { getValidator } from '../../src/util/schema.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);
const exists = (p: string) =>
  readFile(p).then(
    () => true,
    () => false,
  );

/**
 * A replica that writes `<dir>/<id>.ready` once it traps TERM. On TERM it
 * writes `<id>.term`; `ignore` then keeps running (until SIGKILL) and, while
 * it runs, notes `<id>.saw-<other>` when the other's TERM file appears;
 * otherwise it exits at once.
 */
async function startTrapping(id: string, behaviour: 'ignore' | 'exit', other = 'none'): Promise<number> {
  const d = node.dir;
  const onTerm =
    behaviour === 'ignore'
      ? `touch "${d}/${id}.term"; while :; do [ -e "${d}/${other}.term" ] && touch "${d}/${id}.saw-${other}"; sleep 0.05; done`
      : `touch "${d}/${id}.term"; exit 0`;
  const command = ['/bin/sh', '-c', `trap '${onTerm}' TERM; touch "${d}/${id}.ready"; while :; do sleep 0.05; done`];
  assert.equal((await node.apply([stubStart(id, await freePort(), { command })])).results, [{ replica: id, op: 'start', ok: true }]);
  assert.ok(await waitFor(() => exists(join(d, `${id}.ready`))), `${id} traps TERM`);
  return (await readRecord(node.env, id))!.pid;
}

test("the grace is the entry's graceSeconds, else LLMGW_AGENT_STOP_TIMEOUT, else 10 s; never more than 30 s", () => {
  assert.is(DEFAULT_STOP_GRACE_MS, 10_000);
  assert.is(MAX_STOP_GRACE_MS, 30_000);
  assert.is(stopGraceMs('m-0', {}), 10_000);
  assert.is(stopGraceMs({ replica: 'm-0' }, {}), 10_000);
  assert.is(stopGraceMs('m-0', { LLMGW_AGENT_STOP_TIMEOUT: '4' }), 4_000);
  assert.is(stopGraceMs({ replica: 'm-0', graceSeconds: 2.5 }, { LLMGW_AGENT_STOP_TIMEOUT: '4' }), 2_500);
  assert.is(stopGraceMs({ replica: 'm-0', graceSeconds: 0 }, {}), 0);
  assert.is(stopGraceMs({ replica: 'm-0', graceSeconds: 3600 }, {}), 30_000);
  assert.is(stopGraceMs('m-0', { LLMGW_AGENT_STOP_TIMEOUT: '600' }), 30_000);
  assert.is(stopGraceMs('m-0', { LLMGW_AGENT_STOP_TIMEOUT: 'soon' }), 10_000);
});

test('a replica that exits on SIGTERM is stopped by it, not killed, even with a long grace', async () => {
  const pid = await startTrapping('polite-0', 'exit');
  const reply = await node.apply([], [{ replica: 'polite-0', graceSeconds: 25 }]);
  assert.equal(reply, { version: 1, results: [{ replica: 'polite-0', op: 'stop', ok: true }] });
  assert.is(await exists(join(node.dir, 'polite-0.term')), true, 'it ran its TERM handler');
  assert.is(await isAlive(pid, null), false);
  assert.equal(getValidator('agent-apply-reply')(reply), { ok: true });
});

test('a replica that ignores SIGTERM gets SIGTERM, then SIGKILL after the grace of its entry', async () => {
  const pid = await startTrapping('deaf-0', 'ignore');
  const started = Date.now();
  const reply = await node.apply([], [{ replica: 'deaf-0', graceSeconds: 1 }]);
  assert.equal(reply.results, [{ replica: 'deaf-0', op: 'stop', ok: true }]);
  assert.ok(Date.now() - started >= 1000, 'it had its grace before SIGKILL');
  assert.is(await exists(join(node.dir, 'deaf-0.term')), true, 'SIGTERM came first');
  assert.is(await isAlive(pid, null), false);
  assert.equal(
    (await node.report()).replicas.filter((r) => r.id === 'deaf-0'),
    [],
  );
});

test('stops of several replicas run in parallel: each is still in its grace when the other gets SIGTERM', async () => {
  await startTrapping('par-a', 'ignore', 'par-b');
  await startTrapping('par-b', 'ignore', 'par-a');
  const reply = await node.apply(
    [],
    [
      { replica: 'par-a', graceSeconds: 2 },
      { replica: 'par-b', graceSeconds: 2 },
    ],
  );
  assert.equal(
    reply.results.map((r) => r.ok),
    [true, true],
  );
  assert.is(await exists(join(node.dir, 'par-a.saw-par-b')), true, 'par-a, in its grace, saw par-b get SIGTERM');
  assert.is(await exists(join(node.dir, 'par-b.saw-par-a')), true, 'par-b, in its grace, saw par-a get SIGTERM');
});

test('plain ids and objects mix; the same id twice is stopped once and answered per entry', async () => {
  await startTrapping('mix-0', 'exit');
  const reply = await node.apply([], ['mix-0', { replica: 'mix-0', graceSeconds: 1 }, { replica: 'absent-0' }]);
  assert.equal(reply.results, [
    { replica: 'mix-0', op: 'stop', ok: true },
    { replica: 'mix-0', op: 'stop', ok: true },
    { replica: 'absent-0', op: 'stop', ok: true },
  ]);
});

test('a stop entry with a bad id or a grace that is not a finite non-negative number refuses the request, naming it', async () => {
  const cases: [unknown, string][] = [
    [{ replica: '../x', graceSeconds: 1 }, '/stop/0/replica: "../x" is not a replica id'],
    [{ replica: 'm-0', graceSeconds: -1 }, '/stop/0/graceSeconds: must be >= 0'],
    [{ graceSeconds: 1 }, "/stop/0: must have required property 'replica'"],
  ];
  for (const [entry, why] of cases) {
    const out = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', start: [], stop: [entry] }), node.env);
    assert.is(out.code, 1);
    assert.ok(out.stderr.startsWith(`llmgw agent: bad apply request: ${why}`), out.stderr);
  }
  const out = await runAgent('apply', '{"version":1,"node":"n1","start":[],"stop":[{"replica":"m-0","graceSeconds":1e999}]}', node.env);
  assert.equal(out, { stdout: '', stderr: 'llmgw agent: bad apply request: /stop/0/graceSeconds: not a finite number\n', code: 1 });
});

test.run();
