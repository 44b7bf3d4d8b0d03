import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHostKey, knownHostsCache, hostKeyAlgorithms, knownHostsName, lookupHostKeys, parseKnownHosts } from '../../src/gather/known-hosts.js';
import { defined } from '../helpers/defined.js';

// Key blobs only need to be distinct base64 strings for these rules.
const blob = (type: string, tag: string): Buffer => {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, Buffer.from(tag)]);
};
const ED_A = blob('ssh-ed25519', 'key-a');
const ED_B = blob('ssh-ed25519', 'key-b');
const ECDSA = blob('ecdsa-sha2-nistp256', 'key-c');
const RSA = blob('ssh-rsa', 'key-d');
const b64 = (b: Buffer) => b.toString('base64');

function hashed(name: string): string {
  const salt = randomBytes(20);
  const hash = createHmac('sha1', salt).update(name).digest();
  return `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
}

test('a host on port 22 is filed under its bare name, any other port as [host]:port', () => {
  assert.is(knownHostsName('gpu-a01', 22), 'gpu-a01');
  assert.is(knownHostsName('10.0.0.5', 2222), '[10.0.0.5]:2222');
});

test('a line with several names gives its key to each name, case-insensitively', () => {
  const kh = parseKnownHosts(`gpu-a01,10.0.0.1,GPU-A01.example ssh-ed25519 ${b64(ED_A)} comment here\n`, 'kh');
  for (const name of ['gpu-a01', '10.0.0.1', 'gpu-a01.example']) {
    const keys = lookupHostKeys(kh, name, 22);
    assert.is(keys.length, 1, name);
    assert.ok(defined(keys[0]).blob.equals(ED_A));
    assert.is(defined(keys[0]).type, 'ssh-ed25519');
    assert.is(defined(keys[0]).line, 1);
  }
  assert.equal(lookupHostKeys(kh, 'gpu-a02', 22), []);
});

test('[host]:port entries match only that port, and a bare entry only port 22', () => {
  const kh = parseKnownHosts(`[gpu-a01]:2222 ssh-ed25519 ${b64(ED_A)}\ngpu-a01 ssh-ed25519 ${b64(ED_B)}\n`, 'kh');
  assert.ok(defined(lookupHostKeys(kh, 'gpu-a01', 2222)[0]).blob.equals(ED_A));
  assert.is(lookupHostKeys(kh, 'gpu-a01', 2222).length, 1);
  assert.ok(defined(lookupHostKeys(kh, 'gpu-a01', 22)[0]).blob.equals(ED_B));
  assert.equal(lookupHostKeys(kh, 'gpu-a01', 2200), []);
});

test('hashed |1|salt|hash entries match the name they hash, [host]:port included', () => {
  const text = [`${hashed('gpu-a01')} ssh-ed25519 ${b64(ED_A)}`, `${hashed('[10.0.0.7]:2222')} ecdsa-sha2-nistp256 ${b64(ECDSA)}`].join('\n');
  const kh = parseKnownHosts(text, 'kh');
  assert.ok(defined(lookupHostKeys(kh, 'gpu-a01', 22)[0]).blob.equals(ED_A));
  assert.ok(defined(lookupHostKeys(kh, '10.0.0.7', 2222)[0]).blob.equals(ECDSA));
  assert.equal(lookupHostKeys(kh, 'gpu-a02', 22), []);
  assert.equal(lookupHostKeys(kh, '10.0.0.7', 22), []);
});

test('a hashed entry is found for a host written in capitals, as ssh lowercases the name before hashing', () => {
  const kh = parseKnownHosts(`${hashed('[gpu-a01.example]:2222')} ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.ok(lookupHostKeys(kh, 'GPU-A01.Example', 2222)[0]?.blob.equals(ED_A));
});

