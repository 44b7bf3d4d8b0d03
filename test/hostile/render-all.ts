// What a hostile input must survive once it is accepted: the pure pipeline from
// a config and a snapshot to every text llmgw prints or commits (plan text and
// Markdown, status text, Markdown and JSON). Shared by the hostile suites.

import { buildFleet } from '../../src/fleet/index.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { renderPlanJson } from '../../src/views/plan/render-json.js';
import { renderPlanMarkdown } from '../../src/views/plan/render-markdown.js';
import { renderPlanText } from '../../src/views/plan/render-text.js';
import { renderStatusJson, renderStatusMarkdown, renderStatusText } from '../../src/views/status/index.js';
import { statusOf } from '../../src/tick/render.js';
import type { Config } from '../../src/types/config.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

/** Every rendering of planning `config` on `snapshot`, by name. */
export function renderAll(config: Config, snapshot: Snapshot, now = snapshot.observedAt): Record<string, string> {
  const state = emptyState();
  const fleet = buildFleet(config, snapshot, state, now);
  const plan = planFleet(fleet, state);
  const report = statusOf(fleet, state, plan);
  return {
    'plan text': renderPlanText(plan, '', { color: false }),
    'plan markdown': renderPlanMarkdown(plan, ''),
    'plan json': renderPlanJson(plan),
    'status text': renderStatusText(report, { color: false }),
    'status markdown': renderStatusMarkdown(report),
    'status json': renderStatusJson(report),
  };
}
