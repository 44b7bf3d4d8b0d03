// A snapshot's text (.llmgw/observed.json, `--observed FILE`, `git show`):
// parseSnapshot refuses a broken one with one DataError naming the file and
// the first problem, and reads a hand-written unreachable node's missing
// unreachableSince and lastReport as unknown, leaving every other node as written.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DataError } from '../../src/errors.js';
import { parseSnapshot } from '../../src/store/files.js';

const FILE = 'repo/.llmgw/observed.json';
const T0 = '2026-11-29T08:00:00Z';
const REPORT = { version: 1, gpus: [{ index: 0, name: 'NVIDIA H100 80GB HBM3', healthy: true }], replicas: [], storage: [], warnings: [] };

function message(text: string): string {
  try {
    parseSnapshot(text, FILE);
  } catch (err) {
    assert.instance(err, DataError);
    return (err as Error).message;
  }
  assert.unreachable(`parseSnapshot accepted ${text}`);
  return '';
}
const snap = (nodes: unknown[], extra: object = {}) => JSON.stringify({ version: 1, observedAt: T0, nodes, routers: [], ...extra });

test('parseSnapshot: a file without "version": 1 and a list of nodes is refused by name, whatever it holds instead', () => {
  const expected = `${FILE}: not an llmgw snapshot (expected "version": 1 and "nodes")`;
  assert.is(message('null'), expected);
  assert.is(message('7'), expected);
  assert.is(message('"observed"'), expected);
  assert.is(message('[]'), expected);
  assert.is(message('{"version":1}'), expected);
  assert.is(message('{"version":1,"nodes":{}}'), expected);
  assert.is(message('{"version":2,"nodes":[]}'), expected);
});

test('parseSnapshot: a node that is not a mapping is "not a valid snapshot" at its path (never a crash)', () => {
  assert.is(message(snap([null])), `${FILE}: not a valid snapshot (/nodes/0: must be object)`);
  assert.is(message(snap([7])), `${FILE}: not a valid snapshot (/nodes/0: must be object)`);
  assert.is(message(snap(['gpu-a01'])), `${FILE}: not a valid snapshot (/nodes/0: must be object)`);
});

test('parseSnapshot: a reachable node without its report is refused at its path', () => {
  assert.is(message(snap([{ name: 'gpu-a01', reachable: true }])), `${FILE}: not a valid snapshot (/nodes/0: must have required property 'report')`);
});

test('parseSnapshot: a number JSON reads as Infinity (1e999), even in a key the schema does not know, is refused by its path', () => {
  assert.is(
    message(`{"version":1,"observedAt":"${T0}","nodes":[{"name":"gpu-a01","reachable":false,"error":"down","load":1e999}],"routers":[]}`),
    `${FILE}: not a valid snapshot (/nodes/0/load: a number out of range (not finite))`,
  );
});

test('parseSnapshot: a reachable node is read exactly as written (no unreachableSince or lastReport added); an unreachable one keeps what it says', () => {
  const up = { name: 'gpu-a01', reachable: true, report: REPORT };
  const down = { name: 'gpu-b02', reachable: false, error: 'connect ETIMEDOUT', reason: 'timeout', unreachableSince: T0, lastReport: REPORT };
  const s = parseSnapshot(snap([up, down]), FILE);
  assert.equal(s, { version: 1, observedAt: T0, nodes: [up, down], routers: [] });
  assert.equal(Object.keys(s.nodes[0]!), ['name', 'reachable', 'report']);
});

test('parseSnapshot: a snapshot without observedAt is refused at /observedAt', () => {
  assert.is(
    message(JSON.stringify({ version: 1, nodes: [], routers: [] })),
    `${FILE}: not a valid snapshot (/observedAt: must match pattern "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})$")`,
  );
});

test.run();
