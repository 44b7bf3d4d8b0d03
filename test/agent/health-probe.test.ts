import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEALTH_PROBE_TIMEOUT_MS, healthUrl, probeHealth } from '../../src/agent/health-probe.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, makeNode, stubStart, waitFor, type TestNode } from './helpers.js';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

let node: TestNode;
test.before(async () => {
  node = await makeNode();
});
test.after(async () => {
  await node.cleanup();
});

test('the health URL is the endpoint plus the health path, whatever the slashes', () => {
  assert.is(healthUrl('http://gpu-a01.example:8000', '/health'), 'http://gpu-a01.example:8000/health');
  assert.is(healthUrl('http://gpu-a01.example:8000/', 'health'), 'http://gpu-a01.example:8000/health');
});

test('nothing listening, or not a URL, is not healthy', async () => {
  assert.is(await probeHealth(`http://127.0.0.1:${await freePort()}/health`), false);
  assert.is(await probeHealth('not a url'), false);
});

test('replicas that accept but never answer cost the report one probe timeout, not one each', async () => {
  // An engine wedged mid-load: the socket accepts, no HTTP reply ever comes.
  // Each writes `open` and `close` per connection to one shared log: probes one after another would
  // log open, close, open, close…; probes side by side log three opens before the first close.
  const log = join(node.dir, 'probe-events.log');
  const events = (): string[] => {
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const hang = (port: number) => [
    process.execPath,
    '-e',
    `const fs = require('fs'); require('net').createServer((s) => { fs.appendFileSync(${JSON.stringify(log)}, 'open\\n'); s.resume(); s.on('close', () => fs.appendFileSync(${JSON.stringify(log)}, 'close\\n')); }).listen(${port}, '127.0.0.1')`,
  ];
  const ports = [await freePort(), await freePort(), await freePort()];
  const reply = await node.apply(ports.map((p, i) => stubStart(`hang-${i}`, p, { command: hang(p) })));
  assert.ok(reply.results.every((r) => r.ok));
  for (const p of ports) assert.ok(await waitFor(() => accepts(p)), `port ${p} listens`);
  assert.ok(await waitFor(async () => events().filter((e) => e === 'close').length === 3), 'the readiness checks are logged and closed');
  writeFileSync(log, '');
  const started = Date.now();
  const report = await node.report();
  const took = Date.now() - started;
  assert.equal(
    report.replicas.map((r) => r.state),
    ['starting', 'starting', 'starting'],
  );
  // A lower bound only: a busy machine can make the report slower, never faster than the timeout.
  assert.ok(took >= HEALTH_PROBE_TIMEOUT_MS - 50, `report took ${took} ms`);
  assert.ok(await waitFor(async () => events().length === 6), `every probe closed: ${events().join(' ')}`);
  assert.equal(events(), ['open', 'open', 'open', 'close', 'close', 'close'], 'the three probes were open at once');
});

test.run();
