// Stops grouped per model in the markdown plan (docs/commands.md plan, Formats):
// when stops do not fit one row each, each row is one model, one reason, one
// wait and one verb, with every replica id and node as a compressed hostlist,
// and the rows sorted by model.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actionTables, type Detail } from '../../../src/views/plan/markdown-tables.js';
import type { StopAction } from '../../../src/types/plan.js';

/** Stops grouped (stopRows false), nothing cut, nothing left out. */
const GROUPED: Detail = { startRows: 30, stopRows: false, cell: 1_000, ids: Infinity, rows: Infinity };

const HEAD = ['| − stop, per model | replicas | ids | nodes | why |', '|---|---:|---|---|---|'];

function stop(replica: string, model: string, node: string, reason: string, more: Partial<StopAction> = {}): StopAction {
  return { op: 'stop', replica, model, placement: [{ node, gpus: [0, 1] }], reason, waitFor: [], ...more };
}

// Listed out of order on purpose: the table sorts them.
const STOPS: StopAction[] = [
  stop('alpha-2', 'alpha', 'gpu-02', 'spec changed', { waitFor: ['alpha-5'] }),
  stop('zeta-1', 'zeta', 'gpu-03', 'not in models.yaml'),
  stop('zeta-0', 'zeta', 'gpu-01', 'not in models.yaml'),
  stop('alpha-0', 'alpha', 'gpu-04', 'spec changed'),
  stop('alpha-1', 'alpha', 'gpu-05', 'spec changed', { phase: 'drain' }),
];

test('grouped stops: one row per model, reason, wait and verb, sorted, every id and node named, the drain and the wait spelled out', () => {
  assert.equal(actionTables(STOPS, GROUPED), [
    ...HEAD,
    '| alpha | 1 | `alpha-1` | `gpu-05` | spec changed; out of every router now, each stopped once drained |',
    '| alpha | 1 | `alpha-0` | `gpu-04` | spec changed |',
    '| alpha | 1 | `alpha-2` | `gpu-02` | spec changed; each once its replacement runs |',
    '| zeta | 2 | `zeta-[0-1]` | `gpu-[01,03]` | not in models.yaml |',
  ]);
});

test('stops of one model and reason that wait for a replacement are a row apart from those that do not, the waiting ones second', () => {
  const stops = [
    stop('m-3', 'm', 'gpu-13', 'spec changed', { waitFor: ['m-9'] }),
    stop('m-1', 'm', 'gpu-11', 'spec changed'),
    stop('m-4', 'm', 'gpu-14', 'spec changed', { waitFor: ['m-8'] }),
    stop('m-2', 'm', 'gpu-12', 'spec changed'),
  ];
  assert.equal(actionTables(stops, GROUPED), [
    ...HEAD,
    '| m | 2 | `m-[1-2]` | `gpu-[11-12]` | spec changed |',
    '| m | 2 | `m-[3-4]` | `gpu-[13-14]` | spec changed; each once its replacement runs |',
  ]);
});

test('a drained group waiting for its replacement says both, the wait first', () => {
  const stops = [
    stop('m-2', 'm', 'gpu-2', 'spec changed', { waitFor: ['m-7'], phase: 'drain' }),
    stop('m-1', 'm', 'gpu-1', 'spec changed', { waitFor: ['m-6'], phase: 'drain' }),
  ];
  assert.equal(actionTables(stops, GROUPED), [
    ...HEAD,
    '| m | 2 | `m-[1-2]` | `gpu-[1-2]` | spec changed; each once its replacement runs; out of every router now, each stopped once drained |',
  ]);
});

test("a multi-node replica's stop names every node it runs on, once", () => {
  const stops = [
    {
      ...stop('big-0', 'big', 'gpu-a01', 'not in models.yaml'),
      placement: [
        { node: 'gpu-a01', gpus: [0] },
        { node: 'gpu-a02', gpus: [0] },
      ],
    },
    {
      ...stop('big-1', 'big', 'gpu-a03', 'not in models.yaml'),
      placement: [
        { node: 'gpu-a03', gpus: [0] },
        { node: 'gpu-a04', gpus: [0] },
      ],
    },
  ];
  assert.equal(actionTables(stops, GROUPED), [...HEAD, '| big | 2 | `big-[0-1]` | `gpu-a[01-04]` | not in models.yaml |']);
});

test('past d.rows grouped stop rows, the first d.rows are shown and one row says how many more, with a cell for each of the 5 columns', () => {
  assert.equal(actionTables(STOPS, { ...GROUPED, rows: 2 }), [
    ...HEAD,
    '| alpha | 1 | `alpha-1` | `gpu-05` | spec changed; out of every router now, each stopped once drained |',
    '| alpha | 1 | `alpha-0` | `gpu-04` | spec changed |',
    '| … and 2 more (llmgw plan --format json lists every one) | | | | |',
  ]);
});

test('exactly d.rows grouped stop rows are all shown, with no "and 0 more" row', () => {
  assert.equal(actionTables(STOPS, { ...GROUPED, rows: 4 }), actionTables(STOPS, GROUPED));
  assert.equal(actionTables(STOPS, { ...GROUPED, rows: 4 }).length, 6);
});

test.run();
