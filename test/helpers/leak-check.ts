// The broad acceptance check of docs/security.md: no `${VAR}` value, no file
// content from outside the repo and no raw control character reaches stdout,
// stderr, STATUS.md, observed.json, state.json, a commit message or a webhook
// body. Tests put CANARY into every secret they give llmgw (environment
// values, webhook secrets and URLs, files outside the repo) and run these
// checks over everything llmgw wrote: any hit names where, escaped.

import { git } from '../../src/demo/git-remote.js';
import { escapeTerminal } from '../../src/text/terminal-text.js';

/** A value no test output may contain: each secret a test hands llmgw holds it. */
export const CANARY = 'llmgw-canary-5e1f9a';

/**
 * Raw control characters a terminal acts on: C0 but newline and tab (llmgw's
 * own line structure), DEL, C1, and the bidi controls that reorder text.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Environment variables holding the canary, for a test to give llmgw beside what it needs. */
export function canaryEnv(): Record<string, string> {
  return {
    LLMGW_WEBHOOK_SECRET: `${CANARY}-webhook-secret`,
    LLMGW_WEBHOOK_URL: `https://hooks.invalid/${CANARY}-token`,
    LLMGW_CANARY_TOKEN: `${CANARY}-token`,
  };
}

function around(text: string, at: number): string {
  return escapeTerminal(text.slice(Math.max(0, at - 40), at + 40));
}

/** Each way `text` (what llmgw wrote to `where`) breaks the rule: the canary, or a raw control character. */
export function leaksIn(text: string, where: string): string[] {
  const out: string[] = [];
  const c = text.indexOf(CANARY);
  if (c >= 0) out.push(`${where}: the canary secret, in …${around(text, c)}…`);
  const m = CONTROL.exec(text);
  if (m) out.push(`${where}: a raw control character ${escapeTerminal(m[0])}, in …${around(text, m.index)}…`);
  return out;
}

/** leaksIn over many outputs at once (`{stdout, stderr, 'STATUS.md': …}`). */
export function leaksInAll(outputs: Record<string, string>): string[] {
  return Object.entries(outputs).flatMap(([where, text]) => leaksIn(text, where));
}

/**
 * The whole history of a git remote, every branch and ref (the lease too):
 * the canary anywhere (any commit, any file, any message), and raw control
 * characters in what llmgw itself committed (its messages and the lines its
 * commits add). People's own commits may hold anything; llmgw's may not.
 */
export async function remoteLeaks(remote: string): Promise<string[]> {
  const everything = await git(remote, ['log', '--all', '-p', '--text', '--no-color', '--no-ext-diff', '--format=commit %H%n%B']);
  const out: string[] = [];
  const c = everything.indexOf(CANARY);
  if (c >= 0) out.push(`${remote}: the canary secret in its history, in …${around(everything, c)}…`);
  const ours = await git(remote, ['log', '--all', '-p', '--text', '--no-color', '--no-ext-diff', '--author=<llmgw@localhost>', '--format=%x01%B']);
  const added = ours
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('+') ||
        l.startsWith('\u0001') ||
        !/^(diff |index |--- |\+\+\+ |@@ |-| |\\ |new file|deleted file|old mode|new mode|similarity|rename|$)/.test(l),
    )
    .map((l) => l.replace(/^\u0001/, ''))
    .join('\n');
  out.push(...leaksIn(added, `${remote} (llmgw's commits)`).filter((l) => !l.includes('canary')));
  return out;
}
