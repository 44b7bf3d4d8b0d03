// .llmgw/state.json (src/config/repo-files.ts): parseState refuses a broken file
// with one DataError naming the file and the first problem; stateOrFresh turns
// that into one warning and an empty state; serializeState writes sorted keys
// and rows, so an unchanged state is unchanged bytes, and reads back as itself.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DataError } from '../../src/errors.js';
import { parseState, serializeState, stateOrFresh } from '../../src/store/files.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { NotifyEvent } from '../../src/notify/events.js';

const FILE = 'repo/.llmgw/state.json';
const T0 = '2026-11-29T08:00:00Z';
const T1 = '2026-11-29T08:05:00Z';
const T2 = '2026-11-29T08:10:00Z';
const EVT_A = 'evt_aaaaaaaaaaaaaaaaaaaaaaaa';
const EVT_B = 'evt_bbbbbbbbbbbbbbbbbbbbbbbb';
const HOOK_1 = '1111111111111111';
const HOOK_2 = '2222222222222222';
const HOOK_3 = '3333333333333333';

function event(subject: string): NotifyEvent {
  return { event: 'node.lost', cluster: 'c', time: T0, subject, text: `${subject} is lost`, details: {} };
}

function message(text: string): string {
  try {
    parseState(text, FILE);
  } catch (err) {
    assert.instance(err, DataError);
    return (err as Error).message;
  }
  assert.unreachable(`parseState accepted ${text}`);
  return '';
}

test('parseState: a file that is not an object with "version": 1 is refused by name, whatever it holds instead', () => {
  const expected = `${FILE}: not an llmgw state file (expected an object with "version": 1)`;
  assert.is(message('null'), expected);
  assert.is(message('[]'), expected);
  assert.is(message('[{"version":1}]'), expected);
  assert.is(message('1'), expected);
  assert.is(message('"state"'), expected);
  assert.is(message('{}'), expected);
  assert.is(message('{"version":2}'), expected);
  assert.is(message('{"version":"1"}'), expected);
});

test('parseState: a part of the wrong shape is "not a valid state file" with its path and the schema\'s word', () => {
  assert.is(message('{"version":1,"everRunning":"m"}'), `${FILE}: not a valid state file (/everRunning: must be array)`);
  assert.is(message('{"version":1,"unreachableSince":{"gpu-a01":5}}'), `${FILE}: not a valid state file (/unreachableSince/gpu-a01: must be string)`);
  // Only the first problem is named.
  assert.is(message('{"version":1,"everRunning":"m","outbox":{}}'), `${FILE}: not a valid state file (/everRunning: must be array; and 1 more)`);
});

test('parseState: a number JSON reads as Infinity (1e999) is refused by its path, even where the schema lets any integer through', () => {
  assert.is(
    message(
      `{"version":1,"lifecycle":{"rollouts":{"m":{"spec":"s","stage":"canary","baseline":{"router-a":{"startedAt":"${T0}","requests":1e999,"errors":0}}}}}}`,
    ),
    `${FILE}: not a valid state file (/lifecycle/rollouts/m/baseline/router-a/requests: a number out of range (not finite))`,
  );
  assert.is(message('{"version":1,"extra":-1e999}'), `${FILE}: not a valid state file (/extra: a number out of range (not finite))`);
});

test('parseState: a file with only "version": 1 is the empty state, and has no lifecycle', () => {
  const s = parseState('{"version":1}', FILE);
  assert.equal(s, emptyState());
  assert.not.ok('lifecycle' in s);
  assert.not.ok('lifecycle' in parseState('{"version":1,"lifecycle":{"draining":{},"rollouts":{}}}', FILE));
});

