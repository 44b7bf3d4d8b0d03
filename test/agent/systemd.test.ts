import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chooseSupervisor } from '../../src/agent/launch.js';
import { isAlive } from '../../src/agent/process.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { freePort, makeNode, stubStart, waitFor, type TestNode } from './helpers.js';

// Stand-ins for systemd-run and systemctl that record their arguments and run
// the command in its own session, as systemd would, so the agent's systemd
// path runs for real on a machine without systemd.
const SYSTEMD_RUN = `#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_SYSTEMD_DIR/args"
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
command -v "$1" >/dev/null 2>&1 || { echo "Failed to find executable $1: No such file or directory" >&2; exit 1; }
setsid "$@" >/dev/null 2>&1 </dev/null &
echo $! > "$FAKE_SYSTEMD_DIR/pid"
`;
const SYSTEMCTL = `#!/bin/sh
cat "$FAKE_SYSTEMD_DIR/pid"
`;

let node: TestNode;
test.before(async () => {
  node = await makeNode();
  const bin = join(node.dir, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'systemd-run'), SYSTEMD_RUN);
  await writeFile(join(bin, 'systemctl'), SYSTEMCTL);
  await chmod(join(bin, 'systemd-run'), 0o755);
  await chmod(join(bin, 'systemctl'), 0o755);
  Object.assign(node.env, { PATH: `${bin}:${process.env.PATH}`, LLMGW_AGENT_SUPERVISOR: 'systemd', FAKE_SYSTEMD_DIR: node.dir });
});
test.after(async () => {
  await node.cleanup();
});

test('LLMGW_AGENT_SUPERVISOR forces the supervisor; without systemd it is a plain process', () => {
  assert.is(chooseSupervisor({ LLMGW_AGENT_SUPERVISOR: 'systemd' }), 'systemd');
  assert.is(chooseSupervisor({ LLMGW_AGENT_SUPERVISOR: 'process' }), 'process');
});

test('with systemd a replica is a transient unit llmgw-<id> running the argv, with the request env and a log', async () => {
  const port = await freePort();
  const start = stubStart('sd-0', port);
  assert.equal((await node.apply([start])).results, [{ replica: 'sd-0', op: 'start', ok: true }]);
  const args = (await readFile(join(node.dir, 'args'), 'utf8')).trimEnd().split('\n');
  const rec = (await readRecord(node.env, 'sd-0'))!;
  assert.equal(args.slice(0, 5), ['--unit=llmgw-sd-0', '--collect', '--quiet', '--property=Type=exec', '--same-dir']);
  assert.ok(args.includes(`--property=StandardOutput=append:${rec.log}`));
  assert.ok(args.includes('--setenv=CUDA_VISIBLE_DEVICES=0'));
  assert.equal(args.slice(args.indexOf('--') + 1), start.command);
  assert.equal([rec.supervisor, rec.unit], ['systemd', 'llmgw-sd-0']);
  assert.ok(await waitFor(async () => (await node.report()).replicas[0]?.state === 'running'));
  assert.equal((await node.apply([], ['sd-0'])).results, [{ replica: 'sd-0', op: 'stop', ok: true }]);
  assert.is(await isAlive(rec.pid, rec.pidStartTime), false);
});

test("a unit whose command cannot be found is ok:false with systemd-run's reason", async () => {
  const reply = await node.apply([{ ...stubStart('sd-1', await freePort()), command: ['no-such-engine'] }]);
  assert.equal(reply.results, [
    { replica: 'sd-1', op: 'start', ok: false, error: 'systemd-run failed: Failed to find executable no-such-engine: No such file or directory' },
  ]);
});

test.run();
