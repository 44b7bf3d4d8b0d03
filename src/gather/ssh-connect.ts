// Open one authenticated ssh2 connection to a host, its key checked against
// known_hosts. Used only by ssh-transport.ts, which decides when to connect,
// how many at once, and whether to keep the connection.

import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { HostTarget } from '../types/transport.js';
import { checkHostKey, fingerprint, hostKeyAlgorithms, knownHostsName, lookupHostKeys, type KnownHosts } from './known-hosts.js';
import { HOST_KEY_ALGORITHMS, MACS } from './ssh-algorithms.js';
import { connectError, connectTimeoutError, sshError } from './ssh-errors.js';

/** Whether npm built ssh2's optional native crypto binding (it needs a compiler at install time). */
export function sshNativeCrypto(): boolean {
  try {
    return (createRequire(import.meta.url)('ssh2/lib/protocol/crypto.js') as { bindingAvailable?: unknown }).bindingAvailable === true;
  } catch {
    return false;
  }
}

/**
 * AES first, for AES-NI. With ssh2's native binding AES-GCM runs in it and is
 * cheapest; without it, AES-CTR is (Node's crypto needs a new GCM cipher object
 * per packet, a CTR one per connection): about 10% of a gather's client CPU.
 */
const CIPHERS = sshNativeCrypto()
  ? ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr', 'chacha20-poly1305@openssh.com']
  : ['aes128-ctr', 'aes256-ctr', 'aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com'];

/** `label`: the key as an error line names it (`identityFile ~/.ssh/llmgw (ssh-ed25519 SHA256:…)`, `the ssh-agent`). */
export type AuthMethod =
  | { type: 'publickey'; username: string; key: ssh2.ParsedKey; label?: string }
  | { type: 'agent'; username: string; agent: string | ssh2.BaseAgent; label?: string };

/** `user llmgw with identityFile /k (ssh-ed25519 SHA256:…)`: who a refused login tried to be, and with what. */
function tried(auth: readonly AuthMethod[]): string | undefined {
  const first = auth[0];
  if (first === undefined) return undefined;
  return `user ${first.username} with ${first.label ?? (first.type === 'agent' ? 'the ssh-agent' : 'its key')}`;
}

export interface ConnectOptions {
  knownHosts: KnownHosts;
  auth: AuthMethod[];
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  /** An already open stream to the host (a bastion's forwardOut channel). */
  sock?: Duplex;
}

function keyType(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** Resolves once the host is authenticated; rejects with SshError only. */
export function openConnection(target: HostTarget, opts: ConnectOptions): Promise<ssh2.Client> {
  const keys = lookupHostKeys(opts.knownHosts, target.host, target.port);
  const algorithms = hostKeyAlgorithms(keys);
  const khName = knownHostsName(target.host, target.port);
  const file = opts.knownHosts.file;
  const client = new ssh2.Client();
  let tcpConnected = opts.sock !== undefined;
  let refusal: Error | null = null;

  return new Promise<ssh2.Client>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.destroy();
      reject(err);
    };
    // Our own bound as well as ssh2's readyTimeout: it also covers a stalled bastion stream.
    const timer = setTimeout(() => fail(connectTimeoutError(target, tcpConnected, opts.connectTimeoutMs)), opts.connectTimeoutMs);
    client.on('connect', () => {
      tcpConnected = true;
      // One small request, one small reply: Nagle's algorithm would only add delayed-ACK waits.
      client.setNoDelay(true);
    });
    client.on('error', (err) => settled || fail(refusal ?? connectError(err, target, tcpConnected, opts.connectTimeoutMs, tried(opts.auth))));
    client.on('close', () => settled || fail(refusal ?? sshError('unreachable', target, 'connection closed during the SSH handshake')));
    client.on('ready', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(client);
    });
    const hostVerifier = (presented: Buffer): boolean => {
      const verdict = checkHostKey(keys, presented);
      if (verdict === 'known') return true;
      const offered = `${keyType(presented)} ${fingerprint(presented)}`;
      if (verdict === 'unknown' && opts.knownHosts.missing === true) {
        // Not the host's fault, nor a key someone forgot to add: the file itself is not there.
        refusal = sshError(
          'host-key-unknown',
          target,
          `host key unknown: the known_hosts file ${file} is missing (ENOENT), so no host is known (the host offers ${offered}); create it with the nodes' keys`,
        );
      } else if (verdict === 'unknown') {
        refusal = sshError(
          'host-key-unknown',
          target,
          `host key unknown: ${khName} is not in ${file} (the host offers ${offered}); check that fingerprint, then add the key`,
        );
      } else if (verdict === 'revoked') {
        refusal = sshError('host-key-changed', target, `host key ${offered} is marked @revoked in ${file}; refusing to connect`);
      } else {
        const lines = keys
          .filter((k) => !k.revoked)
          .map((k) => `${file}:${k.line}`)
          .join(', ');
        refusal = sshError(
          'host-key-changed',
          target,
          `HOST KEY CHANGED: the host offers ${offered}, which is not the key in ${lines}; refusing to connect (possible man-in-the-middle; if the host was reinstalled, fix known_hosts by hand)`,
        );
      }
      return false;
    };
    try {
      client.connect({
        host: target.host,
        port: target.port,
        sock: opts.sock,
        username: opts.auth[0]?.username,
        authHandler: opts.auth,
        hostVerifier,
        readyTimeout: opts.connectTimeoutMs,
        keepaliveInterval: opts.keepaliveIntervalMs,
        keepaliveCountMax: 3,
        // Always both lists: ssh2's own defaults offer hmac-sha1 and ssh-rsa (ssh-algorithms.ts).
        algorithms: {
          cipher: CIPHERS as ssh2.CipherAlgorithm[],
          hmac: MACS as ssh2.MacAlgorithm[],
          serverHostKey: (algorithms.length ? algorithms : HOST_KEY_ALGORITHMS) as ssh2.ServerHostKeyAlgorithm[],
        },
      });
    } catch (err) {
      fail(connectError(err, target, tcpConnected, opts.connectTimeoutMs));
    }
  });
}
