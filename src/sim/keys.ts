// Keys for a simulated fleet: one ed25519 host key per host, one client key
// every host accepts, and a known_hosts file naming them all.

import ssh2 from 'ssh2';
import { knownHostsName } from '../gather/known-hosts.js';
import { withCachedKeyObjects } from '../gather/key-cache.js';

export interface SimKeyPair {
  /** OpenSSH private key text. */
  private: string;
  /** `ssh-ed25519 AAAA…` */
  public: string;
}

/**
 * A fresh ed25519 key pair. ssh2's generator drops a leading zero byte of the
 * key about once in 150 keys, writing a key it cannot read back itself: such a
 * key is simply generated again.
 */
export function generateSimKey(comment: string): SimKeyPair {
  for (;;) {
    const k = ssh2.utils.generateKeyPairSync('ed25519', { comment });
    if (!(ssh2.utils.parseKey(k.private) instanceof Error)) return { private: k.private, public: k.public };
  }
}

/** One known_hosts line: `[addr]:port ssh-ed25519 AAAA…` (bare addr on port 22). */
export function knownHostsLine(address: string, port: number, key: SimKeyPair): string {
  const [type, blob] = key.public.split(' ');
  return `${knownHostsName(address, port)} ${type ?? ''} ${blob ?? ''}`;
}

/** A private key parsed once for an ssh2 Server's hostKeys: it signs each handshake without re-parsing. */
export function serverHostKey(key: SimKeyPair): { key: ssh2.ParsedKey } {
  return { key: parsedKey(key.private) };
}

export function parsedKey(text: string): ssh2.ParsedKey {
  const parsed = ssh2.utils.parseKey(text);
  if (parsed instanceof Error) throw parsed;
  return withCachedKeyObjects(Array.isArray(parsed) ? (parsed[0] as ssh2.ParsedKey) : parsed);
}
