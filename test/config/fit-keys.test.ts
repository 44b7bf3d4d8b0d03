// models.yaml's fit, spread and survive keys (docs/config.md): their defaults,
// what they resolve to, and the schema's refusals, one line each.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../src/errors.js';
import { MODELS, TINY_CLUSTER, parsePair, problemsOf } from '../fixtures/index.js';

/** MODELS with `extra` in its one model's entry (MODELS ends inside it, at line 7). */
const load = (extra: string) => parsePair(TINY_CLUSTER, MODELS + extra);
const errors = (extra: string) => problemsOf(TINY_CLUSTER, MODELS + extra);

function keys(extra: string) {
  const r = load(extra);
  if (!r.ok) throw new Error(r.errors.map(formatProblem).join('\n'));
  const m = r.config.models[0]!;
  return {
    maxModelLen: m.maxModelLen,
    gpuMemoryUtilization: m.gpuMemoryUtilization,
    kvCacheDtype: m.kvCacheDtype,
    weightsBytes: m.weightsBytes,
    spread: m.spread,
    survive: m.survive,
  };
}

test('unwritten: utilization 0.9, spread node, survive none; no length, dtype or size of its own', () => {
  assert.equal(keys(''), {
    maxModelLen: undefined,
    gpuMemoryUtilization: 0.9,
    kvCacheDtype: undefined,
    weightsBytes: undefined,
    spread: 'node',
    survive: 'none',
  });
});

test('written: each key is read as given', () => {
  const extra =
    '    maxModelLen: 32768\n    gpuMemoryUtilization: 0.85\n    kvCacheDtype: fp8\n    weightsBytes: 141107497984\n    spread: fabric\n    survive: node\n';
  assert.equal(keys(extra), {
    maxModelLen: 32768,
    gpuMemoryUtilization: 0.85,
    kvCacheDtype: 'fp8',
    weightsBytes: 141107497984,
    spread: 'fabric',
    survive: 'node',
  });
});

test('spread: none and survive: fabric are values of their own', () => {
  const k = keys('    spread: none\n    survive: fabric\n');
  assert.equal([k.spread, k.survive], ['none', 'fabric']);
});

test('out of range or unknown values are schema errors at their line', () => {
  assert.equal(errors('    gpuMemoryUtilization: 0\n'), ['models.yaml:8:27: models[0].gpuMemoryUtilization: must be > 0']);
  assert.equal(errors('    gpuMemoryUtilization: 1.5\n'), ['models.yaml:8:27: models[0].gpuMemoryUtilization: must be <= 1']);
  assert.equal(errors('    maxModelLen: 0\n'), ['models.yaml:8:18: models[0].maxModelLen: must be >= 1']);
  assert.equal(errors('    weightsBytes: 1.5\n'), ['models.yaml:8:19: models[0].weightsBytes: must be integer']);
  assert.equal(errors('    spread: rack\n').length, 1);
  assert.match(errors('    spread: rack\n')[0]!, /^models\.yaml:8:13: models\[0\]\.spread: must be one of/);
  assert.match(errors('    survive: zone\n')[0]!, /^models\.yaml:8:14: models\[0\]\.survive: must be one of/);
  assert.match(errors('    kvCacheDtype: int4\n')[0]!, /^models\.yaml:8:19: models\[0\]\.kvCacheDtype: must be one of/);
});

test.run();
