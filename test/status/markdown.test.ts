import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { marked } from 'marked';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, golden } from '../helpers/golden.js';
import { summarize, withAttention } from '../../src/status/index.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { MAX_SUBJECTS } from '../../src/views/status/render-markdown.js';
import { md } from '../../src/text/markdown-escape.js';
import { sampleFleet } from './sample.js';
import { buildFleet } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, routerUp, snapshot, up } from '../fixtures/index.js';

// The class is the name cut at the first space, so the payload has none.
const EVIL = 'NVIDIA <script>alert(1)</script>|*x*_y_[l](http://e.vil)`c`#1@all<img/src=x>';

function html(text: string): string {
  return marked.parse(text, { async: false, gfm: true });
}

test('the capacity bar renders as one code span per table cell on a GFM renderer', () => {
  const out = html(renderStatusMarkdown(summarize(sampleFleet(), [])));
  const capacity = out.slice(out.indexOf('<h2>Capacity</h2>'), out.indexOf('<h2>Fabrics</h2>'));
  assert.match(capacity, /<td><code>███×\?{5}▒{5}░{6}<\/code><\/td>/);
  const firstRow = capacity.slice(capacity.indexOf('<tbody>'), capacity.indexOf('</tr>', capacity.indexOf('<tbody>')));
  assert.is(firstRow.match(/<td/g)!.length, 9);
});

test('a GPU name with <script>, | and Markdown renders inert, in a single cell', () => {
  const report = summarize(sampleFleet({ gpuName: EVIL }), []);
  const out = html(renderStatusMarkdown(report));
  assert.not.match(out, /<script|<img/i);
  assert.not.match(out, /<a /);
  assert.not.match(out, /<em>|<strong>x|<code>c<\/code>/);
  const row = out.slice(out.indexOf('<tbody>'), out.indexOf('</tr>', out.indexOf('<tbody>')));
  assert.is(row.match(/<td/g)!.length, 9, 'the pipe did not split the cell');
  assert.ok(row.includes('&lt;script&gt;'), 'the tag is shown as text');
});

/** What md() makes of text a node or an operator wrote. */
const MD_CASES: [text: string, escaped: string][] = [
  ['gpu-a01 llama-3.1', 'gpu-a01 llama-3.1'],
  ['<b>&</b>', '&lt;b>&amp;&lt;/b>'],
  ['a|b*c_d`e[f]g', 'a\\|b\\*c\\_d\\`e\\[f\\]g'],
  ['http://x www.y mailto:z', 'http\\://x www\\.y mailto\\:z'],
  ['one\ntwo\u001b[31m', 'one two\\[31m'],
];

test('md() escapes HTML, Markdown punctuation, autolinks and newlines, and keeps dots and hyphens', () => {
  for (const [text, escaped] of MD_CASES) assert.is(md(text), escaped, escaped);
});

test('the sample fleet (a bit of everything) renders the golden STATUS.md, and the same bytes every time', () => {
  const a = renderStatusMarkdown(summarize(sampleFleet(), []));
  golden('test/status/golden/sample.md', a);
  assert.is(renderStatusMarkdown(summarize(sampleFleet(), [])), a);
});

test('STATUS.md carries the observation date only, and no busy replica last-use time', () => {
  const out = renderStatusMarkdown(summarize(sampleFleet(), []));
  assert.ok(out.includes('Observed on 2026-11-29 (UTC)'));
  assert.not.ok(out.includes('08:00'), 'no observation time of day');
  assert.not.ok(out.includes('07:59'), 'no last use of the busy llama-8b-0');
  assert.not.match(out, /ago\b/);
});

test('every time in STATUS.md is a UTC date, never a time of day: observation, outage start, last use', () => {
  const sample = renderStatusMarkdown(summarize(sampleFleet(), []));
  assert.ok(sample.includes('| a4 | unreachable | timeout | 2026-11-29 | — |'), 'the unreachable node a4, silent since 07:55');
  for (const text of [sample, readFileSync(join(ROOT, 'examples/demo/STATUS.md'), 'utf8'), readFileSync(join(ROOT, 'examples/large/STATUS.md'), 'utf8')]) {
    assert.not.match(text, /\d\d:\d\d/);
  }
});

