// cluster.yaml's `notify.webhooks` -> WebhookConfig[]. URL, secret and header
// values are secrets (a hook URL usually carries its token) and may come from
// `${VAR}`: no message here ever repeats one; a problem in a value from the
// environment names the variable instead.

import type { EventName, WebhookConfig } from '../types/config.js';
import { isHttpUrl } from '../util/url.js';
import { fromEnvNote } from './env-vars.js';
import { arr, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { problemAt, type PathSegment } from './yaml-source.js';

/**
 * Headers llmgw sets on every POST itself (docs/notifications.md), or that
 * HTTP owns: a config setting one would forge a signature or break framing.
 */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'host',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'x-llmgw-signature-256',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/** A header value may hold visible characters, spaces and tabs only: a CR or LF would start a header of its own. */
const BAD_HEADER_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function isUnset(ctx: ResolveContext, at: PathSegment[]): boolean {
  const key = JSON.stringify(at);
  return ctx.substituted.some((s) => !s.complete && JSON.stringify(s.path) === key);
}

function resolveHeaders(ctx: ResolveContext, raw: unknown, at: PathSegment[]): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(obj(raw))) {
    if (typeof value !== 'string') continue;
    const path = [...at, name];
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) {
      ctx.errors.push(problemAt(ctx.src, path, `header '${name}' is set by llmgw (or by HTTP) and cannot be configured`, 'key'));
      continue;
    }
    const twice = seen.get(lower);
    if (twice !== undefined) {
      ctx.errors.push(problemAt(ctx.src, path, `header '${name}' is already set as '${twice}' (header names ignore case)`, 'key'));
      continue;
    }
    seen.set(lower, name);
    if (BAD_HEADER_VALUE.test(value)) {
      ctx.errors.push(problemAt(ctx.src, path, `must not contain line breaks or control characters${fromEnvNote(ctx.substituted, path)}`));
      continue;
    }
    // An unset ${VAR} (a warning outside reconcile) leaves the header out rather than send half of it.
    if (isUnset(ctx, path)) continue;
    headers[name] = value;
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
}

export function resolveWebhooks(ctx: ResolveContext, raw: Raw): WebhookConfig[] {
  const notify = obj(raw.notify);
  const hooks = arr(notify.webhooks).map((item, j) => {
    const w = obj(item);
    const at: PathSegment[] = ['notify', 'webhooks', j];
    // '' when a ${VAR} in it is unset (reported where variables are): never half a URL.
    const hook: WebhookConfig = { url: isUnset(ctx, [...at, 'url']) ? '' : (str(w.url) ?? '') };
    const vars = ctx.substituted.find((s) => JSON.stringify(s.path) === JSON.stringify([...at, 'url']))?.vars;
    if (vars) hook.urlVars = vars.map((v) => `$${v.slice(2, -1)}`);
    if (hook.url !== '' && !isHttpUrl(hook.url)) {
      ctx.errors.push(problemAt(ctx.src, [...at, 'url'], `must be an http:// or https:// URL${fromEnvNote(ctx.substituted, [...at, 'url'])}`));
    }
    const secret = str(w.secret);
    // '' or part of it unset: an HMAC keyed with nothing, or with half a key, signs nothing.
    if (secret && !isUnset(ctx, [...at, 'secret'])) hook.secret = secret;
    const headers = resolveHeaders(ctx, w.headers, [...at, 'headers']);
    if (headers) hook.headers = headers;
    if (Array.isArray(w.events)) hook.events = w.events.filter((e): e is EventName => typeof e === 'string');
    return hook;
  });
  if (hooks.length === 0) {
    ctx.warnings.push(problemAt(ctx.src, ['notify', 'webhooks'], 'no webhooks: a lost node or a model going down notifies nobody'));
  }
  return hooks;
}
