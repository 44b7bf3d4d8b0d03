// Posts the plan of a pull request as ONE comment, updated in place on every
// push: what the GitHub Action (action.yml) runs after `llmgw validate` and
// `llmgw plan --base`. The comment is found again by its hidden marker among
// the comments a bot wrote.
//
//   node dist/src/ci/pr-comment.js --validate-output FILE --validate-exit N
//        [--plan FILE --plan-errors FILE --plan-exit N] [--pr N] [--base REF]
//
// Environment: GITHUB_TOKEN (pull-requests: write), GITHUB_REPOSITORY,
// GITHUB_API_URL (default https://api.github.com), GITHUB_EVENT_PATH (the
// pull request's number when --pr is not given), GITHUB_SERVER_URL and
// GITHUB_RUN_ID (a link to the run). Exit 0 once the comment is posted, 1 when
// it could not be (one line on stderr; the token never appears).

import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LlmgwError, UsageError } from '../errors.js';
import { MARKER, commentBody, fitComment, type CommentInput } from './comment-body.js';
import { createComment, listComments, updateComment, type GitHubTarget, type IssueComment } from './github-comments.js';
import { errnoCode } from '../util/errno.js';

export interface CommentIo {
  env: Record<string, string | undefined>;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** Ours: a bot's comment that starts with the marker. A person quoting the marker is left alone. */
export function findOurs(comments: IssueComment[]): IssueComment | undefined {
  return comments.find((c) => c.user?.type === 'Bot' && c.body.startsWith(MARKER));
}

async function prNumber(given: string | undefined, env: CommentIo['env']): Promise<number> {
  let text = given;
  if (text === undefined && env.GITHUB_EVENT_PATH) {
    const event = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8')) as { pull_request?: { number?: unknown }; number?: unknown };
    // The event file is untrusted: whatever the number holds is read as text, then checked below.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- untrusted JSON value, checked as a number right after
    text = String(event.pull_request?.number ?? event.number ?? '');
  }
  const n = Number(text);
  if (!text || !Number.isSafeInteger(n) || n <= 0) throw new UsageError('no pull request number: give --pr N, or run on a pull_request event');
  return n;
}

function target(env: CommentIo['env']): GitHubTarget {
  const token = env.GITHUB_TOKEN;
  if (!token) throw new UsageError('GITHUB_TOKEN is not set');
  const repository = env.GITHUB_REPOSITORY ?? '';
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) throw new UsageError(`GITHUB_REPOSITORY must be owner/name, got '${repository}'`);
  const api = env.GITHUB_API_URL || 'https://api.github.com';
  if (!/^https?:\/\//.test(api)) throw new UsageError(`GITHUB_API_URL must be an http(s) URL, got '${api}'`);
  return { api, repository, token };
}

const readOr = (file: string | undefined) => (file === undefined ? Promise.resolve('') : readFile(file, 'utf8').catch(() => ''));

function exitOf(text: string | undefined, flag: string): number {
  const n = Number(text);
  if (text === undefined || text === '' || !Number.isInteger(n)) throw new UsageError(`${flag} must be an exit status, got '${text ?? ''}'`);
  return n;
}

export async function prComment(argv: string[], io: CommentIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'validate-output': { type: 'string' },
      'validate-exit': { type: 'string' },
      plan: { type: 'string' },
      'plan-errors': { type: 'string' },
      'plan-exit': { type: 'string' },
      pr: { type: 'string' },
      base: { type: 'string' },
    },
    strict: true,
  });
  const input: CommentInput = {
    validateOutput: await readOr(values['validate-output']),
    validateExit: exitOf(values['validate-exit'], '--validate-exit'),
  };
  if (values['plan-exit'] !== undefined) {
    input.plan = { markdown: await readOr(values.plan), errors: await readOr(values['plan-errors']), exit: exitOf(values['plan-exit'], '--plan-exit') };
  }
  if (io.env.GITHUB_SERVER_URL && io.env.GITHUB_RUN_ID && io.env.GITHUB_REPOSITORY) {
    input.runUrl = `${io.env.GITHUB_SERVER_URL}/${io.env.GITHUB_REPOSITORY}/actions/runs/${io.env.GITHUB_RUN_ID}`;
  }
  const t = target(io.env);
  const pr = await prNumber(values.pr, io.env);
  const base = values.base ? ` --base ${values.base}` : '';
  const body = fitComment(
    commentBody(input),
    `the plan is longer than one comment may be; run \`llmgw plan${base}\` for all of it${input.runUrl ? `, or see [the workflow run](${input.runUrl})` : ''}.`,
  );

  const ours = findOurs(await listComments(t, pr));
  const posted = ours ? await updateComment(t, ours.id, body) : await createComment(t, pr, body);
  io.stdout.write(`llmgw: ${ours ? 'updated' : 'posted'} the plan comment on ${t.repository}#${pr}${posted.html_url ? `: ${posted.html_url}` : ''}\n`);
  return 0;
}

async function main(): Promise<void> {
  const io: CommentIo = { env: process.env, stdout: process.stdout, stderr: process.stderr };
  try {
    process.exitCode = await prComment(process.argv.slice(2), io);
  } catch (err) {
    const known = err instanceof LlmgwError || errnoCode(err)?.startsWith('ERR_PARSE_ARGS_') === true;
    io.stderr.write(`llmgw pr-comment: ${known ? '' : 'internal error: '}${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await main();
