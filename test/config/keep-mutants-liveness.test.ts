// liveness and quarantine as docs/config.md gives them: `defaults.liveness`
// over the built-in values and a model's own `liveness` over that, each key
// written winning and the others staying; `defaults.quarantine` and
// `quarantine.release` read as written.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/types/config.js';
import { TINY_CLUSTER } from '../fixtures/index.js';

function load(cluster: string, models: string): Config {
  const r = parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
    { env: { HOME: '/home/op', USER: 'op' } },
  );
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: plain, weights: org/m, engine: vllm, gpus: 2 }
  - { name: own, weights: org/m, engine: vllm, gpus: 2, liveness: { ejectFor: 45s } }
  - { name: every, weights: org/m, engine: vllm, gpus: 2, liveness: { consecutiveErrors: 2, stallAfter: 5s, ejectFor: 6s, replaceAfter: 7s } }
`;

test('defaults.liveness: each key written wins over the built-in value, the others stay; a model without liveness takes it whole', () => {
  const c = load(`${TINY_CLUSTER}defaults:\n  liveness: { consecutiveErrors: 9, replaceAfter: 10m }\n`, MODELS);
  const by = Object.fromEntries(c.models.map((m) => [m.name, m.liveness]));
  assert.equal(by.plain, { consecutiveErrors: 9, stallAfterMs: 60_000, ejectForMs: 30_000, replaceAfterMs: 600_000 });
  // A model's own key wins over defaults.liveness, which still gives the rest.
  assert.equal(by.own, { consecutiveErrors: 9, stallAfterMs: 60_000, ejectForMs: 45_000, replaceAfterMs: 600_000 });
  assert.equal(by.every, { consecutiveErrors: 2, stallAfterMs: 5_000, ejectForMs: 6_000, replaceAfterMs: 7_000 });
});

test('defaults.liveness with every key: all four taken, in milliseconds', () => {
  const c = load(`${TINY_CLUSTER}defaults:\n  liveness: { consecutiveErrors: 3, stallAfter: 90s, ejectFor: 1m, replaceAfter: 5m }\n`, MODELS);
  assert.equal(c.models[0]?.liveness, { consecutiveErrors: 3, stallAfterMs: 90_000, ejectForMs: 60_000, replaceAfterMs: 300_000 });
});

test('no defaults.liveness: a model liveness key over the built-in values', () => {
  const c = load(TINY_CLUSTER, MODELS);
  assert.equal(c.models[1]?.liveness, { consecutiveErrors: 5, stallAfterMs: 60_000, ejectForMs: 45_000, replaceAfterMs: 120_000 });
});

test('a liveness wait past 24d is an error at its key', () => {
  const r = parseConfig(
    { cluster: { name: 'cluster.yaml', text: `${TINY_CLUSTER}defaults:\n  liveness: { replaceAfter: 25d }\n` }, models: { name: 'models.yaml', text: MODELS } },
    { env: { HOME: '/home/op', USER: 'op' } },
  );
  assert.not.ok(r.ok);
  if (r.ok) return;
  assert.ok(
    r.errors.some((e) => e.path === 'defaults.liveness.replaceAfter' && e.message.includes('must be at most 24d')),
    JSON.stringify(r.errors),
  );
});

test('defaults.quarantine and quarantine.release as written', () => {
  const c = load(`${TINY_CLUSTER}defaults:\n  quarantine: 2h\nquarantine:\n  release: ["n1:3", "n2:0"]\n`, MODELS);
  assert.equal(c.cluster.quarantine, { durationMs: 7_200_000, release: ['n1:3', 'n2:0'] });
});

test.run();
