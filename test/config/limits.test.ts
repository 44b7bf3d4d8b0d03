// Inputs that used to crash, hang or be planned wrong (issue #16 points 6, 7):
// each is now one clear line. Timings live in bench/config.ts, not here.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { ONE_GPU_MODELS, TINY_CLUSTER, problemsOf } from '../fixtures/index.js';

const errors = (cluster: string, models = ONE_GPU_MODELS) => problemsOf(cluster, models);

const INF = 'must be a finite number; this is infinite (.inf, or a number too large to hold)';

test('gpus: .inf, replicas: 1e999 and priority: .nan are errors, not planned as 1', () => {
  assert.equal(errors(TINY_CLUSTER, ONE_GPU_MODELS.replace('gpus: 1 }', 'gpus: .inf, replicas: 1e999, priority: .nan, nodes: -.inf }')), [
    `models.yaml:4:52: models[0].gpus: ${INF}`,
    `models.yaml:4:68: models[0].replicas: ${INF}`,
    'models.yaml:4:85: models[0].priority: must be a finite number; this is not a number (.nan)',
    'models.yaml:4:98: models[0].nodes: must be a finite number; this is infinite (-.inf, or a number too large to hold)',
  ]);
});

test('a non-finite number is an error wherever it is: a fraction, a port, a rate', () => {
  const cluster = TINY_CLUSTER + 'safety: { maxStopFraction: .nan, minReachableFraction: .inf }\nssh: { port: 1e400 }\n';
  assert.equal(errors(cluster), [
    'cluster.yaml:9:28: safety.maxStopFraction: must be a finite number; this is not a number (.nan)',
    `cluster.yaml:9:56: safety.minReachableFraction: ${INF}`,
    `cluster.yaml:10:14: ssh.port: ${INF}`,
  ]);
  assert.equal(errors(TINY_CLUSTER, ONE_GPU_MODELS.replace('gpus: 1 }', 'gpus: 1, rollout: { maxErrorRate: .nan } }')), [
    'models.yaml:4:80: models[0].rollout.maxErrorRate: must be a finite number; this is not a number (.nan)',
  ]);
});

test('integers are whole numbers within their range', () => {
  assert.equal(errors(TINY_CLUSTER, ONE_GPU_MODELS.replace('gpus: 1 }', 'gpus: 1.5, replicas: 100001, priority: 12345678901234567890 }')), [
    'models.yaml:4:52: models[0].gpus: must be integer',
    'models.yaml:4:67: models[0].replicas: must be <= 100000',
    'models.yaml:4:85: models[0].priority: must be <= 1000000000',
  ]);
});

test('more than 100,000 nodes in all is one error at the entry that passes the cap, and nothing is expanded', () => {
  const many = Array.from({ length: 300 }, (_, i) => `  - { name: "r${i}n[1-100000]", fabric: ib-a }`).join('\n');
  const out = errors(TINY_CLUSTER.replace('  - { name: "n[1-2]", fabric: ib-a }', many));
  assert.equal(out, [
    'cluster.yaml:7:13: nodes[1].name: the node entries expand to more than 100,000 nodes in all (reached at this entry); nothing was expanded',
  ]);
});

test('exactly 100,000 nodes in all is allowed', () => {
  const r = parseConfig(
    {
      cluster: { name: 'cluster.yaml', text: TINY_CLUSTER.replace('"n[1-2]"', '"a[1-50000],b[1-50000]"') },
      models: { name: 'models.yaml', text: ONE_GPU_MODELS },
    },
    { env: { HOME: '/h' } },
  );
  assert.ok(r.ok);
  assert.is(r.config.cluster.nodes.length, 100_000);
});

test('50,000 duplicate names are one error for the entry, counting them', () => {
  const twice = TINY_CLUSTER.replace(
    '  - { name: "n[1-2]", fabric: ib-a }',
    '  - { name: "gpu-b[1-50000]", fabric: ib-a }\n  - { name: "gpu-b[1-50000]", fabric: ib-a }',
  );
  assert.equal(errors(twice), ["cluster.yaml:7:13: nodes[1].name: duplicate node name 'gpu-b1' and 49999 more: already in nodes[0]"]);
});

test('a file over 4 MiB is refused before it is parsed', () => {
  const big = ONE_GPU_MODELS + `# ${'x'.repeat(4 * 1024 * 1024)}\n`;
  assert.equal(errors(TINY_CLUSTER, big), ['models.yaml:1:1: the file is 4,194,404 bytes; a config file may be at most 4 MiB']);
});

test('nesting deeper than 100 levels is refused while parsing', () => {
  assert.equal(errors(TINY_CLUSTER, ONE_GPU_MODELS + `x-deep: ${'['.repeat(1_000_000)}\n`), ['models.yaml:5:108: nested deeper than 100 levels']);
  assert.equal(errors(TINY_CLUSTER, `${ONE_GPU_MODELS}x-deep:\n${'- '.repeat(200)}x\n`), ['models.yaml:6:198: nested deeper than 100 levels']);
});

test('a billion-laughs alias tree is refused at the alias that passes the cap', () => {
  const levels = ['x-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    levels.push(`x-${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  }
  const [line] = errors(TINY_CLUSTER, `${ONE_GPU_MODELS}${levels.join('\n')}\n`);
  assert.match(line!, /^models\.yaml:1[0-3]:\d+: aliases \(\*name\) repeat too much: they may add at most 1,000,000 values \(1000 alias uses\)$/);
});

test("one big list repeated by many aliases is refused too (it is within yaml's alias count)", () => {
  const list = `x-big: &big [${Array(20_000).fill('1').join(',')}]`;
  const uses = Array.from({ length: 60 }, (_, i) => `x-u${i}: *big`).join('\n');
  const [line] = errors(TINY_CLUSTER, `${ONE_GPU_MODELS}${list}\n${uses}\n`);
  assert.match(line!, /^models\.yaml:\d+:\d+: aliases \(\*name\) repeat too much/);
});

test('an alias inside the node its anchor marks is an error, not circular data', () => {
  assert.equal(errors(TINY_CLUSTER, `${ONE_GPU_MODELS}x-loop: &loop [1, *loop]\n`), [
    'models.yaml:5:19: an alias (*name) inside the node its anchor (&name) marks: that would repeat for ever',
  ]);
});

test('did-you-mean is not computed for long words or huge lists (bounded work), and still works for typos', () => {
  const fabrics = Array.from({ length: 1500 }, (_, i) => `f${i}`);
  const cluster = TINY_CLUSTER.replace('fabrics: [ib-a]', `fabrics: [ib-a, ${fabrics.join(', ')}]`).replace('fabric: ib-a }', 'fabric: ib-b }');
  assert.equal(errors(cluster), ["cluster.yaml:6:31: nodes[0].fabric: fabric 'ib-b' is not declared in fabrics"]);
  assert.equal(errors(TINY_CLUSTER.replace('fabric: ib-a }', 'fabric: ib-b }')), [
    "cluster.yaml:6:31: nodes[0].fabric: fabric 'ib-b' is not declared in fabrics (did you mean 'ib-a'?)",
  ]);
});

test.run();
