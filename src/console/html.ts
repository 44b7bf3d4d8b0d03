// Building HTML as strings, safely: every value goes through esc() unless it
// is already Html (built here). Text from nodes (GPU names, replica ids,
// errors, warnings) is hostile: it must never become markup.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
// C0/C1 controls and bidi overrides read as nothing or reorder text: dropped, as in a terminal.
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Markup built by this module: safe to put into a page as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Part = Html | string | number | null | undefined | false | readonly Part[];

/** Text for an element or a quoted attribute. */
export function esc(text: string | number): string {
  return String(text)
    .replace(INVISIBLE, '')
    .replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function part(p: Part): string {
  if (p === null || p === undefined || p === false) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return (p as readonly Part[]).map(part).join('');
  return esc(p as string | number);
}

/** A template whose interpolations are escaped unless they are Html. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  // A tagged template has one more string than values: value i sits between strings i and i + 1.
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += part(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

export function join(parts: readonly Part[], sep = ''): Html {
  return new Html(parts.map(part).join(sep));
}

/** A path of the console for a node or model name: percent-encoded, so no name can leave its segment. */
export function pathOf(kind: 'nodes' | 'models' | 'ticks', name: string): string {
  return `/${kind}/${encodeURIComponent(name)}`;
}

export function link(href: string, text: Part, cls?: string): Html {
  return html`<a href="${href}"${cls ? new Html(` class="${esc(cls)}"`) : ''}>${text}</a>`;
}
