import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../../src/cli/commands/agent.js';
import { UsageError } from '../../src/errors.js';
import { captureIo } from '../helpers/io.js';
import { makeNode, type TestNode } from './helpers.js';

let node: TestNode;
test.before(async () => {
  node = await makeNode();
});
test.after(async () => {
  await node.cleanup();
});

test('llmgw agent report reads the request on stdin and prints one JSON reply', async () => {
  const c = captureIo({ env: node.env, stdin: JSON.stringify({ version: 1, node: 'n1', storage: [], weights: [] }) });
  assert.is(await run(['report'], c.io), 0);
  const reply = JSON.parse(c.out());
  assert.equal(
    reply.gpus.map((g: { name: string }) => g.name),
    ['NVIDIA H100 80GB HBM3'],
  );
  assert.is(c.err(), '');
});

test('a bad request on stdin is exit 1 and one line on stderr', async () => {
  const c = captureIo({ env: node.env, stdin: '{' });
  assert.is(await run(['apply'], c.io), 1);
  assert.is(c.out(), '');
  assert.is(c.err(), 'llmgw agent: bad apply request: request is not JSON\n');
});

test('anything but report or apply is a usage error; --help documents the environment', async () => {
  for (const argv of [['status'], [], ['report', 'extra']]) {
    const thrown = await run(argv, captureIo().io).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(thrown instanceof UsageError, argv.join(' '));
  }
  const c = captureIo();
  assert.is(await run(['--help'], c.io), 0);
  for (const v of ['LLMGW_STATE_DIR', 'LLMGW_NVIDIA_SMI', 'LLMGW_AGENT_SUPERVISOR', 'LLMGW_AGENT_STOP_TIMEOUT']) assert.ok(c.out().includes(v), v);
});

test.run();
