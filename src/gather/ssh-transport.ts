// The SSH Transport (ssh2). The only module that loads ssh2 for the client side;
// commands import it lazily, so `llmgw status` never pays for it.
//
// Each run() holds one of `ssh.concurrency` slots for at most connectTimeout +
// commandTimeout, so a hanging host never holds up the hosts queued behind it
// beyond that. With keepAlive (the long-running `llmgw run`), one connection per
// host is kept between calls and re-opened transparently when it has died; at
// most `ssh.keepOpen` of them (each holds a descriptor), the least recently
// used closed first.
//
// A kept connection is also re-made once it is older than maxConnectionAge
// (10 minutes): killing sshd leaves the per-connection process it forked alive,
// so a connection opened before the kill would answer for as long as it lives
// and the node would look reachable with no sshd to let anyone else in. The
// age is checked when a command starts, never during one: an old connection
// still running a command is retired (no new command goes to it) and closed
// once its last command ends.

import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import { DEFAULT_KEEP_OPEN, type SshConfig } from '../types/config.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { SshError } from '../errors.js';
import { withCachedKeyObjects } from './key-cache.js';
import { Sha2OnlyAgent, withoutSha1Signatures } from './ssh-algorithms.js';
import { fingerprint, knownHostsCache, type KnownHosts } from './known-hosts.js';
import { createLimiter } from './limiter.js';
import { openConnection, type AuthMethod } from './ssh-connect.js';
import { ChannelOpenError, execCommand } from './ssh-exec.js';
import { sshError } from './ssh-errors.js';
import { errnoCode } from '../util/errno.js';

export interface SshTransportOptions {
  env?: Record<string, string | undefined>;
  keepAlive?: boolean;
  onWarning?: (msg: string) => void;
  /** The oldest a kept connection may be when a command starts, ms; default MAX_CONNECTION_AGE_MS. */
  maxConnectionAgeMs?: number;
  /** The clock connection ages are read by, ms since the epoch; default Date.now (tests inject one). */
  now?: () => number;
}

/** A kept connection: when it was opened, how many commands run on it, and whether it takes new ones. */
interface Kept {
  client: ssh2.Client;
  openedAt: number;
  busy: number;
  retired: boolean;
}

interface BastionEntry {
  client: Promise<ssh2.Client>;
  failedAt: number | null;
  openedAt: number;
  /** Set once connected: an entry still connecting is never too old. */
  ready: ssh2.Client | null;
  /** Node connections whose stream goes through it now. */
  users: number;
  retired: boolean;
}

interface Setup {
  knownHosts: KnownHosts;
  auth: AuthMethod[];
}

const KEEPALIVE_INTERVAL_MS = 15_000;
/** docs/commands.md `run`: a kept connection is re-made at least this often, so a dead sshd is seen. */
export const MAX_CONNECTION_AGE_MS = 10 * 60_000;
/** A bastion that failed is not tried again for this long: every node behind it fails at once, not one connectTimeout each. */
const BASTION_RETRY_MS = 30_000;

async function resolveAuth(ssh: SshConfig, env: Record<string, string | undefined>): Promise<AuthMethod[]> {
  const username = ssh.user;
  if (ssh.identityFile) {
    // Named as cluster.yaml wrote it when it came from a variable: these lines reach observed.json and the log.
    const named = ssh.identityFileLabel ?? `identityFile ${ssh.identityFile}`;
    let text: string;
    try {
      text = await readFile(ssh.identityFile, 'utf8');
    } catch (err) {
      // Said as this side's problem: no node was contacted, so none is to blame (not one whose sshd is down either).
      throw new SshError('auth-failed', '', `not contacted: cannot read ${named} (${errnoCode(err) ?? 'error'})`);
    }
    // The passphrase is used here and nowhere else: never printed, never part of a message.
    const parsed = ssh2.utils.parseKey(text, env.LLMGW_SSH_PASSPHRASE);
    if (parsed instanceof Error) {
      const hint = env.LLMGW_SSH_PASSPHRASE === undefined ? ' (an encrypted key needs LLMGW_SSH_PASSPHRASE)' : '';
      throw new SshError('auth-failed', '', `not contacted: cannot use ${named}: ${parsed.message}${hint}`);
    }
    const key = Array.isArray(parsed) ? (parsed[0] as ssh2.ParsedKey) : parsed;
    const label = `${named} (${key.type} ${fingerprint(key.getPublicSSH())})`;
    return [{ type: 'publickey', username, key: withoutSha1Signatures(withCachedKeyObjects(key)), label }];
  }
  if (env.SSH_AUTH_SOCK) return [{ type: 'agent', username, agent: new Sha2OnlyAgent(env.SSH_AUTH_SOCK), label: 'the ssh-agent (SSH_AUTH_SOCK)' }];
  throw new SshError('auth-failed', '', 'not contacted: no ssh.identityFile in cluster.yaml and no ssh-agent (SSH_AUTH_SOCK is not set)');
}

