// What llmgw offers in an SSH handshake and signs with (docs/security.md): no
// SHA-1 anywhere. SHA-1 MACs (hmac-sha1, hmac-sha1-96, hmac-sha1-etm) are not
// offered, nor the `ssh-rsa` and `ssh-dss` signature algorithms (SHA-1):
// RSA keys still work through rsa-sha2-256/512 (RFC 8332), which every
// OpenSSH since 7.2 (2016) speaks. A host that can only do SHA-1 is refused
// in the handshake, with one line naming the host, rather than talked to
// with a hash that collisions have broken. (ssh2's default key exchanges
// already hold no SHA-1 one; llmgw keeps them.)

import ssh2 from 'ssh2';

/** MACs offered: SHA-2 only, encrypt-then-MAC first. (AES-GCM and chacha20-poly1305 carry their own.) */
export const MACS = ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com', 'hmac-sha2-256', 'hmac-sha2-512'];

/** Host key signature algorithms, when known_hosts names none for a host (it is then refused anyway, as unknown). */
export const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'];

/** Why a SHA-1 signature is refused: the message of the auth error. */
export const SHA1_REFUSED =
  'refusing to sign with ssh-rsa (SHA-1); the host must accept rsa-sha2-256 or rsa-sha2-512 (OpenSSH 7.2 or later), or use an ed25519 key';

/** Whether signing with `hash` for a key of `type` would be a SHA-1 signature (ssh2 passes no hash, or sha1, for ssh-rsa). */
export function isSha1Signature(type: string, hash: string | undefined): boolean {
  if (type === 'ssh-dss') return true;
  return type === 'ssh-rsa' && hash !== 'sha256' && hash !== 'sha512';
}

/**
 * `key` signing as before, except that a SHA-1 signature is an Error (ssh2
 * returns, not throws, its signing errors): against a server that does not
 * announce rsa-sha2 (no `server-sig-algs`), ssh2 would fall back to ssh-rsa.
 */
export function withoutSha1Signatures<K extends ssh2.ParsedKey>(key: K): K {
  const target = key as unknown as { sign: (data: Buffer, algo?: string) => Buffer | Error };
  const sign = target.sign.bind(key);
  target.sign = (data: Buffer, algo?: string): Buffer | Error => (isSha1Signature(key.type, algo) ? new Error(SHA1_REFUSED) : sign(data, algo));
  return key;
}

/** The ssh-agent at `socket`, refusing to ask it for a SHA-1 signature. */
export class Sha2OnlyAgent extends ssh2.OpenSSHAgent {
  override sign(pubKey: ssh2.ParsedKey | Buffer | string, data: Buffer, options?: unknown, cb?: unknown): boolean {
    const callback = (typeof options === 'function' ? options : cb) as ((err?: Error, signature?: Buffer) => void) | undefined;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { hash?: string };
    const parsed = typeof pubKey === 'object' && !Buffer.isBuffer(pubKey) ? pubKey : ssh2.utils.parseKey(pubKey);
    const type = parsed instanceof Error ? '' : Array.isArray(parsed) ? ((parsed[0] as ssh2.ParsedKey | undefined)?.type ?? '') : parsed.type;
    if (isSha1Signature(type, opts.hash)) {
      callback?.(new Error(SHA1_REFUSED));
      return false;
    }
    return super.sign(pubKey, data, opts as ssh2.SigningRequestOptions, callback as ssh2.SignCallback);
  }
}
