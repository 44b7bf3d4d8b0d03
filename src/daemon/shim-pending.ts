// SHIM: the signatures of stages not yet merged into main (config A, gather B1,
// fleet/status C, plan D, git/notify F1), so the tick builds meanwhile. Each is
// replaced by its real import, and this file deleted, as the stage lands.

import { NotImplementedError } from '../errors.js';
import type { Config, ConfigProblem, EventName, SshConfig, WebhookConfig } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan, Unplaceable } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { Transport } from '../types/transport.js';

const pending = (what: string): never => {
  throw new NotImplementedError(`${what} is not merged yet`);
};

export function createSshTransport(_ssh: SshConfig, _opts?: { env?: Record<string, string | undefined>; keepAlive?: boolean }): Transport {
  return pending('createSshTransport');
}
export async function gatherSnapshot(_config: Config, _opts: { transport: Transport; previous: Snapshot | null; state: State; now: () => Date; onProgress?: (p: unknown) => void }): Promise<Snapshot> {
  return pending('gatherSnapshot');
}
export type StatusReport = unknown;
export function summarize(_fleet: Fleet, _unplaceable: Unplaceable[]): StatusReport {
  return pending('summarize');
}
export function renderStatusMarkdown(_report: StatusReport): string {
  return pending('renderStatusMarkdown');
}
export function renderInvalidConfigBlock(_previous: string | null, _problems: ConfigProblem[]): string {
  return pending('renderInvalidConfigBlock');
}
export interface ConfigRepo {
  readonly dir: string;
  readonly hasRemote: boolean;
  sync(): Promise<void>;
  dirtyConfig(): Promise<string[]>;
  head(): Promise<string>;
  commit(paths: readonly string[], message: string): Promise<string | null>;
  push(): Promise<void>;
}
export async function openConfigRepo(_opts: { dir: string; remote?: string; branch?: string; env: Record<string, string | undefined> }): Promise<ConfigRepo> {
  return pending('openConfigRepo');
}
export interface NotifyEvent {
  event: EventName;
  cluster: string;
  time: string;
  subject: string;
  text: string;
  details: Record<string, unknown>;
}
export function detectEvents(
  _prev: State,
  _input: { cluster: string; fleet: Fleet | null; plan: Plan | null; applyFailures: { replica: string; node: string; error: string }[]; configErrors: ConfigProblem[] | null; now: string },
): { events: NotifyEvent[]; state: State } {
  return pending('detectEvents');
}
export async function deliver(_webhooks: WebhookConfig[], _events: NotifyEvent[], _opts?: { log?: (line: string) => void }): Promise<{ ok: number; failed: number }> {
  return pending('deliver');
}
