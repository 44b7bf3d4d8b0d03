// The frame every console page shares, and the small pieces pages are made
// of: tables, folds, the attention list. No inline script or style anywhere
// (the Content-Security-Policy forbids both): behaviour is /console.js,
// looks are /console.css, bars are SVG shapes with classes.

import { Html, html, join, link, pathOf, type Part } from '../html.js';
import type { AttentionItem, AttentionSubject } from '../../status/index.js';

export type Section = 'overview' | 'models' | 'nodes' | 'gpu-hours' | 'ticks' | 'none';

export interface PageFrame {
  title: string;
  cluster: string;
  section: Section;
  /** The data version the page shows; /console.js reloads when it changes. */
  version: string;
  /** How often /console.js asks whether the data changed. */
  refreshMs: number;
  /** One line under the header: when the fleet was observed, and the commit. */
  subtitle: Part;
}

const NAV: [Section, string, string][] = [
  ['overview', '/', 'Overview'],
  ['models', '/models', 'Models'],
  ['nodes', '/nodes', 'Nodes'],
  ['gpu-hours', '/gpu-hours', 'GPU-hours'],
  ['ticks', '/ticks', 'Ticks'],
];

export function page(frame: PageFrame, body: Part): string {
  const nav = NAV.map(([s, href, label]) => (s === frame.section ? html`<a href="${href}" aria-current="page">${label}</a>` : link(href, label)));
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${frame.title} · ${frame.cluster} · llmgw</title>
<link rel="stylesheet" href="/console.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script src="/console.js" defer></script>
</head>
<body data-version="${frame.version}" data-refresh-ms="${frame.refreshMs}">
<a class="skip" href="#main">Skip to content</a>
<header>
<p class="brand"><a href="/">llmgw</a> <span class="cluster">${frame.cluster}</span></p>
<nav aria-label="Pages">${join(nav)}</nav>
<p class="live" id="live" role="status" aria-live="polite"></p>
</header>
<main id="main">
<h1>${frame.title}</h1>
<p class="subtitle">${frame.subtitle}</p>
${body}
</main>
<footer><p>Read-only. The same fleet model and report as STATUS.md and <code>llmgw status</code>. <a href="/status.json">Status JSON</a></p></footer>
</body>
</html>
`.text;
}

export type Cell = Part | { value: Part; num?: boolean; cls?: string };

function cell(c: Cell, tag: 'td' | 'th'): Html {
  const t = new Html(tag);
  if (c !== null && typeof c === 'object' && !Array.isArray(c) && !(c instanceof Html)) {
    const { value, num, cls } = c as { value: Part; num?: boolean; cls?: string };
    const classes = [num ? 'num' : '', cls ?? ''].filter(Boolean).join(' ');
    return html`<${t}${tag === 'th' ? html` scope="col"` : ''}${classes ? html` class="${classes}"` : ''}>${value}</${t}>`;
  }
  return html`<${t}${tag === 'th' ? html` scope="col"` : ''}>${c as Part}</${t}>`;
}

export interface TableRow {
  cells: Cell[];
  attention?: boolean;
  /** `data-key` of the row: what it is about (a class, a model, a node), for tests and scripts. */
  key?: string;
}

/** A table in a scroll box (narrow screens scroll it sideways, not the page). */
export function table(caption: string | null, head: Cell[], rows: TableRow[]): Html {
  const body = rows.map(
    (r) =>
      html`<tr${r.key === undefined ? '' : html` data-key="${r.key}"`}${r.attention ? html` class="attention"` : ''}>${join(r.cells.map((c) => cell(c, 'td')))}</tr>`,
  );
  return html`<div class="scroll"><table>${caption ? html`<caption>${caption}</caption>` : ''}<thead><tr>${join(head.map((h) => cell(h, 'th')))}</tr></thead><tbody>${join(body)}</tbody></table></div>`;
}

/** Rows that need attention first; past `max` rows, the others fold into a <details>. */
export function foldedTable(head: Cell[], rows: TableRow[], max: number, folded: (n: number, after: boolean) => string): Html {
  const ordered = [...rows.filter((r) => r.attention), ...rows.filter((r) => !r.attention)];
  if (ordered.length <= max) return table(null, head, ordered);
  const shown = Math.min(max, rows.filter((r) => r.attention).length);
  const rest = ordered.slice(shown);
  return html`${shown > 0 ? table(null, head, ordered.slice(0, shown)) : ''}<details><summary>${folded(rest.length, shown > 0)}</summary>${table(null, head, rest)}</details>`;
}

function subjectPart(s: AttentionSubject): Html {
  const name = s.node !== undefined ? link(pathOf('nodes', s.node), s.name) : s.model !== undefined ? link(pathOf('models', s.model), s.name) : html`${s.name}`;
  return s.detail === null ? name : html`${name} <span class="detail">(${s.detail})</span>`;
}

/** One item of "Needs attention", drawn as STATUS.md draws it: the headline, then where, past `max` names folded. */
export function attentionItem(item: AttentionItem, max: number): Html {
  const names = item.subjects.map(subjectPart);
  const head = html`<span class="headline">${item.text}</span>`;
  if (names.length === 0) return html`<li class="${item.kind}">${head}</li>`;
  if (names.length <= max) return html`<li class="${item.kind}">${head}: ${join(names, ', ')}</li>`;
  const rest = names.slice(max);
  return html`<li class="${item.kind}">${head}: ${join(names.slice(0, max), ', ')}, and ${rest.length} more <details><summary>${rest.length} more</summary><p>${join(rest, ', ')}</p></details></li>`;
}

/** `2026-11-29 08:00:00 UTC` from an ISO time; the text itself when it is none. */
export function when(iso: string | null): string {
  if (iso === null) return 'unknown';
  const ms = Date.parse(iso);
  return Number.isNaN(ms)
    ? iso
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
