// The SSH settings live in cluster.yaml, which a tick only reads after pulling,
// and a PR may change them between ticks. So the long-lived side (reconcile,
// run, demo) hands the tick a source of transports: it keeps one warm SSH
// transport while the settings stay the same, and replaces it when they change.

import type { Config, SshConfig } from '../types/config.js';
import type { Transport } from '../types/transport.js';

export type TransportSource = Transport | ((config: Config) => Transport);

export interface CachedTransports {
  forConfig(config: Config): Transport;
  close(): Promise<void>;
}

export function cachedTransports(create: (ssh: SshConfig) => Transport): CachedTransports {
  let current: { key: string; transport: Transport } | null = null;
  return {
    forConfig(config) {
      const key = JSON.stringify(config.cluster.ssh);
      if (current?.key !== key) {
        void current?.transport.close();
        current = { key, transport: create(config.cluster.ssh) };
      }
      return current.transport;
    },
    async close() {
      await current?.transport.close();
      current = null;
    },
  };
}

export function resolveTransport(source: TransportSource, config: Config): Transport {
  return typeof source === 'function' ? source(config) : source;
}
