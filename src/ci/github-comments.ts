// The three GitHub REST calls the plan comment needs: list a pull request's
// comments (every page), create one, update one. Node's fetch, the workflow's
// token in the Authorization header and nowhere else: not in a message, not in
// a URL, and never sent to a host other than the API's own (a `next` link
// elsewhere is refused).

import { LlmgwError } from '../errors.js';

export class GitHubError extends LlmgwError {}

export interface GitHubTarget {
  /** e.g. https://api.github.com (GITHUB_API_URL; GitHub Enterprise has its own). */
  api: string;
  /** owner/name */
  repository: string;
  token: string;
  /** Per request. */
  timeoutMs?: number;
}

export interface IssueComment {
  id: number;
  body: string;
  html_url?: string;
  user: { login: string; type: string } | null;
}

const PAGE = 100;
/** A pull request with more comments than this is not worth another request. */
const MAX_PAGES = 50;

function headers(t: GitHubTarget): Record<string, string> {
  return {
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${t.token}`,
    'x-github-api-version': '2022-11-28',
    'user-agent': 'llmgw-pr-comment',
  };
}

async function call(t: GitHubTarget, method: string, url: string, body?: unknown): Promise<{ json: unknown; next: string | null }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { ...headers(t), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(t.timeoutMs ?? 30_000),
    });
  } catch (err) {
    throw new GitHubError(`${method} ${new URL(url).pathname}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let why = '';
    try {
      // GitHub's reply is untrusted: whatever `message` holds is shown as String() renders it.
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- untrusted JSON value, String() is the intended rendering
      why = String((JSON.parse(text) as { message?: unknown }).message ?? '');
    } catch {
      why = '';
    }
    // GitHub's own words, one line of them, no control characters.
    why = why.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 200);
    throw new GitHubError(`${method} ${new URL(url).pathname}: HTTP ${res.status}${why ? ` (${why})` : ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GitHubError(`${method} ${new URL(url).pathname}: the reply is not JSON`);
  }
  return { json, next: nextLink(res.headers.get('link')) };
}

/** The rel="next" URL of a Link header, if any. */
export function nextLink(link: string | null): string | null {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1] !== undefined) return m[1];
  }
  return null;
}

function base(t: GitHubTarget): string {
  return `${t.api.replace(/\/+$/, '')}/repos/${t.repository}`;
}

function isComment(v: unknown): v is IssueComment {
  const c = v as Partial<IssueComment> | null;
  return typeof c === 'object' && c !== null && Number.isSafeInteger(c.id) && typeof c.body === 'string';
}

export async function listComments(t: GitHubTarget, pr: number): Promise<IssueComment[]> {
  const origin = new URL(t.api).origin;
  const out: IssueComment[] = [];
  let url: string | null = `${base(t)}/issues/${pr}/comments?per_page=${PAGE}`;
  for (let page = 0; url !== null; page++) {
    if (page === MAX_PAGES) throw new GitHubError(`more than ${MAX_PAGES * PAGE} comments on #${pr}: not looking further`);
    if (new URL(url).origin !== origin)
      throw new GitHubError(`the next page of comments is on another host (${new URL(url).host}); not sending the token there`);
    const { json, next } = await call(t, 'GET', url);
    if (!Array.isArray(json)) throw new GitHubError(`GET ${new URL(url).pathname}: expected a list of comments`);
    out.push(...json.filter(isComment));
    url = next;
  }
  return out;
}

export async function createComment(t: GitHubTarget, pr: number, body: string): Promise<IssueComment> {
  const { json } = await call(t, 'POST', `${base(t)}/issues/${pr}/comments`, { body });
  if (!isComment(json)) throw new GitHubError('POST comment: the reply is not a comment');
  return json;
}

export async function updateComment(t: GitHubTarget, id: number, body: string): Promise<IssueComment> {
  const { json } = await call(t, 'PATCH', `${base(t)}/issues/comments/${id}`, { body });
  if (!isComment(json)) throw new GitHubError('PATCH comment: the reply is not a comment');
  return json;
}
