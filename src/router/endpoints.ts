// Checking a `router endpoints` table before it replaces the live one. Both the
// CLI client and the admin socket run this, so a bad table is refused with a
// reason and the table in service is never half replaced.

import type { RouterEndpoints } from '../types/snapshot.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';
import { isHttpUrl } from '../util/url.js';

export type EndpointsResult = { ok: true; value: RouterEndpoints } | { ok: false; errors: string[] };

/** Parse and check a table's JSON text. */
export function parseEndpoints(text: string): EndpointsResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [`not JSON: ${(err as Error).message}`] };
  }
  return checkEndpoints(value);
}

/**
 * The schema (schemas/router-endpoints.schema.json), then what a schema cannot
 * say: every url is an http(s) URL this router can connect to, and an adapter
 * name means one thing (neither a model's name nor another model's adapter).
 */
export function checkEndpoints(value: unknown): EndpointsResult {
  const schema = getValidator('router-endpoints')(value);
  if (!schema.ok) return { ok: false, errors: [formatSchemaIssues(schema.errors, 5)] };
  const table = value as RouterEndpoints;
  const errors: string[] = [];
  for (const [model, list] of Object.entries(table.models)) {
    list.forEach((e, i) => {
      if (!isHttpUrl(e.url)) errors.push(`/models/${model}/${i}/url: must be an http:// or https:// URL, got '${e.url}'`);
      if (e.replica === '') errors.push(`/models/${model}/${i}/replica: must not be empty`);
    });
  }
  const owner = new Map<string, string>();
  for (const [model, settings] of Object.entries(table.settings ?? {})) {
    for (const name of settings.adapters ?? []) {
      if (Object.hasOwn(table.models, name)) errors.push(`/settings/${model}/adapters: '${name}' is also a model's name`);
      else if (owner.has(name)) errors.push(`/settings/${model}/adapters: '${name}' is also an adapter of '${owner.get(name) ?? ''}'`);
      else owner.set(name, model);
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: table };
}
