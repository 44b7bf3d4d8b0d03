// OpenSSH's known_hosts rules (sshd(8) SSH_KNOWN_HOSTS FILE FORMAT) as llmgw
// reads them (src/gather/known-hosts.ts): what a hand-edited file may look like,
// which lines trust nothing, how patterns and hashed names match, which
// algorithms a host is offered, and how a long-running process re-reads the file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkHostKey,
  hostKeyAlgorithms,
  knownHostsCache,
  knownHostsName,
  loadKnownHosts,
  lookupHostKeys,
  parseKnownHosts,
} from '../../src/gather/known-hosts.js';

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
    assert.ok(keys[0]!.blob.equals(ED_A));
    assert.is(keys[0]!.type, 'ssh-ed25519');
    assert.is(keys[0]!.line, 1);
  }
  assert.equal(lookupHostKeys(kh, 'gpu-a02', 22), []);
});

test('[host]:port entries match only that port, and a bare entry only port 22', () => {
  const kh = parseKnownHosts(`[gpu-a01]:2222 ssh-ed25519 ${b64(ED_A)}\ngpu-a01 ssh-ed25519 ${b64(ED_B)}\n`, 'kh');
  assert.ok(lookupHostKeys(kh, 'gpu-a01', 2222)[0]!.blob.equals(ED_A));
  assert.is(lookupHostKeys(kh, 'gpu-a01', 2222).length, 1);
  assert.ok(lookupHostKeys(kh, 'gpu-a01', 22)[0]!.blob.equals(ED_B));
  assert.equal(lookupHostKeys(kh, 'gpu-a01', 2200), []);
});

