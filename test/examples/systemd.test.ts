// examples/systemd: `systemd-analyze verify` on each unit, in a scratch root.
//
// verify loads the unit as systemd would and checks its directives, its
// dependencies and that ExecStart's program exists and is executable. The
// units start llmgw through /usr/bin/env, with the install prefix in one
// `Environment=PATH=` line (npm install -g's default, /usr/local/bin), so a
// host with another prefix changes that line only. The scratch root holds a
// copy of this machine's systemd units (for the targets the units depend on),
// an executable stub at each ExecStart path, and the unit itself, and verify
// runs with --root there. Everything else is checked as on a real host.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';

const UNITS = fileURLToPath(new URL('../../../examples/systemd/', import.meta.url));
const SYSTEM_UNITS = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((d) => existsSync(join(d, 'multi-user.target')));
const root = mkdtempSync(join(tmpdir(), 'llmgw-systemd-'));

function execStart(unit: string): string[] {
  const text = readFileSync(join(UNITS, unit), 'utf8').replace(/\\\n\s*/g, ' ');
  const line = /^ExecStart=(.*)$/m.exec(text);
  assert.ok(line, `${unit} has an ExecStart`);
  return line[1]!.trim().split(/\s+/);
}

/** `systemd-analyze verify` of a unit text placed in the scratch root. */
function verify(name: string, text: string): { status: number | null; output: string } {
  const path = join(root, 'etc/systemd/system', name);
  writeFileSync(path, text);
  const r = spawnSync('systemd-analyze', ['verify', `--root=${root}`, `/etc/systemd/system/${name}`], { encoding: 'utf8' });
  if (r.error) throw new Error(`systemd-analyze is missing (Debian's systemd package): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

test.before(() => {
  assert.ok(SYSTEM_UNITS, "this machine's systemd units are missing (Debian's systemd package)");
  mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
  cpSync(SYSTEM_UNITS, join(root, 'usr/lib/systemd/system'), { recursive: true });
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  for (const unit of ['llmgw-run.service', 'llmgw-router.service']) {
    const program = join(root, execStart(unit)[0]!);
    mkdirSync(dirname(program), { recursive: true });
    writeFileSync(program, '#!/bin/sh\nexit 0\n');
    chmodSync(program, 0o755);
  }
});

test.after(() => rmSync(root, { recursive: true, force: true }));

for (const unit of ['llmgw-run.service', 'llmgw-router.service']) {
  test(`systemd-analyze verify passes on ${unit}, without a warning`, () => {
    assert.equal(verify(unit, readFileSync(join(UNITS, unit), 'utf8')), { status: 0, output: '' });
  });
}

test('the check is not vacuous: a misspelled directive and a missing program are reported', () => {
  const text = readFileSync(join(UNITS, 'llmgw-run.service'), 'utf8');
  assert.match(verify('typo.service', text.replace('ProtectSystem=strict', 'ProtectSystm=strict')).output, /Unknown key 'ProtectSystm'/);
  const missing = verify('missing.service', text.replace('ExecStart=/usr/bin/env ', 'ExecStart=/usr/bin/env-not-there '));
  assert.is(missing.status, 1);
  assert.match(missing.output, /env-not-there is not executable/);
});

for (const unit of ['llmgw-run.service', 'llmgw-router.service']) {
  test(`${unit} names the install prefix in one line, and verifies with another prefix`, () => {
    const text = readFileSync(join(UNITS, unit), 'utf8');
    const lines = text.split('\n').filter((l) => !l.startsWith('#') && l.includes('/usr/local'));
    assert.equal(lines, ['Environment=PATH=/usr/local/bin:/usr/bin:/bin']);
    assert.equal(execStart(unit).slice(0, 2), ['/usr/bin/env', 'llmgw']);
    const opt = text.replace('Environment=PATH=/usr/local/bin:', 'Environment=PATH=/opt/llmgw/bin:');
    assert.is.not(opt, text);
    assert.equal(verify(`opt-${unit}`, opt), { status: 0, output: '' });
  });
}

test('the reconciler unit raises the open-file limit: it keeps one SSH connection per host open', () => {
  assert.match(readFileSync(join(UNITS, 'llmgw-run.service'), 'utf8'), /^LimitNOFILE=65536$/m);
});

test("the reconciler unit's git key is the deploy key docs/operations.md installs", () => {
  const unit = readFileSync(join(UNITS, 'llmgw-run.service'), 'utf8');
  const docs = readFileSync(fileURLToPath(new URL('../../../docs/operations.md', import.meta.url)), 'utf8');
  const git = (t: string) => /GIT_SSH_COMMAND=ssh -i (\S+)/.exec(t)?.[1];
  assert.is(git(unit), '/var/lib/llmgw/.ssh/git_deploy_ed25519');
  assert.is(git(unit), git(docs));
});

test('the reconciler unit reads its secrets from an environment file and keeps the hardening that leaves git and ssh working', () => {
  const text = readFileSync(join(UNITS, 'llmgw-run.service'), 'utf8');
  assert.match(text, /^EnvironmentFile=\/etc\/llmgw\/llmgw\.env$/m);
  assert.match(text, /mode 0600/);
  for (const line of [
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'StateDirectory=llmgw',
    'CapabilityBoundingSet=',
    'User=llmgw',
  ]) {
    assert.match(text, new RegExp(`^${line}$`, 'm'), line);
  }
  // Node's JIT writes executable memory: MemoryDenyWriteExecute would kill it.
  assert.not.match(text, /^MemoryDenyWriteExecute=yes/m);
});

test('the reconciler unit runs llmgw run with flags llmgw run accepts', async () => {
  const argv = execStart('llmgw-run.service');
  assert.equal(argv.slice(1, 3), ['llmgw', 'run']);
  const c = captureIo();
  assert.is(await main(['run', '--help'], c.io), 0);
  for (const flag of argv.filter((a) => a.startsWith('--'))) assert.ok(c.out().includes(flag), `llmgw run --help lists ${flag}`);
  assert.ok(argv.includes('--metrics') && argv.includes('--log-format'));
});

test('the router unit keeps its admin socket in the runtime directory systemd makes for it', () => {
  const text = readFileSync(join(UNITS, 'llmgw-router.service'), 'utf8');
  assert.match(text, /^RuntimeDirectory=llmgw$/m);
  const argv = execStart('llmgw-router.service');
  assert.equal(argv.slice(1, 4), ['llmgw', 'router', 'serve']);
  assert.is(argv[argv.indexOf('--admin') + 1], '/run/llmgw/router.sock');
});

test.run();
