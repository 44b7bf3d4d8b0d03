// cluster.yaml's ssh: the timeouts Node's timers can hold, the user when
// nothing names one, `~`, the bastion's grammar, and key paths that come
// from the environment.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import os from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import { resolveSsh, timeoutAt } from '../../src/config/resolve-ssh.js';
import { hostFacts } from '../../src/config/load-config.js';
import type { ResolveContext } from '../../src/config/resolve-context.js';
import { formatProblem } from '../../src/errors.js';
import type { Raw } from '../../src/config/raw.js';
import type { Config } from '../../src/types/config.js';
import { CLUSTER, MODELS, STORAGE_CLUSTER, parsePair, replaced, validConfig, yamlOf } from '../fixtures/index.js';

function ctxOf(text: string, env: Record<string, string | undefined> = { HOME: '/home/op', USER: 'op' }): { ctx: ResolveContext; ssh: Raw } {
  const src = yamlOf('cluster.yaml', text);
  const ssh = ((src.value as Raw).ssh ?? {}) as Raw;
  return { ctx: { src, env, errors: [], warnings: [], substituted: [], host: { home: '/home/os-user', user: 'os-user', realpath: (p: string) => p } }, ssh };
}
function parse(cluster: string, env: Record<string, string> = {}, repoDir?: string) {
  return parsePair(cluster, MODELS, { env, ...(repoDir !== undefined ? { repoDir } : {}) });
}
function errorsOf(cluster: string, env: Record<string, string> = {}, repoDir?: string): string[] {
  const r = parse(cluster, env, repoDir);
  return r.ok ? [] : r.errors.map(formatProblem);
}
function configOf(cluster: string, env: Record<string, string> = {}): Config {
  const r = parse(cluster, env);
  if (!r.ok) throw new Error(r.errors.map(formatProblem).join('\n'));
  return r.config;
}

test('a timeout past what a Node timer holds is reported, and used as the largest timer (2^31-1 ms), never as more', () => {
  const { ctx, ssh } = ctxOf(`${CLUSTER}ssh:\n  connectTimeout: 25d\n`);
  assert.is(timeoutAt(ctx, ssh.connectTimeout, '10s', ['ssh', 'connectTimeout']), 2_147_483_647);
  assert.equal(ctx.errors.map(formatProblem), ['cluster.yaml:12:19: ssh.connectTimeout: must be at most 24d']);
  const ok = ctxOf(`${CLUSTER}ssh:\n  connectTimeout: 24d\n`);
  assert.is(timeoutAt(ok.ctx, ok.ssh.connectTimeout, '10s', ['ssh', 'connectTimeout']), 24 * 86_400_000);
  assert.is(timeoutAt(ok.ctx, undefined, '10s', ['ssh', 'commandTimeout']), 10_000);
  assert.equal(ok.ctx.errors, []);
});

test("with no ssh.user, $USER or $LOGNAME, llmgw connects as the host's user (the password database's, looked up by the config's reader)", () => {
  const { ctx, ssh } = ctxOf(CLUSTER, { HOME: '/home/op' });
  assert.is(resolveSsh(ctx, ssh).user, 'os-user');
});

test('with no password-database entry either (a container with an arbitrary uid), the host facts say root', () => {
  const real = os.userInfo;
  os.userInfo = () => {
    throw new Error('uv_os_get_passwd returned ENOENT');
  };
  syncBuiltinESMExports();
  try {
    assert.is(hostFacts().user, 'root');
  } finally {
    os.userInfo = real;
    syncBuiltinESMExports();
  }
  assert.is(hostFacts().user, os.userInfo().username);
  assert.is(hostFacts().home, os.homedir());
});

test('a bare ~ as a path is $HOME itself', () => {
  const { ctx, ssh } = ctxOf(`${CLUSTER}ssh:\n  knownHosts: "~"\n`);
  assert.is(resolveSsh(ctx, ssh).knownHosts, '/home/op');
});

test('a proxyJump with text before or after user@host:port is only the schema problem: no bastion is read out of part of it', () => {
  for (const jump of ['a/bastion:0', 'bastion:0/x']) {
    assert.equal(
      errorsOf(`${CLUSTER}ssh:\n  proxyJump: ${jump}\n`),
      ['cluster.yaml:12:14: ssh.proxyJump: must be user@host:port (user and port optional)'],
      jump,
    );
    const { ctx, ssh } = ctxOf(`${CLUSTER}ssh:\n  proxyJump: ${jump}\n`);
    assert.is(resolveSsh(ctx, ssh).proxyJump, undefined, jump);
    assert.equal(ctx.errors, [], jump);
  }
});

test('an identityFile from ${VAR} must come out absolute or ~/…: a relative result names the variable', () => {
  const cluster = `${CLUSTER}ssh:\n  identityFile: "\${KEYDIR}id_ed25519"\n`;
  assert.equal(errorsOf(cluster), ['cluster.yaml:12:17: ssh.identityFile: must be an absolute path or start with ~/ (after substituting ${KEYDIR})']);
  assert.is(configOf(cluster, { KEYDIR: '/keys/' }).cluster.ssh.identityFile, '/keys/id_ed25519');
  assert.is(configOf(cluster, { KEYDIR: '~/.ssh/' }).cluster.ssh.identityFile, '/home/op/.ssh/id_ed25519');
});

test("a relative key path is the schema's problem only: it is not judged against the repo", () => {
  assert.equal(errorsOf(`${CLUSTER}ssh:\n  knownHosts: known_hosts\n`, {}, process.cwd()), [
    'cluster.yaml:12:15: ssh.knownHosts: must be an absolute path or start with ~/',
  ]);
});

test('proxyJump ports 1 and 65535 are fine', () => {
  assert.equal(validConfig(replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nssh:\n  proxyJump: bastion:1'), MODELS).cluster.ssh.proxyJump, {
    user: 'root',
    host: 'bastion',
    port: 1,
  });
  assert.equal(validConfig(replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nssh:\n  user: op\n  proxyJump: bastion:65535'), MODELS).cluster.ssh.proxyJump, {
    user: 'op',
    host: 'bastion',
    port: 65535,
  });
});

test('~/ in ssh paths is HOME, with or without its trailing slash', () => {
  for (const home of ['/home/op/', '/home/op']) {
    const c = validConfig(replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nssh: { identityFile: "~/.ssh/id", knownHosts: "~/kh" }'), MODELS, {
      env: { HOME: home },
    });
    assert.equal([c.cluster.ssh.identityFile, c.cluster.ssh.knownHosts], ['/home/op/.ssh/id', '/home/op/kh'], home);
  }
});

test.run();
