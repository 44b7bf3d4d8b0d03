// What each path of the console answers (docs/status.md). Pure apart from
// asking the source and the history: the server around it does HTTP.

import { renderStatusJson } from '../views/status/index.js';
import { formatProblem } from '../errors.js';
import type { History } from './history.js';
import type { ConsoleLedger } from './ledger.js';
import { gpuHoursBody } from './pages/gpu-hours.js';
import { html, join, type Html } from './html.js';
import { page, when, type PageFrame, type Section } from './pages/layout.js';
import { modelBody, modelsBody } from './pages/models.js';
import { nodeBody, nodesBody } from './pages/nodes.js';
import { overviewBody } from './pages/overview.js';
import { tickBody, ticksBody } from './pages/ticks.js';
import type { Loaded } from './source.js';

export interface Reply {
  status: number;
  type: 'html' | 'json';
  body: string;
}

export interface RouteContext {
  loaded: Loaded;
  /** The version the page carries: the data's, and HEAD's. */
  version: string;
  history: History;
  /** GPU-hours from the same history (src/console/ledger.ts). */
  ledger: ConsoleLedger;
  /** The time the open day is counted to. */
  now: () => Date;
  refreshMs: number;
  displayDir: string;
}

const TICKS_SHOWN = 30;

function frameOf(ctx: RouteContext, section: Section, title: string, subtitle: Html | string): PageFrame {
  const d = ctx.loaded.data;
  const cluster = d.kind === 'invalid' ? ctx.displayDir : d.config.cluster.name;
  return { title, cluster, section, version: ctx.version, refreshMs: ctx.refreshMs, subtitle };
}

async function subtitle(ctx: RouteContext): Promise<Html> {
  const d = ctx.loaded.data;
  const observed = d.kind === 'fleet' ? html`Observed ${when(d.report.observedAt)}` : html`Not observed yet`;
  const commits = await ctx.history.recent(TICKS_SHOWN);
  const tick = commits.find((c) => c.tick);
  const last = tick ? html` · last tick ${when(tick.time)}: <a href="/ticks/${tick.sha}">${tick.subject}</a>` : '';
  const head = commits[0] ? html` · HEAD <code>${commits[0].sha.slice(0, 12)}</code>` : '';
  return html`${observed}${head}${last}`;
}

function htmlReply(status: number, body: string): Reply {
  return { status, type: 'html', body };
}

function notFound(ctx: RouteContext, what: string): Reply {
  return htmlReply(404, page(frameOf(ctx, 'none', 'Not found', ''), html`<p>${what}</p><p><a href="/">Back to the Overview</a></p>`));
}

/** The page for a checkout whose fleet cannot be shown: why, and what STATUS.md still says. */
function problemBody(ctx: RouteContext): Html {
  const d = ctx.loaded.data;
  if (d.kind === 'invalid') {
    const lines = d.problems.map((p) => formatProblem(p));
    const last = d.statusMd === null ? '' : html`<h2>The last fleet summary (STATUS.md)</h2><pre>${d.statusMd}</pre>`;
    return html`<section class="warning" id="config-invalid"><h2>The config is invalid</h2><p>Nothing is being applied until it is fixed.</p><pre><code>${join(lines, '\n')}</code></pre></section>${last}`;
  }
  if (d.kind === 'unobserved') return html`<section class="warning" id="unobserved"><h2>No fleet to show yet</h2><p>${d.why}</p></section>`;
  return html``;
}

/** `segments` are the decoded path segments. */
export async function route(segments: string[], ctx: RouteContext): Promise<Reply> {
  const d = ctx.loaded.data;
  const [first, second, ...more] = segments;
  if (more.length > 0) return notFound(ctx, 'No such page.');
  if (first === 'status.json' && second === undefined) {
    if (d.kind !== 'fleet')
      return { status: 503, type: 'json', body: JSON.stringify({ error: d.kind === 'invalid' ? 'the config is invalid' : d.why }) + '\n' };
    return { status: 200, type: 'json', body: renderStatusJson(d.report) };
  }
  if (first === 'ticks') {
    if (second === undefined) {
      const body = ticksBody(await ctx.history.recent(TICKS_SHOWN), ctx.history.available);
      return htmlReply(200, page(frameOf(ctx, 'ticks', 'Ticks and plans', await subtitle(ctx)), body));
    }
    const detail = await ctx.history.detail(second);
    if (detail === null) return notFound(ctx, `No commit ${second} in this config repo's history.`);
    return htmlReply(200, page(frameOf(ctx, 'ticks', `Commit ${detail.commit.sha.slice(0, 12)}`, detail.commit.subject), tickBody(detail)));
  }
  if (first === 'gpu-hours' && second === undefined) {
    // From the history alone: shown also while the config is invalid (the commits before it still count).
    const { days, warnings } = await ctx.ledger.days(ctx.now().toISOString());
    return htmlReply(200, page(frameOf(ctx, 'gpu-hours', 'GPU-hours', await subtitle(ctx)), gpuHoursBody(days, ctx.ledger.available, warnings)));
  }
  const known = first === undefined || first === 'models' || first === 'nodes';
  if (!known || (first === undefined && second !== undefined)) return notFound(ctx, 'No such page.');
  const section: Section = first === undefined ? 'overview' : first;
  if (d.kind !== 'fleet') return htmlReply(200, page(frameOf(ctx, section, 'Overview', await subtitle(ctx)), problemBody(ctx)));
  if (first === undefined) return htmlReply(200, page(frameOf(ctx, 'overview', 'Overview', await subtitle(ctx)), overviewBody(d.report)));
  if (first === 'models') {
    if (second === undefined) return htmlReply(200, page(frameOf(ctx, 'models', 'Models', await subtitle(ctx)), modelsBody(d.report, d.config)));
    const body = modelBody(second, d.report, d.fleet);
    return body === null
      ? notFound(ctx, `No model ${second} in models.yaml or on any node.`)
      : htmlReply(200, page(frameOf(ctx, 'models', `Model ${second}`, await subtitle(ctx)), body));
  }
  if (second === undefined) return htmlReply(200, page(frameOf(ctx, 'nodes', 'Nodes', await subtitle(ctx)), nodesBody(d.fleet)));
  const body = nodeBody(second, d.fleet, d.report);
  return body === null
    ? notFound(ctx, `No node ${second} in cluster.yaml.`)
    : htmlReply(200, page(frameOf(ctx, 'nodes', `Node ${second}`, await subtitle(ctx)), body));
}
