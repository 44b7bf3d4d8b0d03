// A status report with nothing in it, for tests that build the one section
// they hold by hand (the other renderers' tests build theirs from a fleet).

import type { StatusReport } from '../../src/status/types.js';

export function blankReport(over: Partial<StatusReport> = {}): StatusReport {
  return {
    version: 1,
    cluster: 'c',
    observedAt: '2026-11-29T08:00:00Z',
    capacity: [],
    fabrics: [],
    holdings: [],
    models: [],
    replicas: [],
    unplaceable: [],
    blocked: null,
    idle: [],
    nodes: { unreachable: [], lost: [], cordoned: [] },
    notify: { webhooks: 1, warning: null },
    unhealthyGpus: [],
    duplicates: [],
    attention: [],
    endpointWarnings: [],
    ...over,
  };
}

/** The lines of one `## ` section of a rendered STATUS.md, heading included, up to the next heading. */
export function section(out: string, heading: string): string[] {
  const lines = out.split('\n');
  const at = lines.indexOf(`## ${heading}`);
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  return lines.slice(at, end < 0 ? lines.length : end);
}

export const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The lines of a fold in STATUS.md: `<details>` summarised as `summary`, `inside` between blank lines (indented with `indent` inside a list entry). */
export function fold(summary: string, inside: string[], indent = ''): string[] {
  return [`${indent}<details><summary>${summary}</summary>`, '', ...inside, '', `${indent}</details>`];
}
