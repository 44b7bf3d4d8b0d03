// OpenSSH known_hosts, parsed by hand: ssh2's hostVerifier only hands us the raw
// key, so deciding "known", "unknown" or "changed" is ours to do. The rules
// follow sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT": plain and hashed (`|1|salt|hash`)
// names, `[host]:port` for a port other than 22, several names per line, several
// keys per host, wildcards and `!negation`, `@revoked`. `@cert-authority` is not
// supported: such lines are skipped with one warning.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { readTextIfExists } from '../util/fs.js';

export interface KnownHostKey {
  /** The key type as written: ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, … */
  type: string;
  /** The SSH wire-format public key blob (what ssh2's hostVerifier receives). */
  blob: Buffer;
  /** 1-based line in the file, for messages. */
  line: number;
  /** An `@revoked` line: this key is refused for the host. */
  revoked: boolean;
}

interface Entry extends KnownHostKey {
  /** Plain patterns (may hold * ? and a leading !). */
  patterns: string[];
  /** Hashed names: [salt, hash]. */
  hashed: [Buffer, Buffer] | null;
}

export interface KnownHosts {
  file: string;
  /** Lines whose names are all literal, by lower-cased name: a 1000-host file is looked up in O(1). */
  byName: Map<string, Entry[]>;
  /** Hashed and wildcard lines, tried one by one. */
  scanned: Entry[];
  warnings: string[];
  /** The file does not exist (ENOENT): no host is known, and the refusal says so rather than "not in the file". Absent: it was read. */
  missing?: boolean;
}

const HOST_KEY_ALGORITHMS: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  // Never ssh-rsa nor ssh-dss: both sign with SHA-1 (ssh-algorithms.ts). A host known only by a DSA key is refused.
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
};

/** The name a host is filed under: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function parseHashed(name: string): [Buffer, Buffer] | null {
  const [empty, version, salt, hash, ...rest] = name.split('|');
  if (empty === undefined || version !== '1' || salt === undefined || hash === undefined || rest.length > 0) return null;
  return [Buffer.from(salt, 'base64'), Buffer.from(hash, 'base64')];
}

/** Parse known_hosts text. Never throws: a line it cannot read is skipped. */
export function parseKnownHosts(text: string, file: string): KnownHosts {
  const byName = new Map<string, Entry[]>();
  const scanned: Entry[] = [];
  const warnings: string[] = [];
  let sawCertAuthority = false;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let revoked = false;
    if (fields[0]?.startsWith('@')) {
      const marker = fields.shift();
      if (marker === '@cert-authority') {
        if (!sawCertAuthority) warnings.push(`${file}:${i + 1}: @cert-authority lines are not supported and are ignored`);
        sawCertAuthority = true;
        return;
      }
      if (marker !== '@revoked') return;
      revoked = true;
    }
    const [names, type, b64] = fields;
    if (names === undefined || type === undefined || b64 === undefined) return;
    const blob = Buffer.from(b64, 'base64');
    if (blob.length === 0) return;
    const hashed = names.startsWith('|') ? parseHashed(names) : null;
    if (names.startsWith('|') && hashed === null) return;
    const patterns = hashed ? [] : names.split(',');
    const entry: Entry = { type, blob, line: i + 1, revoked, patterns, hashed };
    if (hashed || patterns.some((p) => /[*?!]/.test(p))) {
      scanned.push(entry);
      return;
    }
    for (const p of new Set(patterns.map((x) => x.toLowerCase()))) {
      const list = byName.get(p);
      if (list) list.push(entry);
      else byName.set(p, [entry]);
    }
  });
  return { file, byName, scanned, warnings };
}

/** The file's entries; a missing file knows no host (every key is then "unknown"). */
export async function loadKnownHosts(file: string): Promise<KnownHosts> {
  const text = await readTextIfExists(file);
  return text === null ? { ...parseKnownHosts('', file), missing: true } : parseKnownHosts(text, file);
}

/**
 * known_hosts for a long-running process: re-read when the file changes (checked
 * at most once a second), so a key an operator adds or fixes is used on the next
 * tick without a restart. Each warning is reported once.
 */
export function knownHostsCache(file: string, onWarning?: (msg: string) => void, now: () => number = Date.now): () => Promise<KnownHosts> {
  let current: Promise<KnownHosts> | null = null;
  let version = '';
  let checkedAt = -Infinity;
  const warned = new Set<string>();
  return async () => {
    if (current !== null && now() - checkedAt < 1000) return current;
    checkedAt = now();
    const st = await stat(file).catch(() => null);
    const v = st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'missing';
    if (current === null || v !== version) {
      version = v;
      current = loadKnownHosts(file).then((kh) => {
        for (const w of kh.warnings) {
          if (warned.has(w)) continue;
          warned.add(w);
          onWarning?.(w);
        }
        return kh;
      });
    }
    return current;
  };
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function patternsMatch(patterns: string[], name: string): boolean {
  let matched = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    const glob = negated ? p.slice(1) : p;
    const hit = /[*?]/.test(glob) ? globToRegExp(glob).test(name) : glob.toLowerCase() === name.toLowerCase();
    if (hit && negated) return false;
    if (hit) matched = true;
  }
  return matched;
}

function hashedMatch([salt, hash]: [Buffer, Buffer], name: string): boolean {
  const mac = createHmac('sha1', salt).update(name).digest();
  return mac.length === hash.length && timingSafeEqual(mac, hash);
}

/** Every key line for host:port, `@revoked` ones included, in file order. */
export function lookupHostKeys(kh: KnownHosts, host: string, port: number): KnownHostKey[] {
  const name = knownHostsName(host, port);
  const lower = name.toLowerCase();
  const hits = [...(kh.byName.get(lower) ?? [])];
  // ssh lowercases the host name before hashing it, so `GPU-A01.example` in cluster.yaml finds what ssh wrote.
  const hashedHit = (h: [Buffer, Buffer]): boolean => hashedMatch(h, lower) || (lower !== name && hashedMatch(h, name));
  for (const e of kh.scanned) if (e.hashed ? hashedHit(e.hashed) : patternsMatch(e.patterns, name)) hits.push(e);
  return hits.sort((a, b) => a.line - b.line).map(({ type, blob, line, revoked }) => ({ type, blob, line, revoked }));
}

/** The host key algorithms to offer a host: exactly those of its known keys (empty when none is usable). */
export function hostKeyAlgorithms(keys: KnownHostKey[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    if (k.revoked) continue;
    for (const a of HOST_KEY_ALGORITHMS[k.type] ?? []) if (!out.includes(a)) out.push(a);
  }
  return out;
}

export type HostKeyVerdict = 'known' | 'unknown' | 'changed' | 'revoked';

/**
 * Judge the key a host presented. A host with no entry is `unknown`; a host with
 * entries none of which is this key is `changed` — never accepted, because that
 * is exactly what a man in the middle looks like.
 */
export function checkHostKey(keys: KnownHostKey[], presented: Buffer): HostKeyVerdict {
  if (keys.some((e) => e.revoked && e.blob.equals(presented))) return 'revoked';
  const live = keys.filter((e) => !e.revoked);
  if (live.length === 0) return 'unknown';
  return live.some((e) => e.blob.equals(presented)) ? 'known' : 'changed';
}

/** OpenSSH-style fingerprint, `SHA256:…`, for messages. */
export function fingerprint(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}
