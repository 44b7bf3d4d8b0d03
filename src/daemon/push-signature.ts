// Is this push webhook from the forge we share a secret with
// (docs/operations.md#push-webhook)? Each forge signs differently:
//   GitHub  X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>
//   Gitea   X-Gitea-Signature:   <hex HMAC-SHA256 of the raw body>
//   GitLab  X-Gitlab-Token:      the secret itself
// Every compare is timing-safe: digests of equal length through timingSafeEqual,
// so neither a wrong signature nor a wrong token's length leaks by the time taken.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type PushProvider = 'github' | 'gitea' | 'gitlab';

export type PushVerdict = { ok: true; provider: PushProvider } | { ok: false; reason: string };

type Headers = Record<string, string | string[] | undefined>;

/** One header's value; a header sent twice is not a signature (which one would it be?). */
function header(headers: Headers, name: string): string | undefined | null {
  const v = headers[name];
  return Array.isArray(v) ? null : v;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A hex HMAC as sent against the body's: decoded first, so case does not matter and junk never matches. */
function hmacMatches(sentHex: string, body: Buffer, secret: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(sentHex)) return false;
  return sameBytes(Buffer.from(sentHex, 'hex'), createHmac('sha256', secret).update(body).digest());
}

/** A token compared as digests of equal length: its length leaks nothing. */
function tokenMatches(sent: string, secret: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return sameBytes(digest(sent), digest(secret));
}

/**
 * The forge that signed this request with `secret`, or why it is refused.
 * Headers by their lower-case names (as node:http gives them). A request
 * carrying one forge's header is judged by that header alone.
 */
export function verifyPush(headers: Headers, body: Buffer, secret: string): PushVerdict {
  const github = header(headers, 'x-hub-signature-256');
  const gitea = header(headers, 'x-gitea-signature');
  const gitlab = header(headers, 'x-gitlab-token');
  if (github === null || gitea === null || gitlab === null) return { ok: false, reason: 'a signature header sent twice' };
  if (github !== undefined) {
    const ok = github.startsWith('sha256=') && hmacMatches(github.slice('sha256='.length), body, secret);
    return ok ? { ok: true, provider: 'github' } : { ok: false, reason: 'X-Hub-Signature-256 does not match' };
  }
  if (gitea !== undefined) {
    return hmacMatches(gitea, body, secret) ? { ok: true, provider: 'gitea' } : { ok: false, reason: 'X-Gitea-Signature does not match' };
  }
  if (gitlab !== undefined) {
    return tokenMatches(gitlab, secret) ? { ok: true, provider: 'gitlab' } : { ok: false, reason: 'X-Gitlab-Token does not match' };
  }
  return { ok: false, reason: 'unsigned (no X-Hub-Signature-256, X-Gitea-Signature or X-Gitlab-Token)' };
}
