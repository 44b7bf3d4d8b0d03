// The pull-request comment the GitHub Action posts (action.yml, docs/operations.md):
// the plan as `llmgw plan --format markdown` wrote it, or why there is none,
// behind a hidden marker that finds the comment again on the next push. Pure.

export const MARKER = '<!-- llmgw-plan -->';

/** GitHub refuses bodies over 65,536 characters; the plan keeps within 65,000 and so does the whole comment. */
export const MAX_COMMENT = 65_000;

export interface CommentInput {
  /** `llmgw validate`'s output (stdout and stderr) and exit status. */
  validateOutput: string;
  validateExit: number;
  /** `llmgw plan --format markdown`'s stdout, stderr and exit status; absent when the plan did not run. */
  plan?: { markdown: string; errors: string; exit: number };
  /** Where to read it all, e.g. the workflow run's URL. */
  runUrl?: string;
}

/** A fence longer than any run of backticks in the text, so nothing inside can close it (CommonMark). */
export function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text.replace(/\n+$/, '')}\n${fence}`;
}

function warningsOf(validateOutput: string): string[] {
  return validateOutput.split('\n').filter((l) => l.startsWith('warning: '));
}

export function commentBody(input: CommentInput): string {
  const more = input.runUrl ? `\n\n[The workflow run](${input.runUrl}) has the whole output.` : '';
  if (input.validateExit !== 0) {
    return `${MARKER}\n### llmgw: the config is invalid\n\nNothing can be planned, and the reconciler applies nothing from this branch, until these are fixed:\n\n${fenced(input.validateOutput || 'llmgw validate failed')}${more}\n`;
  }
  if (!input.plan || input.plan.exit !== 0) {
    const why = input.plan ? input.plan.errors || input.plan.markdown : 'the plan did not run';
    return `${MARKER}\n### llmgw: no plan\n\nThe config is valid, but no plan could be made:\n\n${fenced(why || 'llmgw plan failed')}${more}\n`;
  }
  const warnings = warningsOf(input.validateOutput);
  const notes =
    warnings.length === 0
      ? ''
      : `\n\n<details><summary>llmgw validate: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}</summary>\n\n${fenced(warnings.join('\n'))}\n\n</details>`;
  return `${MARKER}\n${input.plan.markdown.replace(/\n+$/, '')}${notes}\n`;
}

/** What a cut leaves open: a code fence, <details> blocks; the lines that close them. */
function closersOf(text: string): string[] {
  let fence: string | null = null;
  let details = 0;
  for (const line of text.split('\n')) {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1] ?? '';
      else if (line.startsWith(fence) && line.slice(fence.length).trim() === '') fence = null;
      continue;
    }
    if (fence !== null) continue;
    details += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  return [...(fence === null ? [] : [fence]), ...Array.from({ length: Math.max(0, details) }, () => '</details>')];
}

/**
 * The body cut to at most `max` characters at a line end, with any code fence
 * or <details> the cut leaves open closed again, and a note that says so: a
 * cut comment must still render, and must not pass for the whole plan.
 */
export function fitComment(body: string, note: string, max = MAX_COMMENT): string {
  if (body.length <= max) return body;
  const tail = `\n\n> **Cut here:** ${note}\n`;
  let end = Math.max(0, max - tail.length);
  for (;;) {
    end = body.lastIndexOf('\n', end - 1);
    if (end <= 0) return tail.trimStart().slice(0, max);
    const cut = body.slice(0, end);
    const closers = closersOf(cut);
    const text = `${cut}${closers.map((c) => `\n${c}`).join('')}${tail}`;
    if (text.length <= max) return text;
  }
}
