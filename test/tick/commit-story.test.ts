// `git log --oneline` of a fleet's life reads as what happened
// (docs/status.md#commits): a scripted sequence of real ticks on a
// real git repo — start, a node refusing, its cause changing to network, the
// node lost and its replica moved, the node back and its surplus copy
// drained and stopped, a model woken by waiting requests — and the subject of every
// commit it made, in order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { SshError, type SshErrorKind } from '../../src/errors.js';
import { tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';

const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 8, replicas: 2 }
  - { name: od, weights: org/od, engine: vllm, gpus: 1, replicas: { min: 0, max: 2 } }
`;

test('the commits of node refused, network, lost, back and a scale say so, one subject each, and list the actions in the body', async () => {
  const down = new Map<string, SshErrorKind>();
  let waiting = 0;
  const w = await tickWorld({
    cluster: tickClusterYaml({ nodes: 3, routers: ['rt-1'], extra: ['lostAfter: 10m'] }),
    models: MODELS,
    nodes: tickNodes(3),
    prefix: 'story',
    transport: (inner) => ({
      async run(target, command, input) {
        const kind = down.get(target.name);
        if (kind !== undefined) throw new SshError(kind, target.name, `${target.name}: ${kind}`);
        const out = await inner.run(target, command, input);
        if (!command.endsWith('router usage') || waiting === 0) return out;
        const usage = JSON.parse(out) as Record<string, unknown>;
        return JSON.stringify({ ...usage, waiting: { od: { count: waiting, oldest: '2026-11-29T08:20:00Z' } } }) + '\n';
      },
      close: async () => undefined,
    }),
  });
  try {
    await w.tick(0);
    const m0 = [...w.canned.replicas].find(([, list]) => list.some((r) => r.id === 'm-0'))![0];
    await w.tick(1); // seen running
    down.set(m0, 'refused');
    await w.tick(2);
    down.set(m0, 'unreachable');
    await w.tick(3);
    await w.tick(14); // past lostAfter
    await w.tick(15); // the moved replica seen running
    down.delete(m0);
    await w.tick(16); // its copy of m-0 is surplus now: drained first
    await w.tick(17); // then stopped
    waiting = 12;
    await w.tick(18);

    const log = (await git(w.dir, ['log', '--reverse', '--format=%s'])).split('\n');
    assert.equal(log, [
      'seed',
      'llmgw: started m ×2 (t)',
      'llmgw: m ×2 running (t)',
      `llmgw: ${m0} unreachable (refused) (t)`,
      `llmgw: ${m0} unreachable (network, was refused) (t)`,
      `llmgw: ${m0} lost; moved m (t)`,
      'llmgw: m running (t)',
      `llmgw: ${m0} back; draining m (t)`,
      'llmgw: stopped m (t)',
      'llmgw: scale od 0→1 (12 waiting at rt-1); started od (t)',
    ]);
    const first = await git(w.dir, ['log', '--format=%b', '-1', 'HEAD~8']);
    assert.match(first, /^start m-0 on g\d \[0-7\]\nstart m-1 on g\d \[0-7\]/);
    assert.match(await git(w.dir, ['log', '-1', '--format=%b']), /^start od-0 on g\d \[0\]$/m);
  } finally {
    await w.close();
  }
});

test.run();
