// state.json's newer parts as they are read and committed (docs/config.md):
// the lease epoch (docs/safety.md#fencing) that alone never commits, the
// quarantine (docs/placement.md#quarantined-gpus) and the ended outages, each
// kept only when it holds something and written in one order; and the readers
// of the committed run, on disk and at a ref, under their size caps.

import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DataError } from '../../src/errors.js';
import { parseState, serializeState } from '../../src/store/files.js';
import { MAX_BYTES } from '../../src/store/paths.js';
import { committedSnapshot, committedState, committedStatus, readState, runFileAt, type AtRef } from '../../src/store/read.js';
import { writeAll, writeGenerated, type CheckoutFiles } from '../../src/store/write.js';
import { emptyState, type QuarantineRecord, type State } from '../../src/types/state.js';
import { LOST_EVENT } from '../fixtures/index.js';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'llmgw-store-keep-'));
  dirs.push(d);
  return d;
}
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const stateText = (extra: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(serializeState(emptyState())), ...extra });

const rec = (node: string, index: number): QuarantineRecord => ({
  node,
  index,
  code: 79,
  reason: 'Xid 79 (GPU has fallen off the bus)',
  since: '2026-11-29T07:00:00Z',
  until: '2026-11-30T07:00:00Z',
});

test('parseState: a lease epoch above 0 is kept; 0 or none leaves the key out', () => {
  assert.is(parseState(stateText({ leaseEpoch: 7 }), 's').leaseEpoch, 7);
  assert.is(parseState(stateText({ leaseEpoch: 1 }), 's').leaseEpoch, 1);
  assert.not.ok(Object.hasOwn(parseState(stateText({ leaseEpoch: 0 }), 's'), 'leaseEpoch'));
  assert.not.ok(Object.hasOwn(parseState(stateText({}), 's'), 'leaseEpoch'));
});

test('parseState: a quarantine and ended outages are kept when they hold something, left out when empty', () => {
  const quarantine = { 'a1:3': rec('a1', 3) };
  const s = parseState(stateText({ quarantine, outageEnded: { a1: '2026-11-29T07:00:00Z' } }), 's');
  assert.equal(s.quarantine, quarantine);
  assert.equal(s.outageEnded, { a1: '2026-11-29T07:00:00Z' });
  const empty = parseState(stateText({ quarantine: {}, outageEnded: {} }), 's');
  assert.not.ok(Object.hasOwn(empty, 'quarantine'));
  assert.not.ok(Object.hasOwn(empty, 'outageEnded'));
});

test('serializeState: the quarantine and ended outages by key whatever the order built; absent when empty; the epoch only above 0', () => {
  const state: State = {
    ...emptyState(),
    // Neither sorted nor reversed: a comparator that always says "before" or never does is seen.
    quarantine: { 'a1:3': rec('a1', 3), 'b1:0': rec('b1', 0), 'a1:10': rec('a1', 10) },
    outageEnded: { b1: '2026-11-29T07:00:00Z', a1: '2026-11-29T06:00:00Z' },
    leaseEpoch: 3,
  };
  const json = JSON.parse(serializeState(state)) as State;
  assert.equal(Object.keys(json.quarantine ?? {}), ['a1:10', 'a1:3', 'b1:0']);
  assert.equal(json.quarantine?.['a1:3'], rec('a1', 3));
  assert.equal(Object.keys(json.outageEnded ?? {}), ['a1', 'b1']);
  assert.is(json.leaseEpoch, 3);
  const bare = JSON.parse(serializeState({ ...emptyState(), quarantine: {}, outageEnded: {}, leaseEpoch: 0 })) as State;
  assert.not.ok(Object.hasOwn(bare, 'quarantine'));
  assert.not.ok(Object.hasOwn(bare, 'outageEnded'));
  assert.not.ok(Object.hasOwn(bare, 'leaseEpoch'));
  // Written back, it reads the same.
  assert.is(serializeState(parseState(serializeState(state), 's')), serializeState(state));
});

/** A checkout whose HEAD has every generated file as it is on disk. */
function cleanCheckout(dir: string): CheckoutFiles {
  return { dir, changedFromHead: () => Promise.resolve([]) };
}

const STATUS = '# Fleet\n';