test('hashed |1|salt|hash entries match the name they hash, [host]:port included', () => {
  const text = [`${hashed('gpu-a01')} ssh-ed25519 ${b64(ED_A)}`, `${hashed('[10.0.0.7]:2222')} ecdsa-sha2-nistp256 ${b64(ECDSA)}`].join('\n');
  const kh = parseKnownHosts(text, 'kh');
  assert.ok(lookupHostKeys(kh, 'gpu-a01', 22)[0]!.blob.equals(ED_A));
  assert.ok(lookupHostKeys(kh, '10.0.0.7', 2222)[0]!.blob.equals(ECDSA));
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

const lines = (kh: ReturnType<typeof parseKnownHosts>, host: string, port = 22) => lookupHostKeys(kh, host, port).map((k) => k.line);

function hashedName(name: string, version = '1', truncate = false): string {
  const salt = randomBytes(20);
  const hash = createHmac('sha1', salt).update(name).digest();
  return `|${version}|${salt.toString('base64')}|${(truncate ? hash.subarray(0, 10) : hash).toString('base64')}`;
}

test('each key type is offered as the algorithms that verify it, and only those; RSA never with SHA-1, DSA not at all', () => {
  const cases: [string, string[]][] = [
    ['ssh-ed25519', ['ssh-ed25519']],
    ['ssh-rsa', ['rsa-sha2-512', 'rsa-sha2-256']], // never SHA-1 (docs/security.md)
    ['ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256']],
    ['ecdsa-sha2-nistp384', ['ecdsa-sha2-nistp384']],
    ['ecdsa-sha2-nistp521', ['ecdsa-sha2-nistp521']],
    ['ssh-dss', []], // DSA signs with SHA-1 only: no algorithm verifies it
    ['sk-ssh-ed25519@openssh.com', []],
  ];
  for (const [type, algorithms] of cases) {
    const kh = parseKnownHosts(`h ${type} ${b64(blob(type, 'k'))}\n`, 'kh');
    assert.equal(hostKeyAlgorithms(lookupHostKeys(kh, 'h', 22)), algorithms, type);
  }
});

test('two keys of one type offer that algorithm once; a revoked key offers nothing', () => {
  const kh = parseKnownHosts(`h ssh-ed25519 ${b64(ED_A)}\nh ssh-ed25519 ${b64(ED_B)}\n@revoked h ecdsa-sha2-nistp256 ${b64(ECDSA)}\n`, 'kh');
  assert.equal(hostKeyAlgorithms(lookupHostKeys(kh, 'h', 22)), ['ssh-ed25519']);
});

test('a host whose only line is @revoked is unknown for any other key, not changed', () => {
  const keys = lookupHostKeys(parseKnownHosts(`@revoked h ssh-ed25519 ${b64(ED_A)}\n`, 'kh'), 'h', 22);
  assert.is(checkHostKey(keys, ED_B), 'unknown');
  assert.is(checkHostKey(keys, ED_A), 'revoked');
});

test('a hand-edited file reads the same: indentation, CRLF line ends, fields aligned with spaces and tabs', () => {
  const kh = parseKnownHosts(`   gpu-a01 \t ssh-ed25519    ${b64(ED_A)}  a comment\r\n\tgpu-a02 ssh-ed25519 ${b64(ED_B)}\r\n`, 'kh');
  assert.ok(lookupHostKeys(kh, 'gpu-a01', 22)[0]?.blob.equals(ED_A));
  assert.ok(lookupHostKeys(kh, 'gpu-a02', 22)[0]?.blob.equals(ED_B));
  assert.is(lookupHostKeys(kh, 'gpu-a01', 22)[0]?.type, 'ssh-ed25519');
});

test('a commented-out line trusts no host, not even the second name on it', () => {
  const kh = parseKnownHosts(`#gpu-a00,gpu-a01 ssh-ed25519 ${b64(ED_A)}\n  # gpu-a01 ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.equal(lookupHostKeys(kh, 'gpu-a01', 22), []);
});

test('lines that trust nothing: an unknown @marker, a key that is not base64, a hashed name of an unknown version, cut short or with a field too many', () => {
  const kh = parseKnownHosts(
    [
      `@future-marker gpu-a01 ssh-ed25519 ${b64(ED_A)}`,
      'gpu-a02 ssh-ed25519 !!!!',
      `${hashedName('gpu-a03', '2')} ssh-ed25519 ${b64(ED_A)}`,
      `${hashedName('gpu-a04', '1', true)} ssh-ed25519 ${b64(ED_A)}`,
      `gpu-a05 ssh-ed25519 ${b64(ED_B)}`,
      `${hashedName('gpu-a06')}|extra ssh-ed25519 ${b64(ED_A)}`,
    ].join('\n'),
    'kh',
  );
  for (const host of ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-a06']) assert.equal(lookupHostKeys(kh, host, 22), [], host);
  assert.is(checkHostKey(lookupHostKeys(kh, 'gpu-a02', 22), ED_A), 'unknown');
  assert.equal(lines(kh, 'gpu-a05'), [5], 'the lines after them still count');
});

test('a line mixing plain names and wildcards matches both', () => {
  const kh = parseKnownHosts(`gpu-b01,gpu-a* ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.equal(lines(kh, 'gpu-b01'), [1]);
  assert.equal(lines(kh, 'gpu-a07'), [1]);
  assert.equal(lines(kh, 'gpu-c01'), []);
});

test('wildcards: a dot is a dot (10.0.1.* is not 10.0.101.5), ? is one character, case does not matter', () => {
  const kh = parseKnownHosts(`10.0.1.* ssh-ed25519 ${b64(ED_A)}\ngpu-a0? ssh-ed25519 ${b64(ED_B)}\nGPU-B* ssh-ed25519 ${b64(ECDSA)}\n`, 'kh');
  assert.equal(lines(kh, '10.0.1.5'), [1]);
  assert.equal(lines(kh, '10.0.101.5'), []);
  assert.equal(lines(kh, 'gpu-a07'), [2]);
  assert.equal(lines(kh, 'gpu-a'), []);
  assert.equal(lines(kh, 'gpu-a070'), []);
  assert.equal(lines(kh, 'gpu-b01'), [3]);
});

test('a hashed entry of the name as cluster.yaml spells it (capitals) is found too, and only for that name', () => {
  const kh = parseKnownHosts(`${hashedName('GPU-A01')} ssh-ed25519 ${b64(ED_A)}\n`, 'kh');
  assert.equal(lines(kh, 'GPU-A01'), [1]);
  assert.equal(lines(kh, 'GPU-A02'), []);
  assert.equal(lines(kh, 'gpu-a02'), []);
});

test("a host's keys come in file order, whether a line names it or matches it by a pattern", () => {
  const kh = parseKnownHosts(
    `gpu-* ssh-ed25519 ${b64(ED_A)}\ngpu-a01 ssh-ed25519 ${b64(ED_B)}\n${hashedName('gpu-a01')} ecdsa-sha2-nistp256 ${b64(ECDSA)}\ngpu-a01 ssh-rsa ${b64(blob('ssh-rsa', 'r'))}\n`,
    'kh',
  );
  assert.equal(lines(kh, 'gpu-a01'), [1, 2, 3, 4]);
});

test('a missing known_hosts knows no host', async () => {
  const kh = await loadKnownHosts(join(tmpdir(), `llmgw-no-such-known-hosts-${process.pid}`));
  assert.equal([kh.byName.size, kh.scanned.length, kh.warnings], [0, 0, []]);
});

test('a long-running process checks known_hosts at most once a second, and then sees the change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-khcache-'));
  const file = join(dir, 'known_hosts');
  let clock = 10_000;
  try {
    writeFileSync(file, `gpu-a01 ssh-ed25519 ${b64(ED_A)}\n`);
    const get = knownHostsCache(file, undefined, () => clock);
    assert.equal(lines(await get(), 'gpu-a02'), []);
    writeFileSync(file, `gpu-a01 ssh-ed25519 ${b64(ED_A)}\ngpu-a02 ssh-ed25519 ${b64(ED_B)}\n`);
    clock += 999;
    assert.equal(lines(await get(), 'gpu-a02'), [], 'within the second: the copy read before');
    clock += 1;
    assert.equal(lines(await get(), 'gpu-a02'), [2], 'a second later: the file as it is now');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('many connections asking at once, first thing, all get the file; warnings go nowhere without a listener', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-khcache-'));
  const file = join(dir, 'known_hosts');
  try {
    writeFileSync(file, `@cert-authority * ssh-ed25519 ${b64(ED_B)}\ngpu-a01 ssh-ed25519 ${b64(ED_A)}\n`);
    const get = knownHostsCache(file);
    const all = await Promise.all([get(), get(), get()]);
    assert.equal(
      all.map((kh) => lines(kh, 'gpu-a01')),
      [[2], [2], [2]],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
