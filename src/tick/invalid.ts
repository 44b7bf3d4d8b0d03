// A tick on an invalid config (docs/status.md, docs/safety.md): touch nothing on the fleet,
// keep the last fleet summary under a block saying why nothing is applied, and
// tell somebody. The webhooks come from cluster.yaml when it is valid on its
// own, so the usual case (a broken models.yaml) still notifies.

import { committedStatus } from '../store/read.js';
import type { ConfigProblem, WebhookConfig } from '../types/config.js';
import type { State } from '../types/state.js';
import { parseConfig } from '../config/load-config.js';
import { detectEvents, type NotifyEvent } from '../notify/events.js';
import { renderInvalidConfigBlock } from '../views/status/index.js';

const NO_MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels: []\n';

/** cluster.yaml's name, webhooks and identity (the outbox key) when cluster.yaml (its text) alone is valid; '' and none otherwise. */
export function clusterAlone(text: string | null, env: Record<string, string | undefined>): { name: string; webhooks: WebhookConfig[]; identityFile?: string } {
  if (text === null) return { name: '', webhooks: [] };
  const alone = parseConfig({ cluster: { name: 'cluster.yaml', text }, models: { name: 'models.yaml', text: NO_MODELS } }, { env, strictEnv: true });
  if (!alone.ok) return { name: '', webhooks: [] };
  const { name, notify, ssh } = alone.config.cluster;
  return { name, webhooks: notify.webhooks, ...(ssh.identityFile === undefined ? {} : { identityFile: ssh.identityFile }) };
}

export async function invalidTick(
  dir: string,
  state: State,
  errors: ConfigProblem[],
  cluster: string,
  now: Date,
): Promise<{ status: string; state: State; events: NotifyEvent[] }> {
  // Never through a symbolic link: a STATUS.md that is not a regular file has no summary to keep.
  const previous = await committedStatus(dir);
  const status = renderInvalidConfigBlock(previous, errors);
  const detected = detectEvents(state, {
    cluster,
    fleet: null,
    plan: null,
    applyFailures: [],
    configErrors: errors,
    now: now.toISOString(),
  });
  return { status, state: detected.state, events: detected.events };
}
