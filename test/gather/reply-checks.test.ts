import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SshError } from '../../src/errors.js';
import { callJson } from '../../src/gather/call.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { nonFinitePath } from '../../src/util/json-finite.js';
import { emptyState } from '../../src/types/state.js';
import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import type { HostTarget } from '../../src/types/transport.js';
import { oneNodeConfig, replying } from './sim-helpers.js';
import type { SchemaName } from '../../src/util/schema.js';

const target: HostTarget = { name: 'gpu-a01', host: '10.0.0.1', port: 22 };
const gpu = '{"index":0,"uuid":"GPU-1","name":"NVIDIA H100 80GB HBM3","memoryMiB":81559,"healthy":true,"foreign":0}';
const reportWith = (gpus: string, extra = '') => `{"version":1,"gpus":[${gpus}],"replicas":[],"storage":[],"warnings":[]${extra}}`;

/** The one-line error callJson gives for this reply, or 'ok'. */
async function verdict(text: string, schema: SchemaName = 'agent-report', command = 'llmgw agent report'): Promise<string> {
  try {
    await callJson(replying(text), target, command, { version: 1 }, schema);
    return 'ok';
  } catch (err) {
    if (!(err instanceof SshError)) throw err;
    assert.is(err.kind, 'bad-reply');
    assert.is(err.message.includes('\n'), false, 'one line');
    return err.message;
  }
}

const prefix = (schema = 'agent-report', command = 'llmgw agent report') =>
  `gpu-a01 (10.0.0.1:22): \`${command}\` gave a reply that is not a valid ${schema}: `;

test('a sound report, foreign counts and all, is accepted', async () => {
  assert.is(await verdict(reportWith(gpu)), 'ok');
});

test('"memoryMiB":1e999 (Infinity once parsed) is that host\'s error, naming where', async () => {
  assert.is(await verdict(reportWith(gpu.replace('81559', '1e999'))), `${prefix()}/gpus/0/memoryMiB: a number out of range (not finite)`);
  assert.is(await verdict(reportWith(gpu.replace('81559', '-1e999'))), `${prefix()}/gpus/0/memoryMiB: a number out of range (not finite)`);
});

test('a non-finite number in a field no schema knows is refused too: it would be committed as null', async () => {
  assert.is(await verdict(reportWith(gpu, ',"extra":{"x":[1,1e999]}')), `${prefix()}/extra/x/1: a number out of range (not finite)`);
  const apply = '{"version":1,"results":[{"replica":"m-0","op":"stop","ok":true,"took":-1e999}]}';
  assert.is(
    await verdict(apply, 'agent-apply-reply', 'llmgw agent apply'),
    `${prefix('agent-apply-reply', 'llmgw agent apply')}/results/0/took: a number out of range (not finite)`,
  );
});

test('finite but absurd numbers fail the schema: memory past 16 TiB, a GPU index past 1023, a negative count, a port past 65535', async () => {
  assert.is(await verdict(reportWith(gpu.replace('81559', '1e300'))), `${prefix()}/gpus/0/memoryMiB: must be <= 16777216`);
  assert.is(await verdict(reportWith(gpu.replace('"index":0', '"index":4096'))), `${prefix()}/gpus/0/index: must be <= 1023`);
  assert.is(await verdict(reportWith(gpu.replace('"foreign":0', '"foreign":-3'))), `${prefix()}/gpus/0/foreign: must be >= 0`);
  const replica = (over: string) =>
    `{"version":1,"gpus":[],"replicas":[{"id":"m-0","model":"m","gpus":[0],"state":"running"${over}}],"storage":[],"warnings":[]}`;
  assert.is(await verdict(replica(',"port":70000')), `${prefix()}/replicas/0/port: must be <= 65535`);
  assert.is(await verdict(replica(',"gpus":[1024]').replace('"gpus":[0],', '')), `${prefix()}/replicas/0/gpus/0: must be <= 1023`);
});

