// Models: every model with its counts, and a page per model — what
// models.yaml asks for, each replica with where it runs and why it failed,
// where its weights are, and why it cannot be placed when it cannot.

import { compressHostlist } from '../../text/compress-hostlist.js';
import type { StatusReport } from '../../status/index.js';
import { duration } from '../../text/format.js';
import type { Config } from '../../types/config.js';
import type { Fleet } from '../../types/fleet.js';
import { html, join, link, pathOf, type Html } from '../html.js';
import { plural, table, when, type TableRow } from './layout.js';
import { MODEL_HEAD, modelRows } from './overview.js';
import { lossText, nodesText, placementRows } from '../../views/status/placement-rows.js';
import { stuckState } from './stuck.js';

export function modelsBody(report: StatusReport, config: Config): Html {
  const byName = new Map(config.models.map((m) => [m.name, m]));
  const rows = modelRows(report).map((r) => {
    const m = r.key === undefined ? undefined : byName.get(r.key);
    const shape = m ? `${m.nodes > 1 ? `${m.nodes} × ` : ''}${m.gpus} ${m.gpuClass ?? 'GPU'}` : 'not in models.yaml';
    return { ...r, cells: [...r.cells, shape, m?.engine ?? '—'] };
  });
  const ordered = [...rows.filter((r) => r.attention), ...rows.filter((r) => !r.attention)];
  return html`<p>${plural(report.models.length, 'model')}; those that need attention first.</p>${table(null, [...MODEL_HEAD, 'Per replica', 'Engine'], ordered)}`;
}

function facts(pairs: [string, string | Html][]): Html {
  return html`<dl class="facts">${join(pairs.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`))}</dl>`;
}

/** Whether it fits each GPU class it may use, where its replicas run, and what one node's or fabric's loss leaves (docs/placement.md). */
function fitAndSurvive(name: string, report: StatusReport): [string, string][] {
  const out: [string, string][] = [];
  const fit = report.fit?.[name];
  if (fit === null) out.push(['Fits', 'size unknown: set weightsBytes in models.yaml, or put the weights where a node looks']);
  else if (fit !== undefined && Object.keys(fit).length > 0) {
    const each = Object.entries(fit).map(([cls, f]) => {
      const kv = f.kvGiBPerGpu === null ? '' : ` + ${f.kvGiBPerGpu} GiB KV a sequence`;
      const verdict = !f.fits ? 'does not fit' : f.sequences === null ? 'fits' : `fits ${plural(f.sequences, 'full-length sequence')}`;
      return `${cls}: ${verdict} (${f.weightsGiBPerGpu} GiB of weights a GPU${kv}${f.maxModelLen === null ? '' : `; at most ${f.maxModelLen} tokens`})`;
    });
    out.push(['Fits', each.join('; ')]);
  }
  const row = placementRows(report).find((p) => p.model === name);
  if (row) out.push(['Runs on', nodesText(row.nodes)], ['Worst node loss', lossText(row.node)], ['Worst fabric loss', lossText(row.fabric)]);
  return out;
}

/** null when neither models.yaml nor any node knows the model: the page is a 404. */
export function modelBody(name: string, report: StatusReport, fleet: Fleet): Html | null {
  const counts = report.models.find((m) => m.name === name);
  const m = fleet.config.models.find((x) => x.name === name);
  if (!counts && !m) return null;
  const pairs: [string, string | Html][] = [
    ['Replicas', counts ? `${counts.desired} desired: ${counts.running} running, ${counts.starting} starting, ${counts.failed} failed` : '—'],
  ];
  if (m) {
    pairs.push(
      ['Weights', html`<code>${m.weights}</code>`],
      ['Engine', m.engine],
      [
        'Each replica',
        `${m.nodes > 1 ? `${m.nodes} whole nodes in one fabric, ` : ''}${plural(m.gpus, 'GPU')}${m.nodes > 1 ? ' each' : ''} of class ${m.gpuClass ?? 'any'}`,
      ],
      ['Priority', String(m.priority)],
      ['Args', m.args.length ? html`<code>${m.args.join(' ')}</code>` : '—'],
    );
  } else {
    pairs.push(['models.yaml', 'not listed: its replicas are being stopped']);
  }
  pairs.push(...fitAndSurvive(name, report));
  const unplaced = report.unplaceable.find((u) => u.model === name);
  const why = unplaced ? html`<section class="warning"><h2>Cannot be placed</h2><p>${unplaced.missing} missing: ${unplaced.reason}</p></section>` : '';

  const replicas = fleet.replicas.filter((r) => r.model === name);
  const rowOf = new Map(report.replicas.map((r) => [r.id, r]));
  const rows: TableRow[] = replicas.map((r) => {
    const row = rowOf.get(r.id);
    const stuck = r.lost ? null : stuckState(report, r.id);
    const state = r.lost ? 'lost (placed again)' : (stuck?.text ?? r.state);
    const idle = row === undefined || row.idleSeconds < 0 ? 'unknown' : `${duration(row.idleSeconds)} (since ${when(row.idleSince)})`;
    return {
      key: r.id,
      attention: r.lost || r.state === 'failed' || stuck !== null,
      cells: [
        r.id,
        state,
        join(
          r.ranks.map((k) => html`${link(pathOf('nodes', k.node), k.node)}:${compressHostlist(k.gpus.map(String))}`),
          ', ',
        ),
        { value: r.port ?? '—', num: true },
        when(r.startedAt),
        r.state === 'running' && !r.lost ? idle : '—',
        { value: row?.error ?? '', cls: 'error' },
      ],
    };
  });
  const replicaTable = rows.length
    ? table(
        null,
        ['Replica', 'State', 'Where (node:GPUs)', 'Port', 'Started', 'Unused for', 'Error'],
        [...rows.filter((r) => r.attention), ...rows.filter((r) => !r.attention)],
      )
    : html`<p>No replica.</p>`;

  const holds = report.holdings.filter((h) => h.model === name);
  const holdRows: TableRow[] = holds.map((h) => ({
    key: h.fabric,
    cells: [
      h.fabric,
      h.held ? 'yes' : 'no',
      h.shared.join(', ') || '—',
      h.localNodes.length
        ? join(
            h.localNodes.map((n) => link(pathOf('nodes', n), n)),
            ', ',
          )
        : '—',
    ],
  }));
  const holdTable = holds.length
    ? html`<section id="holdings"><h2>Weights by fabric</h2>${table(null, ['Fabric', 'Held', 'Shared filers', 'Local copies'], holdRows)}</section>`
    : '';
  return html`${facts(pairs)}${why}<section id="replicas"><h2>Replicas</h2>${replicaTable}</section>${holdTable}`;
}
