import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { replicaSpec, specArgv } from '../../src/plan/spec.js';
import type { EngineConfig } from '../../src/types/config.js';
import { model } from '../fixtures/index.js';

const ENGINE: EngineConfig = { name: 'vllm', command: ['vllm', 'serve', '{weights}'], basePort: 8000, health: '/health', startTimeoutMs: 1_200_000 };

/** The placeholders each replica fills in itself (and one llmgw does not know): specArgv must leave them as written. */
const PER_REPLICA = ['--id={replica}', '--port={port}', '--host={host}', '--rank={rank}', '--head={head}', '--path={weightsPath}', '{unknown}'];

test('specArgv fills in what every replica shares and leaves each per-replica placeholder as written', () => {
  const m = model('m1', { gpus: 4, nodes: 2, args: ['--name={model}', '--tp={gpus}', '--nn={nodes}', ...PER_REPLICA] });
  assert.equal(specArgv(m, ENGINE), ['vllm', 'serve', 'org/m1', '--name=m1', '--tp=4', '--nn=2', ...PER_REPLICA]);
});

test('replicaSpec: the first 8 hex digits of sha256 over weights, engine command, args, GPUs and nodes; an empty adapters list hashes as none', () => {
  const m = model('m1', { gpus: 4, nodes: 2, args: ['--tp={gpus}'] });
  const expected = createHash('sha256')
    .update(JSON.stringify([m.weights, ENGINE.command, m.args, 4, 2]))
    .digest('hex')
    .slice(0, 8);
  assert.is(replicaSpec(m, ENGINE), expected);
  assert.is(replicaSpec({ ...m, adapters: [] }, ENGINE), expected, 'adding the key rolls nothing');
  assert.is(replicaSpec({ ...m, priority: 9, replicas: 7 }, ENGINE), expected, 'priority and count do not shape the process');
});

test('replicaSpec: adapters shape the process, each by its name and its weights', () => {
  const m = model('m1');
  const one = replicaSpec({ ...m, adapters: [{ name: 'sql', weights: 'org/sql-lora' }] }, ENGINE);
  assert.is.not(one, replicaSpec(m, ENGINE));
  assert.is(
    one,
    createHash('sha256')
      .update(JSON.stringify([m.weights, ENGINE.command, m.args, m.gpus, m.nodes, [['sql', 'org/sql-lora']]]))
      .digest('hex')
      .slice(0, 8),
  );
  assert.is.not(replicaSpec({ ...m, adapters: [{ name: 'sql2', weights: 'org/sql-lora' }] }, ENGINE), one);
  assert.is.not(replicaSpec({ ...m, adapters: [{ name: 'sql', weights: 'org/sql-lora-v2' }] }, ENGINE), one);
});

test.run();