test('a steady fleet observed later the same day renders the same bytes', () => {
  const f1 = sampleFleet();
  const f2 = { ...f1, observedAt: '2026-11-29T08:05:00Z', now: '2026-11-29T08:05:00Z' };
  assert.is(renderStatusMarkdown(summarize(f1, [])), renderStatusMarkdown(summarize(f2, [])));
});

test('without webhooks a warning with the YAML to add sits at the top; with one there is none and no URL', () => {
  const warned = renderStatusMarkdown(summarize(sampleFleet(), []));
  const head = warned.split('\n## ', 1)[0] ?? '';
  assert.ok(head.includes('no `notify.webhooks` in cluster.yaml'));
  assert.ok(head.includes('    - url: ${LLMGW_WEBHOOK_URL}'));
  assert.ok(warned.indexOf('Warning') < warned.indexOf('## Capacity'));
  const quiet = renderStatusMarkdown(summarize(sampleFleet({ webhooks: true }), []));
  assert.not.ok(quiet.includes('Warning'));
  assert.not.ok(/SECRET-TOKEN|hunter2|hooks\.example/.test(quiet));
});

test('past 10 names an attention item folds the rest into <details>, and each name keeps its reason', () => {
  const report = summarize(sampleFleet(), []);
  const many = Array.from({ length: 250 }, (_, i) => ({ node: `n${String(i).padStart(3, '0')}`, since: null, reason: 'timeout' as const, error: 'x' }));
  const out = renderStatusMarkdown(withAttention({ ...report, nodes: { ...report.nodes, lost: many } }));
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith('- 250 nodes lost'));
  assert.is(
    lines[at],
    `- 250 nodes lost (their replicas are placed elsewhere): ${many
      .slice(0, MAX_SUBJECTS)
      .map((n) => `${n.node} (timeout)`)
      .join(', ')}, and 240 more:`,
  );
  assert.is(lines[at + 1], '  <details><summary>240 more</summary>');
  assert.is(
    lines[at + 3],
    `  ${many
      .slice(MAX_SUBJECTS)
      .map((n) => `${n.node} (timeout)`)
      .join(', ')}`,
  );
  assert.is(lines[at + 5], '  </details>');
  const html = marked.parse(out, { async: false, gfm: true });
  assert.match(html, /<li>(?:<p>)?250 nodes lost[^]*?<details><summary>240 more<\/summary>[^]*?n249 \(timeout\)[^]*?<\/details>[^]*?<\/li>/);
});

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  'a|b|c',
  '`code`',
  '[x](javascript:alert(1))',
  'line\n# head\n<script>x</script>',
  '![i](http://e.vil/x.png)',
  '&#x3C;img&#x3E;',
  '<!-- open',
];

test('replica ids, model names and GPU names a node reports render inert on a GFM renderer, one cell each', () => {
  for (const evil of HOSTILE) {
    const cfg = config([nodeConfig('n1')], { routers: [{ name: 'rt-1', host: 'rt-1', port: 22 }] }, [model('m')]);
    const gpuName = `NVIDIA ${evil.replace(/\s/g, '')}`;
    // A replica of a model models.yaml does not name, unused for weeks: in the models and idle tables.
    const rep = replica(evil, [0], { model: evil, startedAt: '2026-11-01T00:00:00Z' });
    const snap = snapshot([up('n1', report(gpus(2, gpuName), [rep]))], [routerUp('rt-1', '2026-11-01T00:00:00Z')]);
    const fleet = buildFleet(cfg, snap, emptyState(), NOW);
    const out = html(renderStatusMarkdown(summarize(fleet, [{ model: evil, missing: 1, reason: evil }])));
    assert.not.match(out, /<(img|script|a |em>|h[1-6]>(?!Fleet status|Capacity|Fabrics|Models|Where|Cannot|Idle|Weights|Nodes)|!--)/i, evil);
    assert.not.match(out, /<code>code<\/code>/, evil);
    for (const table of out.split('<table>').slice(1)) {
      const head = (table.match(/<th[ >]/g) ?? []).length;
      for (const row of table.split('<tbody>')[1]!.split('</tr>').slice(0, -1)) {
        assert.is((row.match(/<td[ >]/g) ?? []).length, head, `${evil}: a row keeps its cells`);
      }
    }
  }
});

test.run();
