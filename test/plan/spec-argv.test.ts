import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { specArgv } from '../../src/plan/spec.js';
import type { EngineConfig } from '../../src/types/config.js';
import { model } from '../fixtures/index.js';

const ENGINE: EngineConfig = { name: 'vllm', command: ['vllm', 'serve', '{weights}'], basePort: 8000, health: '/health', startTimeoutMs: 1_200_000 };

/** The placeholders each replica fills in itself (and one llmgw does not know): specArgv must leave them as written. */
const PER_REPLICA = ['--id={replica}', '--port={port}', '--host={host}', '--rank={rank}', '--head={head}', '--path={weightsPath}', '{unknown}'];

test('specArgv fills in what every replica shares and leaves each per-replica placeholder as written', () => {
  const m = model('m1', { gpus: 4, nodes: 2, args: ['--name={model}', '--tp={gpus}', '--nn={nodes}', ...PER_REPLICA] });
  assert.equal(specArgv(m, ENGINE), ['vllm', 'serve', 'org/m1', '--name=m1', '--tp=4', '--nn=2', ...PER_REPLICA]);
});

test.run();
