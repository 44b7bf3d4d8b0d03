// The last ticks and plans, from git history: llmgw's commits with their
// messages (which name what happened), people's config changes between them,
// and for each commit what changed — replicas started, stopped or changed
// state, and the STATUS.md diff. A change to cluster.yaml is named, never
// shown: a literal hook URL someone committed must not reach this page.

import type { Commit, CommitDetail } from '../history.js';
import { html, join, link, pathOf, type Html } from '../html.js';
import { table, when, type TableRow } from './layout.js';

function kind(c: Commit): string {
  return c.tick ? 'tick' : 'change';
}

export function ticksBody(commits: Commit[], available: boolean): Html {
  if (!available)
    return html`<p>This directory is not a git checkout, so there is no history to show. Run the console in the reconciler's checkout, or in any clone of the config repo.</p>`;
  if (commits.length === 0) return html`<p>No commit yet.</p>`;
  const rows: TableRow[] = commits.map((c) => ({
    key: c.sha,
    cells: [
      link(pathOf('ticks', c.sha), html`<code>${c.sha.slice(0, 12)}</code>`),
      when(c.time),
      kind(c),
      c.subject,
      // Every commit's author, ticks too: a commit whose name is "llmgw" and email a person's reads as that person's here.
      c.author,
    ],
  }));
  return html`<p>The last ${commits.length} commits of the config repo, newest first: llmgw's ticks, and the changes people merged between them.</p>${table(null, ['Commit', 'Time', 'Kind', 'Message', 'Author'], rows)}`;
}

function diffBlock(diff: string): Html {
  const lines = diff.split('\n').map((l) => {
    const cls = l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : l.startsWith('@@') ? 'hunk' : '';
    return cls ? html`<span class="${cls}">${l}</span>` : html`${l}`;
  });
  return html`<pre class="diff"><code>${join(lines, '\n')}</code></pre>`;
}

export function tickBody(d: CommitDetail): Html {
  const c = d.commit;
  const facts = html`<dl class="facts"><dt>Commit</dt><dd><code>${c.sha}</code></dd><dt>Time</dt><dd>${when(c.time)}</dd><dt>By</dt><dd>${c.author}</dd><dt>Message</dt><dd>${c.subject}</dd><dt>Files</dt><dd>${c.files.join(', ') || '—'}</dd></dl>`;
  let replicas: Html;
  if (d.replicas === null) replicas = html`<p>No snapshot in this commit or its parent.</p>`;
  else if (d.replicas.length === 0) replicas = html`<p>No replica started, stopped or changed state.</p>`;
  else {
    const rows: TableRow[] = d.replicas.map((r) => ({
      key: r.id,
      attention: r.to === 'failed',
      cells: [
        r.from === null ? 'started' : r.to === null ? 'stopped' : 'changed',
        r.id,
        link(pathOf('models', r.model), r.model),
        join(
          r.nodes.map((n) => link(pathOf('nodes', n), n)),
          ', ',
        ),
        `${r.from ?? '—'} → ${r.to ?? 'gone'}`,
      ],
    }));
    replicas = table(null, ['What', 'Replica', 'Model', 'Nodes', 'State'], rows);
  }
  const status = d.statusDiff === null ? html`<p>STATUS.md did not change.</p>` : diffBlock(d.statusDiff);
  const config = c.files.some((f) => f === 'cluster.yaml' || f === 'models.yaml')
    ? html`<p>This commit changed ${c.files.filter((f) => f.endsWith('.yaml')).join(' and ')}: <code>git show ${c.sha.slice(0, 12)}</code> shows how.</p>`
    : '';
  return html`${facts}${config}<section id="plan"><h2>What changed in the fleet</h2>${replicas}</section><section id="status-diff"><h2>STATUS.md</h2>${status}</section>`;
}
