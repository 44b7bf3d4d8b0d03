// Checking a `router endpoints` table before it replaces the live one. Both the
// CLI client and the admin socket run this, so a bad table is refused with a
// reason and the table in service is never half replaced.

import type { RouterEndpoints } from '../types/snapshot.js';

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

// TODO(schemas): validate against schemas/router-endpoints.schema.json with
// getValidator once src/util/schema.ts lands; the URL check below stays, since a
// schema cannot say "an http(s) URL this router can connect to".
export function checkEndpoints(value: unknown): EndpointsResult {
  const errors: string[] = [];
  if (!isObject(value)) return { ok: false, errors: ['the table must be a JSON object'] };
  for (const key of Object.keys(value)) {
    if (key !== 'version' && key !== 'models') errors.push(`${key}: unknown key`);
  }
  if (value.version !== 1) errors.push('version: must be 1');
  if (!isObject(value.models)) {
    errors.push('models: must be an object of model name -> replicas');
    return { ok: false, errors };
  }
  for (const [model, list] of Object.entries(value.models)) {
    if (!Array.isArray(list)) {
      errors.push(`models.${model}: must be an array`);
      continue;
    }
    list.forEach((entry: unknown, i) => errors.push(...checkEntry(entry, `models.${model}[${i}]`)));
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: value as unknown as RouterEndpoints };
}

function checkEntry(entry: unknown, at: string): string[] {
  if (!isObject(entry)) return [`${at}: must be an object with replica and url`];
  const errors: string[] = [];
  for (const key of Object.keys(entry)) {
    if (key !== 'replica' && key !== 'url') errors.push(`${at}.${key}: unknown key`);
  }
  if (typeof entry.replica !== 'string' || entry.replica === '') errors.push(`${at}.replica: must be a non-empty string`);
  if (typeof entry.url !== 'string' || !isHttpUrl(entry.url)) errors.push(`${at}.url: must be an http:// or https:// URL`);
  return errors;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
