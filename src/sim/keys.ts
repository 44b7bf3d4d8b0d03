// Keys for a simulated fleet: one ed25519 host key per host, one client key
// every host accepts, and a known_hosts file naming them all.

import ssh2 from 'ssh2';
import { knownHostsName } from '../gather/known-hosts.js';

export interface SimKeyPair {
  /** OpenSSH private key text. */
  private: string;
  /** `ssh-ed25519 AAAA…` */
  public: string;
}

export function generateSimKey(comment: string): SimKeyPair {
  const k = ssh2.utils.generateKeyPairSync('ed25519', { comment });
  return { private: k.private, public: k.public };
}

/** One known_hosts line: `[addr]:port ssh-ed25519 AAAA…` (bare addr on port 22). */
export function knownHostsLine(address: string, port: number, key: SimKeyPair): string {
  const [type, blob] = key.public.split(' ');
  return `${knownHostsName(address, port)} ${type} ${blob}`;
}
