// STATUS.md while the config on the branch is invalid (docs/status.md): the last
// fleet summary stays, under a block that says what is wrong and that nothing
// is applied until it is fixed. The block sits between two HTML comments so the
// next invalid tick replaces it rather than stacking a second one on top.
// The errors sit in a code block: each `file:line:col: path: problem` line reads
// exactly as `llmgw validate` prints it (brackets and all), and nothing in a
// message can turn into Markdown or HTML there.

import { formatProblem } from '../../errors.js';
import type { ConfigProblem } from '../../types/config.js';
import { codeFence, plainText } from '../../text/markdown-escape.js';

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
  // An HTML comment inside the block would end at the first `-->`: keep the end marker unique.
  const lines = problems.map((p) => plainText(formatProblem(p)).replaceAll(INVALID_END, ''));
  const fence = codeFence(lines.join('\n'));
  const block = [
    INVALID_BEGIN,
    '> **The config on this branch is invalid.** Nothing is being applied until it is fixed.',
    '>',
    `> ${fence}`,
    ...lines.map((l) => `> ${l}`),
    `> ${fence}`,
    INVALID_END,
    '',
  ];
  const rest = previousStatusMd === null ? 'No fleet summary yet: the config has never been valid.\n' : stripInvalidConfigBlock(previousStatusMd);
  return block.join('\n') + '\n' + rest;
}