export function createSshTransport(ssh: SshConfig, opts: SshTransportOptions = {}): Transport {
  const env = opts.env ?? process.env;
  const limit = createLimiter(ssh.concurrency);
  const pool = new Map<string, Kept>();
  const now = opts.now ?? Date.now;
  const maxAgeMs = opts.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS;
  const open = new Set<ssh2.Client>();
  /** The one bastion connection every node's stream goes through; a failure is remembered for BASTION_RETRY_MS. */
  let bastion: BastionEntry | null = null;
  let closed = false;

  const knownHosts = knownHostsCache(ssh.knownHosts, opts.onWarning);
  let auth: Promise<AuthMethod[]> | null = null;
  const getSetup = async (): Promise<Setup> => {
    auth ??= resolveAuth(ssh, env);
    const [kh, methods] = await Promise.all([knownHosts(), auth]);
    return { knownHosts: kh, auth: methods };
  };

  const track = (client: ssh2.Client): ssh2.Client => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined); // late errors after ready end in 'close'
    return client;
  };

  const connectBastion = async (s: Setup): Promise<ssh2.Client> => {
    const jump = ssh.proxyJump;
    // Only a config with ssh.proxyJump routes through a bastion.
    if (!jump) throw new Error('a bastion connection without ssh.proxyJump');
    const target: HostTarget = { name: `bastion ${jump.user}@${jump.host}:${jump.port}`, host: jump.host, port: jump.port };
    const auth = s.auth.map((a) => ({ ...a, username: jump.user }));
    return track(await openConnection(target, { ...s, auth, connectTimeoutMs: ssh.connectTimeoutMs, keepaliveIntervalMs: KEEPALIVE_INTERVAL_MS }));
  };

  // The bastion's connection ages like a node's: past maxConnectionAge new node
  // connections go through a fresh one (a dead bastion sshd is seen too), and
  // the old one closes once the last stream through it has.
  const releaseBastion = (entry: BastionEntry): void => {
    if (entry.retired && entry.users === 0) entry.ready?.end();
  };

  const bastionEntry = (s: Setup): BastionEntry => {
    if (bastion?.failedAt != null && now() - bastion.failedAt > BASTION_RETRY_MS) bastion = null;
    if (bastion?.ready && now() - bastion.openedAt >= maxAgeMs) {
      bastion.retired = true;
      releaseBastion(bastion);
      bastion = null;
    }
    if (bastion) return bastion;
    const entry: BastionEntry = { client: connectBastion(s), failedAt: null, openedAt: now(), ready: null, users: 0, retired: false };
    bastion = entry;
    entry.client.then(
      (c) => {
        entry.ready = c;
        c.on('close', () => bastion === entry && (bastion = null));
      },
      () => (entry.failedAt = now()),
    );
    return entry;
  };

  const throughBastion = async (s: Setup, target: HostTarget): Promise<Duplex> => {
    const entry = bastionEntry(s);
    let client: ssh2.Client;
    try {
      client = await entry.client;
    } catch (err) {
      const e = err as SshError;
      throw sshError(e.kind, target, `via ${e.message}`, { cause: err });
    }
    // Counted from before the channel opens, so retiring the bastion meanwhile cannot close it under this stream.
    entry.users += 1;
    let counted = true;
    const done = (): void => {
      if (!counted) return;
      counted = false;
      entry.users -= 1;
      releaseBastion(entry);
    };
    return new Promise<Duplex>((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        reject(sshError('timeout', target, `the bastion opened no channel to it within ${ssh.connectTimeoutMs} ms (connectTimeout)`));
      }, ssh.connectTimeoutMs);
      client.forwardOut('127.0.0.1', 0, target.host, target.port, (err, stream) => {
        clearTimeout(timer);
        if (err) {
          done();
          reject(sshError('unreachable', target, `the bastion could not reach it (${err.message})`, { cause: err }));
        } else {
          stream.once('close', done);
          resolve(stream);
        }
      });
    });
  };

  const connect = async (target: HostTarget): Promise<ssh2.Client> => {
    const s = await getSetup().catch((err: unknown) => {
      if (err instanceof SshError) throw sshError(err.kind, target, err.message, { cause: err });
      // known_hosts exists but cannot be read: no key can be checked, so none is accepted.
      const code = errnoCode(err) ?? (err as Error | null | undefined)?.message;
      throw sshError('host-key-unknown', target, `cannot read known_hosts ${ssh.knownHosts} (${String(code)})`, { cause: err });
    });
    const started = Date.now();
    const sock = ssh.proxyJump ? await throughBastion(s, target) : undefined;
    const remaining = Math.max(1, ssh.connectTimeoutMs - (Date.now() - started));
    return track(await openConnection(target, { ...s, sock, connectTimeoutMs: remaining, keepaliveIntervalMs: KEEPALIVE_INTERVAL_MS }));
  };

  /** No new command goes to `k`; it is closed now, or when the last command running on it ends. */
  const retire = (key: string, k: Kept): void => {
    k.retired = true;
    if (pool.get(key) === k) pool.delete(key);
    if (k.busy === 0) k.client.end();
  };

  /** The kept connection for `key` that may take a command now: open, and young enough. */
  const keptFor = (key: string): Kept | undefined => {
    const k = pool.get(key);
    if (k === undefined || !open.has(k.client)) return undefined;
    if (now() - k.openedAt < maxAgeMs) {
      // The pool is kept in order of use: the first entry is the least recently used.
      pool.delete(key);
      pool.set(key, k);
      return k;
    }
    retire(key, k);
    return undefined;
  };

  /** At most ssh.keepOpen kept connections: past it the least recently used go (closed once idle). */
  const keepOpen = ssh.keepOpen ?? DEFAULT_KEEP_OPEN;
  const trimPool = (): void => {
    for (const [key, k] of pool) {
      if (pool.size <= keepOpen) return;
      retire(key, k);
    }
  };

  const runOnce = async (target: HostTarget, command: string, input: string, retried = false): Promise<string> => {
    const key = `${target.host}:${target.port}`;
    let kept = opts.keepAlive && !retried ? keptFor(key) : undefined;
    const reused = kept !== undefined;
    if (kept === undefined) {
      const openedAt = now();
      const fresh = await connect(target);
      kept = { client: fresh, openedAt, busy: 0, retired: false };
      if (opts.keepAlive) {
        // A concurrent call may have kept one meanwhile: the newer wins, the other closes once idle.
        const other = pool.get(key);
        if (other !== undefined) retire(key, other);
        const entry = kept;
        pool.set(key, entry);
        fresh.on('close', () => pool.get(key) === entry && pool.delete(key));
        trimPool();
      }
    }
    const k = kept;
    const client = k.client;
    k.busy += 1;
    try {
      const out = await execCommand(client, target, command, input, ssh.commandTimeoutMs);
      k.busy -= 1;
      if (!opts.keepAlive || (k.retired && k.busy === 0)) client.end();
      return out;
    } catch (err) {
      k.busy -= 1;
      // A timed-out or broken connection is never kept: the next call starts clean.
      k.retired = true;
      client.destroy();
      open.delete(client);
      if (pool.get(key) === k) pool.delete(key);
      // The kept connection had died unnoticed; the command never started, so running it on a fresh one is safe.
      if (err instanceof ChannelOpenError && reused) return runOnce(target, command, input, true);
      if (err instanceof ChannelOpenError) throw sshError('unreachable', target, `could not open a session (${err.message})`);
      throw err;
    }
  };

  return {
    run(target, command, input) {
      if (closed) return Promise.reject(sshError('unreachable', target, 'the SSH transport is closed'));
      return limit(() => runOnce(target, command, input)).catch((err: unknown) => {
        throw err instanceof SshError ? err : sshError('unreachable', target, (err as Error | null | undefined)?.message ?? String(err), { cause: err });
      });
    },
    async close() {
      closed = true;
      const clients = [...open];
      pool.clear();
      bastion = null;
      await Promise.all(
        clients.map(
          (c) =>
            new Promise<void>((resolve) => {
              const t = setTimeout(() => {
                c.destroy();
                resolve();
              }, 1000);
              c.once('close', () => {
                clearTimeout(t);
                resolve();
              });
              c.end();
            }),
        ),
      );
    },
  };
}
