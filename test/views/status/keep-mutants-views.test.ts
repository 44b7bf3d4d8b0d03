// What the status views draw from a report set by hand (docs/status.md): the
// survive: warnings at the top of STATUS.md and of `llmgw status`, the rows of
// "Where replicas run" (who counts, in which order, with or without a survive
// report), a node name that would break its code span, and sizes as people read
// them (formatBytes, shared with the config's and the store's messages).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderStatusMarkdown } from '../../../src/views/status/render-markdown.js';
import { renderStatusText } from '../../../src/views/status/render-text.js';
import { placementRows } from '../../../src/views/status/placement-rows.js';
import { formatBytes } from '../../../src/text/format.js';
import type { ReplicaRow } from '../../../src/status/types.js';
import { blankReport, section } from '../../status/blank-report.js';

const row = (id: string, model: string, nodes: string[], state: ReplicaRow['state'] = 'running'): ReplicaRow => ({
  id,
  model,
  nodes,
  state,
  idleSeconds: -1,
  idleSince: null,
  error: null,
});

test('STATUS.md: each survive: warning is its own quoted line under the title, in order; none without surviveWarnings', () => {
  const md = renderStatusMarkdown(blankReport({ surviveWarnings: ['model a breaks survive: node', 'model b breaks survive: fabric'] }));
  const lines = md.split('\n');
  const at = lines.indexOf('> **Warning:** model a breaks survive: node.');
  assert.ok(at > 0, md);
  assert.equal(lines.slice(at, at + 4), ['> **Warning:** model a breaks survive: node.', '', '> **Warning:** model b breaks survive: fabric.', '']);
  assert.not.match(renderStatusMarkdown(blankReport()), /Warning/);
  assert.not.match(renderStatusMarkdown(blankReport({ surviveWarnings: [] })), /Warning/);
});

test('llmgw status: each survive: warning is a `warning:` line followed by a blank line; none without surviveWarnings', () => {
  const text = renderStatusText(blankReport({ surviveWarnings: ['model a breaks survive: node', 'model b breaks survive: fabric'] }), { color: false });
  const lines = text.split('\n');
  const at = lines.indexOf('warning: model a breaks survive: node');
  assert.ok(at > 0, text);
  assert.equal(lines.slice(at, at + 4), ['warning: model a breaks survive: node', '', 'warning: model b breaks survive: fabric', '']);
  assert.not.match(renderStatusText(blankReport(), { color: false }), /warning/);
  // In colour the warning is yellow (33), like the webhook warning.
  const coloured = renderStatusText(blankReport({ surviveWarnings: ['model a breaks survive: node'] }), { color: true });
  assert.ok(coloured.includes('\x1b[33mwarning: model a breaks survive: node\x1b[0m\n\n'), JSON.stringify(coloured));
});

test('placementRows: draining and failed replicas are not counted; models by name whatever the replicas’ order; no survive report means no loss and no attention', () => {
  const report = blankReport({
    replicas: [
      row('zeta-0', 'zeta', ['n3']),
      row('alpha-0', 'alpha', ['n2']),
      row('alpha-1', 'alpha', ['n1']),
      row('alpha-2', 'alpha', ['n9'], 'draining'),
      row('alpha-3', 'alpha', ['n8'], 'failed'),
      row('mid-0', 'mid', ['n1']),
      row('mid-1', 'mid', ['n1']),
      row('gone-0', 'gone', ['n7'], 'draining'),
    ],
  });
  assert.equal(placementRows(report), [
    { model: 'alpha', replicas: 2, nodes: ['n1', 'n2'], node: null, fabric: null, attention: false },
    { model: 'mid', replicas: 2, nodes: ['n1'], node: null, fabric: null, attention: false },
    { model: 'zeta', replicas: 1, nodes: ['n3'], node: null, fabric: null, attention: false },
  ]);
});

test('STATUS.md: a backtick or a pipe in a node name is dropped from its code span, so the span and the table row stay whole', () => {
  const md = renderStatusMarkdown(blankReport({ replicas: [row('m-0', 'm', ['a`b|c'])] }));
  const lines = section(md, 'Where replicas run');
  assert.ok(lines.includes('| m | 1 | `abc` | — | — |'), lines.join('\n'));
});

test('STATUS.md: past 20 placement rows, the doubled-up model shows and the other 21 fold as "21 more models"', () => {
  const replicas = [row('m00-0', 'm00', ['n1']), row('m00-1', 'm00', ['n1'])];
  for (let i = 1; i <= 21; i++) replicas.push(row(`m${String(i).padStart(2, '0')}-0`, `m${String(i).padStart(2, '0')}`, [`n${i}`]));
  const lost = { from: 2, to: 0, worst: 'n1', roomToReplace: true };
  const md = renderStatusMarkdown(blankReport({ replicas, survive: { node: { worst: 'n1', models: { m00: lost } }, fabric: { worst: null, models: {} } } }));
  const lines = section(md, 'Where replicas run');
  assert.ok(lines.includes('| m00 | 2 | `n1` | losing n1 leaves 0 of 2 | — |'), lines.join('\n'));
  assert.ok(lines.includes('<details><summary>21 more models</summary>'), lines.join('\n'));
});

test('formatBytes: whole MiB as MiB (1 MiB exactly included), everything else as grouped bytes (0, 1 MiB ± 1, 1.5 MiB)', () => {
  assert.is(formatBytes(1024 * 1024), '1 MiB');
  assert.is(formatBytes(4 * 1024 * 1024), '4 MiB');
  assert.is(formatBytes(1024 * 1024 - 1), '1,048,575 bytes');
  assert.is(formatBytes(1024 * 1024 + 1), '1,048,577 bytes');
  assert.is(formatBytes(1.5 * 1024 * 1024), '1,572,864 bytes');
  assert.is(formatBytes(0), '0 bytes');
  assert.is(formatBytes(512), '512 bytes');
});

test.run();