test('one GPU index reported twice is refused: it would be counted twice', async () => {
  assert.is(await verdict(reportWith(`${gpu},${gpu.replace('GPU-1', 'GPU-2')}`)), `${prefix()}/gpus/1/index: GPU 0 is reported twice`);
});

test('huge arrays are refused by their bound, in one line', async () => {
  const many = Array.from({ length: 100_000 }, (_, i) => gpu.replace('"index":0', `"index":${i % 1024}`)).join(',');
  assert.is(await verdict(reportWith(many)), `${prefix()}/gpus: must NOT have more than 1024 items`);
  const held = `{"version":1,"gpus":[],"replicas":[{"id":"m-0","model":"m","gpus":[${Array.from({ length: 50_000 }, () => 0).join(',')}],"state":"running"}],"storage":[],"warnings":[]}`;
  assert.ok((await verdict(held)).startsWith(`${prefix()}/replicas/0/gpus: must NOT have more than 1024 items;`), 'and not unique either');
  const warnings = `{"version":1,"gpus":[],"replicas":[],"storage":[],"warnings":[${Array.from({ length: 5000 }, () => '"w"').join(',')}]}`;
  assert.is(await verdict(warnings), `${prefix()}/warnings: must NOT have more than 1000 items`);
});

test('router counters must be whole and never negative (the schema refuses them, the finiteness check the rest)', async () => {
  const usage = (extra: string) => `{"version":1,"startedAt":"2026-11-29T07:00:00Z","lastUsed":{}${extra}}`;
  const p = prefix('router-usage', 'llmgw router usage');
  const v = (text: string) => verdict(text, 'router-usage', 'llmgw router usage');
  assert.is(await v(usage(',"inflight":{"m-0":2},"served":{"m-0":{"requests":10,"errors":0}}')), 'ok');
  assert.is(await v(usage(',"inflight":{"m-0":-1}')), `${p}/inflight/m-0: must be >= 0`);
  assert.is(await v(usage(',"inflight":{"m-0":1e999}')), `${p}/inflight/m-0: a number out of range (not finite)`);
  assert.is(await v(usage(',"served":{"m-0":{"requests":1.5,"errors":0}}')), `${p}/served/m-0/requests: must be integer`);
  assert.is(await v(usage(',"served":{"m-0":{"requests":1,"errors":-2}}')), `${p}/served/m-0/errors: must be >= 0`);
});

test('nonFinitePath walks arrays and objects, escapes keys as JSON Pointer, and survives deep nesting', () => {
  assert.is(nonFinitePath({ a: [1, 2, { 'b/c~': -Infinity }] }), '/a/2/b~1c~0');
  assert.is(nonFinitePath(Infinity), '/');
  assert.is(nonFinitePath({ a: [1, 'x', null, true, { b: 2 }] }), null);
  let deep: unknown = Infinity;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.is(nonFinitePath(deep)?.length, 200_000);
});

test('a node whose report holds 1e999 is unreachable with that error and its last good report carried, never committed as null', async () => {
  const good: AgentReport = JSON.parse(reportWith(gpu)) as AgentReport;
  const config = oneNodeConfig();
  const previous: Snapshot = { version: 1, observedAt: '2026-11-29T07:59:00Z', nodes: [{ name: 'gpu-a01', reachable: true, report: good }], routers: [] };
  const snap = await gatherSnapshot(config, {
    transport: replying(reportWith(gpu.replace('81559', '1e999'))),
    previous,
    state: emptyState(),
    now: () => new Date('2026-11-29T08:00:00Z'),
  });
  assert.equal(snap.nodes, [
    {
      name: 'gpu-a01',
      reachable: false,
      error: `${prefix()}/gpus/0/memoryMiB: a number out of range (not finite)`,
      reason: 'bad-reply',
      unreachableSince: '2026-11-29T08:00:00Z',
      lastReport: good,
    },
  ]);
  assert.equal(JSON.parse(JSON.stringify(snap)), snap, 'what is committed reads back the same');
});

test.run();