test('a host with several keys offers exactly their algorithms, and any of them is known', () => {
  const kh = parseKnownHosts(`gpu-a01 ssh-ed25519 ${b64(ED_A)}\n# a comment\n\ngpu-a01 ssh-rsa ${b64(RSA)}\ngpu-b01 ecdsa-sha2-nistp256 ${b64(ECDSA)}\n`, 'kh');
  const keys = lookupHostKeys(kh, 'gpu-a01', 22);
  assert.equal(
    keys.map((k) => k.line),
    [1, 4],
  );
  // Never ssh-rsa: it signs with SHA-1 (src/gather/ssh-algorithms.ts).
  assert.equal(hostKeyAlgorithms(keys), ['ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256']);
  assert.is(checkHostKey(keys, RSA), 'known');
  assert.is(checkHostKey(keys, ED_A), 'known');
});

test('a host listed only with an ECDSA key is offered only ECDSA, so its ed25519 key is never asked for', () => {
  const kh = parseKnownHosts(`gpu-b01 ecdsa-sha2-nistp256 ${b64(ECDSA)}\n`, 'kh');
  assert.equal(hostKeyAlgorithms(lookupHostKeys(kh, 'gpu-b01', 22)), ['ecdsa-sha2-nistp256']);
});

test('no entry is unknown; an entry with another key is changed', () => {
  const kh = parseKnownHosts(`gpu-a01 ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.is(checkHostKey(lookupHostKeys(kh, 'gpu-a02', 22), ED_A), 'unknown');
  assert.is(checkHostKey(lookupHostKeys(kh, 'gpu-a01', 22), ED_B), 'changed');
});

test('@revoked refuses that key even when another line lists it', () => {
  const kh = parseKnownHosts(`gpu-a01 ssh-ed25519 ${b64(ED_A)}\n@revoked * ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  const keys = lookupHostKeys(kh, 'gpu-a01', 22);
  assert.is(checkHostKey(keys, ED_A), 'revoked');
  assert.equal(hostKeyAlgorithms(keys), ['ssh-ed25519']);
});

test('@cert-authority lines are skipped with one warning, however many there are', () => {
  const kh = parseKnownHosts(
    `@cert-authority *.example ssh-ed25519 ${b64(ED_A)}\n@cert-authority *.other ssh-ed25519 ${b64(ED_B)}\ngpu-a01 ssh-ed25519 ${b64(ED_B)}\n`,
    '/root/.ssh/known_hosts',
  );
  assert.equal(kh.warnings, ['/root/.ssh/known_hosts:1: @cert-authority lines are not supported and are ignored']);
  assert.equal(lookupHostKeys(kh, 'x.example', 22), []);
  assert.is(lookupHostKeys(kh, 'gpu-a01', 22).length, 1);
});

test('wildcards match and a negated pattern excludes a host from the line', () => {
  const kh = parseKnownHosts(`gpu-a*,!gpu-a13 ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.is(lookupHostKeys(kh, 'gpu-a07', 22).length, 1);
  assert.is(lookupHostKeys(kh, 'gpu-a13', 22).length, 0);
  assert.is(lookupHostKeys(kh, 'gpu-b07', 22).length, 0);
});

test('malformed lines are skipped without throwing', () => {
  const kh = parseKnownHosts(
    `garbage\n|1|bad ssh-ed25519 ${b64(ED_A)}\nhost ssh-ed25519\n@unknown-marker h ssh-ed25519 ${b64(ED_A)}\ngpu-a01 ssh-ed25519 ${b64(ED_A)}\n`,
    'kh',
  );
  assert.is(lookupHostKeys(kh, 'gpu-a01', 22).length, 1);
  assert.is(lookupHostKeys(kh, 'host', 22).length, 0);
});

test('a long-running process sees a key added to known_hosts without a restart, and warns only once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-khcache-'));
  const file = join(dir, 'known_hosts');
  let clock = 0;
  const warnings: string[] = [];
  try {
    writeFileSync(file, `@cert-authority * ssh-ed25519 ${b64(ED_B)}\n`);
    const get = knownHostsCache(
      file,
      (w) => warnings.push(w),
      () => clock,
    );
    assert.equal(lookupHostKeys(await get(), 'gpu-a01', 22), []);
    writeFileSync(file, `@cert-authority * ssh-ed25519 ${b64(ED_B)}\ngpu-a01 ssh-ed25519 ${b64(ED_A)}\n`);
    clock += 1500;
    assert.is(lookupHostKeys(await get(), 'gpu-a01', 22).length, 1);
    assert.is(warnings.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
