// The files llmgw keeps in the config repo (docs/config.md): their names, how
// .llmgw/state.json is read and written, and what a snapshot file must look like.
// A missing state is an empty one; anything broken is a DataError naming the file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '../../src/errors.js';
import { GENERATED_FILES, readSnapshotFile, serializeState } from '../../src/store/files.js';
import { readState } from '../../src/store/read.js';
import { emptyState, type State } from '../../src/types/state.js';

let dir = '';
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'llmgw-repo-files-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function writeState(text: string): void {
  mkdirSync(join(dir, '.llmgw'), { recursive: true });
  writeFileSync(join(dir, '.llmgw', 'state.json'), text);
}

async function failure(p: Promise<unknown>): Promise<DataError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, DataError);
  return err as DataError;
}

test('the generated files are STATUS.md, .llmgw/observed.json and .llmgw/state.json', () => {
  assert.equal([...GENERATED_FILES], ['STATUS.md', '.llmgw/observed.json', '.llmgw/state.json']);
});

test('no state.json is an empty state', async () => {
  assert.equal(await readState(dir), emptyState());
});

test('a state.json that is not JSON is a DataError naming the file, with the parser error as its cause', async () => {
  writeState('{"version": 1,');
  const err = await failure(readState(dir));
  assert.match(err.message, /^\S+\/\.llmgw\/state\.json: not valid JSON \(.+\)$/);
  assert.instance(err.cause, SyntaxError);
});

test('a state.json that is not a version-1 object is a DataError naming the file', async () => {
  for (const text of ['null', '"state"', '[]', '{"version": 2}', '{}']) {
    writeState(text);
    const err = await failure(readState(dir));
    assert.ok(err.message.endsWith('/.llmgw/state.json: not an llmgw state file (expected an object with "version": 1)'), text);
  }
});

test('a state.json with only a version reads as empty; the parts it has are kept', async () => {
  writeState('{"version": 1}');
  assert.equal(await readState(dir), emptyState());
  const full: State = {
    version: 1,
    unreachableSince: { n1: '2026-11-29T07:00:00Z' },
    startFailures: [{ model: 'm', node: 'n1', replica: 'm-0', at: '2026-11-29T07:30:00Z', error: 'x' }],
    notified: { 'node.lost/n1': '2026-11-29T07:10:00Z' },
    everRunning: ['m'],
    placements: {},
    outbox: [],
  };
  writeState(JSON.stringify(full));
  assert.equal(await readState(dir), full);
});

test('state.json is written with sorted keys and rows, so an unchanged state is unchanged bytes', () => {
  const state: State = {
    version: 1,
    unreachableSince: { n2: 'b', n10: 'c', n1: 'a' },
    startFailures: [
      { model: 'm', node: 'n2', replica: 'm-3', at: '2026-11-29T07:30:00Z', error: 'x' },
      { model: 'm', node: 'n1', replica: 'm-2', at: '2026-11-29T07:30:00Z', error: 'x' },
      { model: 'a', node: 'n9', replica: 'a-0', at: '2026-11-29T07:30:00Z', error: 'x' },
      { model: 'z', node: 'n0', replica: 'z-0', at: '2026-11-29T07:00:00Z', error: 'x' },
    ],
    notified: { 'node.lost/n2': 't', 'model.down/m': 't', 'node.lost/n1': 't' },
    everRunning: ['m', 'a', 'm'],
    placements: {},
    outbox: [],
  };
  const text = serializeState(state);
  const back = JSON.parse(text) as State;
  assert.equal(Object.keys(back), ['version', 'unreachableSince', 'startFailures', 'notified', 'everRunning', 'placements', 'outbox']);
  assert.equal(Object.keys(back.unreachableSince), ['n1', 'n10', 'n2']);
  assert.equal(
    back.startFailures.map((f) => f.replica),
    ['z-0', 'a-0', 'm-2', 'm-3'],
  );
  assert.equal(Object.keys(back.notified), ['model.down/m', 'node.lost/n1', 'node.lost/n2']);
  assert.equal(back.everRunning, ['a', 'm']);
  assert.ok(text.endsWith('}\n') && text.includes('\n  "version": 1,\n'), 'two-space JSON ending in a newline');
  const shuffled: State = { ...state, startFailures: [...state.startFailures].reverse(), everRunning: ['a', 'm'] };
  assert.is(serializeState(shuffled), text);
});

test('a snapshot file that is missing, not JSON, or not a version-1 snapshot with nodes is a DataError naming the file', async () => {
  const file = join(dir, 'observed.json');
  assert.is((await failure(readSnapshotFile(file))).message, `${file}: no such file`);
  writeFileSync(file, 'nope');
  assert.match((await failure(readSnapshotFile(file))).message, `${file}: not valid JSON (`);
  for (const text of ['null', '7', '{"version": 2, "nodes": []}', '{"version": 1}', '{"version": 1, "nodes": {}}']) {
    writeFileSync(file, text);
    assert.is((await failure(readSnapshotFile(file))).message, `${file}: not an llmgw snapshot (expected "version": 1 and "nodes")`, text);
  }
});

test('a snapshot without routers reads them as empty', async () => {
  const file = join(dir, 'observed.json');
  writeFileSync(file, JSON.stringify({ version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [] }));
  assert.equal(await readSnapshotFile(file), { version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [], routers: [] });
  writeFileSync(file, JSON.stringify({ version: 1, observedAt: '2026-11-29T08:00:00Z', nodes: [], routers: [{ name: 'rt-1', reachable: false, error: 'x' }] }));
  assert.equal((await readSnapshotFile(file)).routers, [{ name: 'rt-1', reachable: false, error: 'x' }]);
});

test.run();
