// ssh2 signs and verifies with a key's PEM text, so every call parses the key
// again: about a millisecond per connection for an ed25519 key, most of a cold
// gather's client CPU at a thousand hosts. The same key, parsed once into a
// KeyObject, signs the same bytes.

import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type ssh2 from 'ssh2';

/** The hash ssh2 uses when the caller names none (its per-type default). */
function defaultHash(type: string): string | null {
  if (type === 'ssh-ed25519') return null;
  if (type === 'ecdsa-sha2-nistp256') return 'sha256';
  if (type === 'ecdsa-sha2-nistp384') return 'sha384';
  if (type === 'ecdsa-sha2-nistp521') return 'sha512';
  return 'sha1'; // ssh-rsa, ssh-dss
}

/** The same parsed key, its sign/verify working from KeyObjects made once. */
export function withCachedKeyObjects<K extends ssh2.ParsedKey>(key: K): K {
  const privPem = key.getPrivatePEM();
  const pubPem = key.getPublicPEM();
  const priv: KeyObject | null = privPem ? createPrivateKey(privPem) : null;
  const pub: KeyObject | null = pubPem ? createPublicKey(pubPem) : null;
  const fallback = defaultHash(key.type);
  // ssh2 returns an Error rather than throwing (its typings say otherwise), so these do too.
  const target = key as unknown as { sign: unknown; verify: unknown };
  if (priv) {
    target.sign = (data: Buffer, algo?: string): Buffer | Error => {
      try {
        return sign(algo || fallback, data, priv);
      } catch (err) {
        return err as Error;
      }
    };
  }
  if (pub) {
    target.verify = (data: Buffer, signature: Buffer, algo?: string): boolean | Error => {
      try {
        return verify(algo || fallback, data, pub, signature);
      } catch (err) {
        return err as Error;
      }
    };
  }
  return key;
}
