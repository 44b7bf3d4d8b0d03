// Which commits are llmgw's (docs/status.md#which-commits-are-llmgws): one
// rule for every reader of history — the console, `llmgw report`, the outbox.
// A commit is a tick's when its author email is llmgw's and it touches only
// the files llmgw generates. The name proves nothing (anyone can call
// themselves "llmgw"), and neither does the email alone: it is as easy to
// set, so a commit that also changes a person's file (cluster.yaml,
// models.yaml, anything outside the config directory) is a person's change,
// shown as one, whoever it claims to be by.

import { GENERATED_PATHS } from '../store/paths.js';
import { parseDocument } from 'yaml';
import { MAX_CONFIG_BYTES } from '../config/limits.js';
import { LLMGW_EMAIL, type GitRunner } from './runner.js';

/** The files a tick writes, relative to the config directory. */
const GENERATED_FILES: ReadonlySet<string> = new Set(GENERATED_PATHS.filter((p) => p.kind === 'file').map((p) => p.path));

/**
 * `touched`: every path the commit changed, relative to the config
 * directory (a path outside it does not name a generated file, so any
 * spelling will do). `configuredEmail`: cluster.yaml's `git.email`, when set.
 * A commit that touches nothing (a merge, an empty commit) is no tick: a tick
 * always writes a file.
 */
export function isTickCommit(authorEmail: string, touched: readonly string[], configuredEmail?: string): boolean {
  const email = authorEmail.trim().toLowerCase();
  const ours = email === LLMGW_EMAIL || (configuredEmail !== undefined && configuredEmail !== '' && email === configuredEmail.trim().toLowerCase());
  return ours && touched.length > 0 && touched.every((p) => GENERATED_FILES.has(p));
}

/**
 * cluster.yaml's `git.email` in `text`, for readers of history that do not load
 * the whole config (the console, `llmgw report`): undefined when unset, or when
 * the file does not parse — only llmgw@localhost's commits are ticks then.
 */
export function configuredEmail(text: string): string | undefined {
  // Bigger than any cluster.yaml llmgw accepts: such a file names no email.
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) return undefined;
  try {
    const doc = parseDocument(text, { uniqueKeys: false });
    const email: unknown = doc.getIn(['git', 'email']);
    return typeof email === 'string' && email.trim() !== '' ? email : undefined;
  } catch {
    return undefined;
  }
}

/** `configuredEmail` of cluster.yaml at `rev` in the config directory (`prefix`, as `git rev-parse --show-prefix` gives it). */
export async function configuredEmailAt(git: Pick<GitRunner, 'tryRun'>, prefix: string, rev: string): Promise<string | undefined> {
  const shown = await git.tryRun(['show', `${rev}:${prefix}cluster.yaml`], { raw: true });
  return shown.ok ? configuredEmail(shown.out) : undefined;
}