test('writeGenerated: a lease epoch that only grows commits nothing; one that goes back, or any other change, writes', async () => {
  const dir = tempDir();
  const base: State = { ...emptyState(), everRunning: ['m'], leaseEpoch: 4 };
  await writeAll(dir, { status: STATUS, state: base, snapshot: null });
  const repo = cleanCheckout(dir);
  assert.is(await writeGenerated(repo, { status: STATUS, state: { ...base, leaseEpoch: 5 }, snapshot: null }), false, 'the epoch grew alone');
  assert.match(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), /"leaseEpoch": 4/);
  assert.is(await writeGenerated(repo, { status: STATUS, state: { ...base, leaseEpoch: 3 }, snapshot: null }), true, 'the epoch went back');
  assert.match(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), /"leaseEpoch": 3/);
  assert.is(
    await writeGenerated(repo, { status: STATUS, state: { ...base, leaseEpoch: 9, everRunning: ['m', 'n'] }, snapshot: null }),
    true,
    'the state changed',
  );
});

test('writeGenerated: from no epoch to one, nothing is written; a state.json that does not parse is rewritten', async () => {
  const dir = tempDir();
  const base: State = { ...emptyState(), everRunning: ['m'] };
  await writeAll(dir, { status: STATUS, state: base, snapshot: null });
  const repo = cleanCheckout(dir);
  assert.is(await writeGenerated(repo, { status: STATUS, state: { ...base, leaseEpoch: 1 }, snapshot: null }), false);
  writeFileSync(join(dir, '.llmgw/state.json'), '{ not json');
  assert.is(await writeGenerated(repo, { status: STATUS, state: base, snapshot: null }), true);
  assert.is(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), serializeState(base));
});

test('writeGenerated: no state.json on disk at all is a change', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'STATUS.md'), STATUS);
  assert.is(await writeGenerated(cleanCheckout(dir), { status: STATUS, state: emptyState(), snapshot: null }), true);
  assert.is(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), serializeState(emptyState()));
});

function tree(files: Record<string, string>): AtRef {
  return { fileAt: (_ref, path) => Promise.resolve(files[path] ?? null) };
}

test('runFileAt: the text at the ref, null when it has none, a DataError naming ref:file and both sizes past the cap', async () => {
  assert.is(await runFileAt(tree({ 'STATUS.md': '# Fleet\n' }), 'main', 'STATUS.md'), '# Fleet\n');
  assert.is(await runFileAt(tree({}), 'main', 'STATUS.md'), null);
  const cap = MAX_BYTES['STATUS.md'];
  const atCap = 'x'.repeat(cap);
  assert.is((await runFileAt(tree({ 'STATUS.md': atCap }), 'main', 'STATUS.md'))?.length, cap);
  try {
    await runFileAt(tree({ 'STATUS.md': `${atCap}é` }), 'origin/main', 'STATUS.md');
    assert.unreachable('past the cap');
  } catch (err) {
    assert.instance(err, DataError);
    assert.is((err as Error).message, 'origin/main:STATUS.md: not read: it is 16,777,218 bytes, more than 16 MiB');
  }
});

test('the committed run on disk: STATUS.md, state.json and the snapshot as written; none of them there reads as nothing', async () => {
  const dir = tempDir();
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  assert.is(await committedStatus(dir), null);
  assert.is(await committedSnapshot(dir), null);
  assert.equal(await committedState(dir, warn), emptyState());
  assert.equal(await readState(dir), emptyState());
  const state: State = { ...emptyState(), everRunning: ['m'] };
  const snapshot = { version: 1 as const, observedAt: '2026-11-29T08:00:00Z', nodes: [], routers: [] };
  await writeAll(dir, { status: STATUS, state, snapshot });
  assert.is(await committedStatus(dir), STATUS);
  assert.equal(await committedSnapshot(dir), snapshot);
  // Written, the placements of record are always there (empty too): a state.json
  // llmgw wrote is never seeded again (docs/safety.md#records-over-reports).
  assert.equal(await committedState(dir, warn), { ...state, placements: {} });
  assert.equal(await readState(dir), { ...state, placements: {} });
  assert.equal(warnings, []);
});

test('a broken state.json: committedState warns once and starts empty, readState is a DataError naming the file', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.llmgw'));
  writeFileSync(join(dir, '.llmgw/state.json'), '[]');
  const warnings: string[] = [];
  assert.equal(await committedState(dir, (m) => warnings.push(m)), emptyState());
  assert.is(warnings.length, 1);
  assert.match(warnings[0]!, /^.*\.llmgw\/state\.json: not an llmgw state file .*; starting from an empty state$/);
  try {
    await readState(dir);
    assert.unreachable('a broken state');
  } catch (err) {
    assert.instance(err, DataError);
    assert.match((err as Error).message, /\.llmgw\/state\.json: not an llmgw state file/);
  }
});

