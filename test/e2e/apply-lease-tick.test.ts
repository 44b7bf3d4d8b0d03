// `llmgw apply` holds the lease from before it gathers until it has written
// (docs/safety.md): while a person looks at its plan, a `llmgw run` tick on the
// same remote stands by, so the plan confirmed is applied to the fleet it showed.
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as apply } from '../../src/cli/commands/apply.js';
import type { Io } from '../../src/cli/io.js';
import { startDaemon } from '../../src/daemon/run-daemon.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { processHolder, takeLease } from '../../src/git/lease.js';
import { runTick } from '../../src/tick/run.js';
import { cachedTransports } from '../../src/tick/transport-source.js';
import { startE2E, type E2E } from './fleet-world.js';
import { modelsYaml } from '../fixtures/config-yaml.js';

let e: E2E;
test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

/** A terminal for `llmgw apply`: what it prints, and a keyboard. */
function terminal(): { io: Io; out: () => string; type: (line: string) => void } {
  let out = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    }),
    { isTTY: true },
  );
  const stderr = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const io: Io = { stdout, stderr, stdin, env: { ...e.env, NO_COLOR: '1' }, cwd: e.workdir, debug: false };
  return { io, out: () => out, type: (line) => void stdin.write(line) };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('a `llmgw run` tick stands by while `llmgw apply` waits at its prompt, and acts once apply let the lease go', async () => {
  const daemonRepo = await openConfigRepo({ dir: join(e.people, '..', 'daemon'), remote: e.world.remote, branch: 'main', env: e.env });
  const remoteHead = await e.remoteHead();
  const t = terminal();
  const applying = apply([], t.io);
  await until('the prompt', () => t.out().includes('Apply 1 change(s)? [y/N] '));
  assert.match(t.out(), /\+ start\s+small-0/);

  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env: e.env, keepAlive: true }));
  const lines: string[] = [];
  let ticks = 0;
  const daemon = startDaemon({
    repo: daemonRepo,
    schedule: '0 0 1 1 *',
    holder: 'run@elsewhere:1:0',
    leaseTtlMs: 600_000,
    now: () => new Date(),
    log: (l) => void lines.push(l),
    tick: async (_reason, leaseExpiresAt) => {
      ticks += 1;
      await runTick({
        repo: daemonRepo,
        transport: (c) => transports.forConfig(c),
        env: e.env,
        now: () => new Date(),
        push: true,
        log: () => undefined,
        leaseExpiresAt,
      });
    },
  });
  try {
    await until('the run tick to stand by', () => lines.some((l) => l.startsWith('standing by:')));
    assert.ok(
      lines.some((l) => l.startsWith(`standing by: the lease is held by ${processHolder()} until `)),
      lines.join('\n'),
    );
    assert.is(ticks, 0, 'the run tick never ran: it applied nothing, committed nothing');
    assert.equal(await e.replicasOnFleet(), [], 'nothing started while apply waits');
    assert.is(await e.remoteHead(), remoteHead, 'nothing pushed while apply waits');

    t.type('y\n');
    assert.is(await applying, 0, t.out());
    assert.match(t.out(), /start small-0: ok/);
    assert.equal(
      (await e.replicasOnFleet()).map((r) => r.id),
      ['small-0'],
    );

    // Let go at once: the standby's next tick holds it and reconciles.
    daemon.trigger('schedule');
    await until('the run tick to take the lease', () => ticks === 1 && lines.some((l) => l.startsWith('holding the lease as run@elsewhere:1:0')));
  } finally {
    await daemon.stop();
    await transports.close();
  }
});

test('an unanswered prompt gives up after --confirm-timeout: the lease is let go and nothing is applied', async () => {
  const before = (await e.replicasOnFleet()).map((r) => r.id);
  await e.push({ 'models.yaml': modelsYaml([{ name: 'small', replicas: 2 }]) }, 'Two of small');
  await e.repo.sync();
  const t = terminal();
  assert.is(await apply(['--confirm-timeout', '1s'], t.io), 1, t.out());
  assert.match(t.out(), /Apply 1 change\(s\)\? \[y\/N\] [^\n]*\nNo answer within 1s: let the lease go\. Nothing applied\.\n$/);
  assert.equal(
    (await e.replicasOnFleet()).map((r) => r.id),
    before,
  );
  const next = await takeLease(e.repo, { holder: 'run@elsewhere:2:0', ttlMs: 600_000, now: new Date() });
  assert.is(next.held, true, 'the lease is free for the next instance at once');
  await takeLease(e.repo, { holder: 'run@elsewhere:2:0', ttlMs: 0, now: new Date() });
});

test('--confirm-timeout takes a duration, nothing else', async () => {
  const t = terminal();
  try {
    await apply(['--confirm-timeout', 'soon'], t.io);
    assert.unreachable('should refuse');
  } catch (err) {
    assert.match((err as Error).message, /^--confirm-timeout 'soon' is not a duration/);
  }
});

test.run();
