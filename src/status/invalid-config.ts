// STATUS.md while the config on the branch is invalid (CONTRACT §8): the last
// fleet summary stays, under a block that says what is wrong and that nothing
// is applied until it is fixed. The block sits between two HTML comments so the
// next invalid tick replaces it rather than stacking a second one on top.

import { formatProblem } from '../errors.js';
import type { ConfigProblem } from '../types/config.js';
import { md } from './escape.js';

export const INVALID_BEGIN = '<!-- llmgw:invalid-config -->';
export const INVALID_END = '<!-- /llmgw:invalid-config -->';

/** The previous STATUS.md without an invalid-config block at its top. */
export function stripInvalidConfigBlock(statusMd: string): string {
  if (!statusMd.startsWith(INVALID_BEGIN)) return statusMd;
  const end = statusMd.indexOf(INVALID_END);
  if (end < 0) return statusMd;
  return statusMd.slice(end + INVALID_END.length).replace(/^\n+/, '');
}

export function renderInvalidConfigBlock(previousStatusMd: string | null, problems: ConfigProblem[]): string {
  const block = [
    INVALID_BEGIN,
    '> **The config on this branch is invalid.** Nothing is being applied until it is fixed.',
    '>',
    ...problems.map((p) => `> - ${md(formatProblem(p))}`),
    INVALID_END,
    '',
  ];
  const rest = previousStatusMd === null ? 'No fleet summary yet: the config has never been valid.\n' : stripInvalidConfigBlock(previousStatusMd);
  return block.join('\n') + '\n' + rest;
}
