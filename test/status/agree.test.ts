// `status --json` and `--format markdown` come from one model and must agree on
// every number: parse the Markdown tables back and compare with the JSON.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exampleStatus } from './cli-helpers.js';
import type { StatusReport } from '../../src/status/index.js';
import { REASON_LABEL } from '../../src/text/reason-labels.js';
import { gpuList } from '../../src/status/where.js';
import { defined } from '../helpers/defined.js';

/** Every body row of the section's tables: the open one and any folded into <details>. */
function tableRows(md: string, heading: string): string[][] {
  const section = defined(md.split(`\n## ${heading}\n`)[1], `a ## ${heading} section`).split('\n## ')[0] ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('| '));
  const head = lines[0];
  return lines.filter((l) => l !== head && !/^\| -{3}/.test(l)).map((l) => l.slice(2, -2).split(' | '));
}

const byFirst = (a: unknown[], b: unknown[]) => (String(a[0]) < String(b[0]) ? -1 : 1);

for (const example of ['demo', 'large']) {
  test(`examples/${example}: JSON and STATUS.md agree on every number`, async () => {
    const json = JSON.parse((await exampleStatus(example, '--json')).out) as StatusReport;
    const md = (await exampleStatus(example, '--format', 'markdown')).out;

    const capacity = tableRows(md, 'Capacity').map(([cls, , ...n]) => [cls, ...n.map(Number)]);
    assert.equal(
      capacity,
      json.capacity.map((c) => [c.class, c.total, c.used, c.free, c.unhealthy, c.other, c.unreachable, c.cordoned]),
    );

    const fabrics = tableRows(md, 'Fabrics').map(([name, nodes, reachable, whole]) => [name, Number(nodes), Number(reachable), whole]);
    assert.equal(
      fabrics,
      json.fabrics.map((f) => [
        f.name,
        f.nodes,
        f.reachable,
        Object.entries(f.freeWholeNodes)
          .map(([c, n]) => `${c} ${n}`)
          .join(', ') || '—',
      ]),
    );

    const models = tableRows(md, 'Models').map(([name, ...n]) => [name, ...n.map(Number)]);
    // Rows that need attention come first; every model is there once.
    assert.equal(
      models.sort(byFirst),
      json.models.map((m) => [m.name, m.desired, m.running, m.starting, m.failed]),
    );
    const states = ['running', 'starting', 'failed'].map((s) => `${json.replicas.filter((r) => r.state === s).length} ${s}`).join(', ');
    assert.ok(md.includes(`, ${json.replicas.length} replicas: ${states}.`));

    const idleCount = json.idle.length;
    assert.ok(md.includes(`${idleCount} replica${idleCount === 1 ? '' : 's'} unused for at least`));
    const shown = tableRows(md, 'Idle replicas').map((r) => r[0]);
    assert.equal(
      shown,
      json.idle.map((i) => i.replica),
    );
    const unknown = json.replicas.filter((r) => r.state === 'running' && r.idleSeconds === -1).length;
    if (unknown > 0) assert.ok(md.includes(`Idleness unknown for ${unknown} running replica`));

    const fabricNames = json.fabrics.map((f) => f.name);
    for (const [model, , ...cells] of tableRows(md, 'Weights by fabric')) {
      cells.forEach((cell, i) => {
        const h = json.holdings.find((x) => x.model === model && x.fabric === fabricNames[i])!;
        assert.is(cell !== '—', h.held, `${model} on ${fabricNames[i]}`);
        const local = /local on (\d+) node/.exec(cell);
        assert.is(local ? Number(local[1]) : 0, h.localNodes.length);
        const shared = /shared: ([^;]+)/.exec(cell);
        assert.equal(shared?.[1] ? shared[1].split(', ') : [], h.shared);
      });
    }

    const nodes = tableRows(md, 'Nodes');
    for (const [condition, list] of [
      ['lost', json.nodes.lost],
      ['unreachable', json.nodes.unreachable],
    ] as const) {
      const rows = nodes.filter((r) => r[1]?.startsWith(condition));
      assert.equal(
        rows.map((r) => [r[0], r[2]]),
        list.map((n) => [n.node, REASON_LABEL[n.reason]]),
        condition,
      );
    }
    for (const c of json.nodes.cordoned)
      assert.ok(
        nodes.some((r) => r[0] === c.node && /cordoned/.test(r[1] ?? '')),
        c.node,
      );
    const gpus = nodes.filter((r) => r[4] !== '—').map((r) => `${r[0]}:${(r[4] ?? '').replace(/ \\\(.*$/, '')}`);
    assert.equal(
      gpus,
      [...new Set(json.unhealthyGpus.map((g) => g.node))].map((n) =>
        gpuList(
          n,
          json.unhealthyGpus.filter((g) => g.node === n).map((g) => g.index),
        ),
      ),
    );
  });
}

test.run();