test('serializeState: an outbox entry keeps its MAC; one without has no mac key', () => {
  const state: State = {
    ...emptyState(),
    outbox: [
      { id: 'e1', hooks: ['h2', 'h1'], event: LOST_EVENT, mac: 'abc123' },
      { id: 'e2', hooks: ['h1'], event: LOST_EVENT },
    ],
  };
  const json = JSON.parse(serializeState(state)) as State;
  assert.is(json.outbox[0]?.mac, 'abc123');
  assert.equal(json.outbox[0]?.hooks, ['h1', 'h2']);
  assert.not.ok(Object.hasOwn(json.outbox[1] ?? {}, 'mac'));
});

test('writeGenerated: a new STATUS.md alone writes, the state unchanged', async () => {
  const dir = tempDir();
  const state: State = { ...emptyState(), everRunning: ['m'] };
  await writeAll(dir, { status: STATUS, state, snapshot: null });
  assert.is(await writeGenerated(cleanCheckout(dir), { status: '# Fleet, changed\n', state, snapshot: null }), true);
  assert.is(readFileSync(join(dir, 'STATUS.md'), 'utf8'), '# Fleet, changed\n');
});

test('writeGenerated: the same state written another way (compact JSON), same epoch, is no change', async () => {
  const dir = tempDir();
  const state: State = { ...emptyState(), everRunning: ['m'], leaseEpoch: 2 };
  await writeAll(dir, { status: STATUS, state, snapshot: null });
  writeFileSync(join(dir, '.llmgw/state.json'), JSON.stringify(JSON.parse(serializeState(state))));
  assert.is(await writeGenerated(cleanCheckout(dir), { status: STATUS, state, snapshot: null }), false);
});

test('writeGenerated: an observed.json that is a symbolic link, all else unchanged, is replaced: all three are written', async () => {
  const dir = tempDir();
  const state: State = { ...emptyState(), everRunning: ['m'] };
  await writeAll(dir, { status: STATUS, state, snapshot: null });
  writeFileSync(join(dir, 'elsewhere.json'), '{}');
  symlinkSync(join(dir, 'elsewhere.json'), join(dir, '.llmgw/observed.json'));
  const snapshot = { version: 1 as const, observedAt: '2026-11-29T08:00:00Z', nodes: [], routers: [] };
  assert.is(await writeGenerated(cleanCheckout(dir), { status: STATUS, state, snapshot }), true);
  assert.equal(JSON.parse(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8')), snapshot);
  assert.is(readFileSync(join(dir, 'elsewhere.json'), 'utf8'), '{}');
});

test('writeGenerated: a temporary file a dead writer left beside STATUS.md is removed', async () => {
  const dir = tempDir();
  await writeAll(dir, { status: STATUS, state: emptyState(), snapshot: null });
  // No process has this pid: its writer is gone.
  writeFileSync(join(dir, 'STATUS.md.999999999.1700000000000.tmp'), 'half');
  await writeGenerated(cleanCheckout(dir), { status: STATUS, state: emptyState(), snapshot: null });
  assert.equal(
    readdirSync(dir).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

test('writeAll without a snapshot writes STATUS.md and state.json and no observed.json', async () => {
  const dir = tempDir();
  await writeAll(dir, { status: STATUS, state: emptyState(), snapshot: null });
  assert.ok(existsSync(join(dir, 'STATUS.md')));
  assert.ok(existsSync(join(dir, '.llmgw/state.json')));
  assert.not.ok(existsSync(join(dir, '.llmgw/observed.json')));
});

test('a state.json that is a symbolic link: committedState warns that it is one and starts empty; nothing is read through it', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.llmgw'));
  writeFileSync(join(dir, 'real.json'), serializeState({ ...emptyState(), everRunning: ['m'] }));
  symlinkSync(join(dir, 'real.json'), join(dir, '.llmgw/state.json'));
  const warnings: string[] = [];
  assert.equal(await committedState(dir, (m) => warnings.push(m)), emptyState());
  assert.is(warnings.length, 1);
  assert.match(warnings[0] ?? '', /state\.json: not read: .*symbolic link.*; starting from an empty state$/);
});

test('writeAll is the "write" crash moment (LLMGW_CRASH_AT=write): killed between the write and the rename, STATUS.md is not replaced', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'STATUS.md'), 'old\n');
  const url = pathToFileURL(join(import.meta.dirname, '../../src/store/write.js')).href;
  const script = `const { writeAll } = await import(${JSON.stringify(url)}); await writeAll(${JSON.stringify(dir)}, { status: 'new\\n', state: { version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [], placements: {}, outbox: [] }, snapshot: null });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, LLMGW_CRASH_AT: 'write' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(r.signal, 'SIGKILL', r.stderr);
  assert.is(readFileSync(join(dir, 'STATUS.md'), 'utf8'), 'old\n');
});

test.run();