test('parseState: drains and rollouts under way are read back (normalized: a drain without a reason stops as "stop")', () => {
  const s = parseState(
    JSON.stringify({
      version: 1,
      lifecycle: {
        draining: { 'm-r1': { since: T0, reason: 'stop' }, 'm-r2': { since: T1, reason: 'surplus', outOfTablesAt: T2 } },
        rollouts: { m: { spec: 'h1', stage: 'rolling' } },
      },
    }),
    FILE,
  );
  assert.equal(s.lifecycle, {
    draining: { 'm-r1': { since: T0, reason: 'stop', outOfTablesAt: null }, 'm-r2': { since: T1, reason: 'surplus', outOfTablesAt: T2 } },
    rollouts: { m: { spec: 'h1', stage: 'rolling' } },
  });
});

test('stateOrFresh: no file is the empty state without a warning; a good file is its state without a warning', () => {
  const warnings: string[] = [];
  assert.equal(
    stateOrFresh(null, FILE, (m) => warnings.push(m)),
    emptyState(),
  );
  const good = { version: 1, unreachableSince: { 'gpu-a01': T0 }, startFailures: [], notified: {}, everRunning: ['m'], placements: {}, outbox: [] };
  assert.equal(
    stateOrFresh(JSON.stringify(good), FILE, (m) => warnings.push(m)),
    good,
  );
  assert.equal(warnings, []);
});

test('stateOrFresh: a broken file is one warning naming it and the problem, and an empty state', () => {
  const warnings: string[] = [];
  assert.equal(
    stateOrFresh('{"version":1,"everRunning":"m"}', FILE, (m) => warnings.push(m)),
    emptyState(),
  );
  assert.equal(
    stateOrFresh('{"version":3}', FILE, (m) => warnings.push(m)),
    emptyState(),
  );
  assert.equal(warnings, [
    `${FILE}: not a valid state file (/everRunning: must be array); starting from an empty state`,
    `${FILE}: not an llmgw state file (expected an object with "version": 1); starting from an empty state`,
  ]);
});

test('stateOrFresh: an error that is not about the file (a bug) is thrown, never turned into a warning and an empty state', () => {
  const warnings: string[] = [];
  // A name that cannot be turned into text: building the file's DataError itself fails.
  const file = {
    toString: () => {
      throw new RangeError('not a file name');
    },
  } as unknown as string;
  assert.throws(
    () => stateOrFresh('{', file, (m) => warnings.push(m)),
    (err: unknown) => err instanceof RangeError && err.message === 'not a file name',
  );
  assert.equal(warnings, []);
});

/** One state, every list and record given out of order, placements' keys in an odd order. */
function messyState(): State {
  return {
    version: 1,
    unreachableSince: { 'gpu-b02': T1, 'gpu-a01': T0 },
    startFailures: [
      { model: 'm', node: 'gpu-b02', replica: 'm-r3', at: T1, error: 'oom' },
      { model: 'm', node: 'gpu-a01', replica: 'm-r2', at: T0, error: 'oom' },
    ],
    notified: { 'node.lost/gpu-b02': T1, 'model.down/m': T0 },
    everRunning: ['zeta', 'alpha', 'zeta'],
    placements: {
      'zeta-r1': { spec: 'h9', port: 8001, ranks: [{ gpus: [2, 10, 1], rank: 0, node: 'gpu-b02' }], state: 'running', model: 'zeta' },
      'alpha-r2': {
        model: 'alpha',
        state: 'starting',
        ranks: [
          { node: 'gpu-a01', rank: 1, gpus: [0] },
          { node: 'gpu-b02', rank: 0, gpus: [3] },
        ],
      },
    },
    outbox: [
      { id: EVT_B, event: event('gpu-b02'), hooks: [HOOK_2, HOOK_1] },
      { hooks: [HOOK_3], event: event('gpu-a01'), id: EVT_A },
    ],
    lifecycle: { draining: { 'zeta-r1': { since: T2, reason: 'stop', outOfTablesAt: null } }, rollouts: { zeta: { spec: 'h9', stage: 'rolling' } } },
  };
}

