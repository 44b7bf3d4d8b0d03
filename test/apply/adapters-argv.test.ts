// LoRA adapters on the wire (docs/config.md#on-demand-models): `{adapters}` alone
// becomes one argv element per adapter, `name=<path>`, and nothing with none; in a
// longer element it is a validation error; adapters are part of the spec only when present.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandArgv } from '../../src/apply/agent-requests.js';
import { replicaSpec } from '../../src/plan/spec.js';
import { ENGINE, MODELS, TINY_CLUSTER, planModel, problemsOf } from '../fixtures/index.js';

test('{adapters} is one element per adapter, and none without adapters', () => {
  const t = ['vllm', '--lora-modules', '{adapters}', '--port', '{port}'];
  assert.equal(expandArgv(t, { port: '8000' }, ['sql=/models/org/sql', 'chat=/models/org/chat']), [
    'vllm',
    '--lora-modules',
    'sql=/models/org/sql',
    'chat=/models/org/chat',
    '--port',
    '8000',
  ]);
  assert.equal(expandArgv(t, { port: '8000' }), ['vllm', '--lora-modules', '--port', '8000']);
});

test('{adapters} inside a longer element is refused', () => {
  assert.equal(problemsOf(TINY_CLUSTER, MODELS + '    args: ["--lora-modules={adapters}"]\n'), [
    'models.yaml:8:12: models[0].args[0]: {adapters} must be an argv element of its own (it becomes one element per adapter)',
  ]);
});

test('a model without adapters keeps its spec; adding one changes it', () => {
  const m = planModel({ name: 'm' }, 0);
  const before = replicaSpec(m, ENGINE);
  assert.is(replicaSpec({ ...m, adapters: [] }, ENGINE), before);
  assert.is.not(replicaSpec({ ...m, adapters: [{ name: 'a', weights: 'org/a' }] }, ENGINE), before);
});

test.run();
