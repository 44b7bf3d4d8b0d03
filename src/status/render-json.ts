// `llmgw status --json`: the report as docs/commands.md spells it, key order included.

import type { StatusReport } from './types.js';

export function renderStatusJson(report: StatusReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