/** messyState as it must be written: keys and rows sorted, placement keys in one order, outbox oldest first. */
const CANONICAL = {
  version: 1,
  unreachableSince: { 'gpu-a01': T0, 'gpu-b02': T1 },
  startFailures: [
    { model: 'm', node: 'gpu-a01', replica: 'm-r2', at: T0, error: 'oom' },
    { model: 'm', node: 'gpu-b02', replica: 'm-r3', at: T1, error: 'oom' },
  ],
  notified: { 'model.down/m': T0, 'node.lost/gpu-b02': T1 },
  everRunning: ['alpha', 'zeta'],
  placements: {
    'alpha-r2': {
      model: 'alpha',
      state: 'starting',
      ranks: [
        { node: 'gpu-b02', rank: 0, gpus: [3] },
        { node: 'gpu-a01', rank: 1, gpus: [0] },
      ],
    },
    'zeta-r1': { model: 'zeta', state: 'running', ranks: [{ node: 'gpu-b02', rank: 0, gpus: [1, 2, 10] }], port: 8001, spec: 'h9' },
  },
  outbox: [
    { id: EVT_B, hooks: [HOOK_1, HOOK_2], event: event('gpu-b02') },
    { id: EVT_A, hooks: [HOOK_3], event: event('gpu-a01') },
  ],
  lifecycle: { draining: { 'zeta-r1': { since: T2, reason: 'stop', outOfTablesAt: null } }, rollouts: { zeta: { spec: 'h9', stage: 'rolling' } } },
};

test('serializeState: keys and rows sorted (placements by id, ranks by rank, GPUs by number), placement keys in one order, outbox oldest first, indented with a final newline', () => {
  assert.is(serializeState(messyState()), JSON.stringify(CANONICAL, null, 2) + '\n');
});

test('serializeState: the same state built in another order is the same bytes, and reads back as itself', () => {
  const m = messyState();
  const reordered: State = {
    ...m,
    unreachableSince: Object.fromEntries(Object.entries(m.unreachableSince).reverse()),
    placements: Object.fromEntries(
      Object.entries(m.placements ?? {})
        .reverse()
        .map(([id, p]) => [id, { ...p, ranks: [...p.ranks].reverse() }]),
    ),
  };
  const text = serializeState(reordered);
  assert.is(text, serializeState(m));
  assert.equal(parseState(text, FILE), CANONICAL);
  assert.is(serializeState(parseState(text, FILE)), text);
});

test('serializeState: ranks with the same rank number are ordered by node, whichever came first; ones the sort cannot tell apart keep their order', () => {
  const ranksOf = (ranks: NonNullable<State['placements']>[string]['ranks']) => {
    const s: State = { ...emptyState(), placements: { 'm-r1': { model: 'm', state: 'running', ranks } } };
    return (JSON.parse(serializeState(s)) as State).placements!['m-r1']!.ranks.map((r) => `${r.node}:${r.rank}:${r.gpus.join(',')}`);
  };
  const a = { node: 'gpu-a01', rank: 0, gpus: [0] };
  const b = { node: 'gpu-b02', rank: 0, gpus: [1] };
  assert.equal(ranksOf([a, b]), ['gpu-a01:0:0', 'gpu-b02:0:1']);
  assert.equal(ranksOf([b, a]), ['gpu-a01:0:0', 'gpu-b02:0:1']);
  const a2 = { node: 'gpu-a01', rank: 0, gpus: [2] };
  assert.equal(ranksOf([a, a2]), ['gpu-a01:0:0', 'gpu-a01:0:2']);
  assert.equal(ranksOf([a2, a]), ['gpu-a01:0:2', 'gpu-a01:0:0']);
});

test('serializeState: a state without drains or rollouts has no lifecycle key; an empty state is its fixed text', () => {
  assert.is(
    serializeState(emptyState()),
    '{\n  "version": 1,\n  "unreachableSince": {},\n  "startFailures": [],\n  "notified": {},\n  "everRunning": [],\n  "placements": {},\n  "outbox": []\n}\n',
  );
});

test.run();
