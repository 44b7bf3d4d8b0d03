// The answer check on the wire (docs/protocol.md#the-answer-check): what a
// start request carries of models.yaml's `check`, and which rank carries it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRequests, wireCheck } from '../../src/apply/agent-requests.js';
import type { CheckConfig } from '../../src/types/config.js';
import { fleet, pairConfig, PAIR_START } from './fixtures.js';

test('a case-insensitive check arrives as the pattern and the flag "i"; the timeout in whole seconds, rounded up', () => {
  assert.equal(wireCheck({ prompt: 'What is 2+2?', expect: { source: '\\b4\\b', flags: 'i' }, timeoutMs: 1_500 }), {
    prompt: 'What is 2+2?',
    expect: '\\b4\\b',
    flags: 'i',
    timeoutSeconds: 2,
  });
});

test('a case-sensitive check has no flags key at all; 30 s stays 30', () => {
  assert.equal(wireCheck({ prompt: 'Say OK', expect: { source: 'OK', flags: '' }, timeoutMs: 30_000 }), { prompt: 'Say OK', expect: 'OK', timeoutSeconds: 30 });
});

const CHECK: CheckConfig = { prompt: 'Say OK', expect: { source: 'OK', flags: '' }, timeoutMs: 20_000 };
test('only rank 0, which serves the endpoint, is asked for an answer; the other ranks carry no check', () => {
  const cfg = pairConfig({ check: CHECK });
  const reqs = startRequests(PAIR_START, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => [r.node, r.request.rank, r.request.check]),
    [
      ['g2', 0, { prompt: 'Say OK', expect: 'OK', timeoutSeconds: 20 }],
      ['g1', 1, undefined],
    ],
  );
  assert.not.ok('check' in reqs[1]!.request, 'no check key on rank 1');
});

test('a model without a check sends no check key on any rank', () => {
  const cfg = pairConfig({ check: null });
  const reqs = startRequests(PAIR_START, cfg, fleet(cfg, []));
  assert.equal(
    reqs.map((r) => 'check' in r.request),
    [false, false],
  );
});

test.run();
