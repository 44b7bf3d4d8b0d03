// `llmgw status --json`: the report as docs/commands.md spells it, key order included.

import { escapeJsonText } from '../../text/terminal-text.js';
import type { StatusReport } from '../../status/types.js';

export function renderStatusJson(report: StatusReport): string {
  return escapeJsonText(JSON.stringify(report, null, 2)) + '\n';
}
