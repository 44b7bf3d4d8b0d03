// The fake GPUs of `llmgw demo --repo DIR`: what the committed snapshot saw,
// else a class the models ask for, named so gpuClasses maps it back.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gpuClassOf } from '../../src/config/gpu-class.js';
import { hardwareFor, productFor } from '../../src/demo/hardware.js';
import { config, down, gpus, model, nodeConfig, report, snapshot, up } from '../fixtures/index.js';

test('a node the snapshot has seen gets the GPUs it reported, a broken card broken, a silent node its last report', () => {
  const c = config([nodeConfig('a1'), nodeConfig('a2'), nodeConfig('a3')], {}, [model('m', { gpuClass: 'A100' })]);
  const snap = snapshot([up('a1', report(gpus(4, 'NVIDIA L40S', [2]))), down('a2', null, report(gpus(2, 'NVIDIA H200')))]);
  const hw = hardwareFor(c, snap);
  const a1 = hw(c.cluster.nodes[0]!);
  assert.equal(
    a1.map((g) => [g.name, g.unhealthy ?? null]),
    [
      ['NVIDIA L40S', null],
      ['NVIDIA L40S', null],
      ['NVIDIA L40S', 'ecc'],
      ['NVIDIA L40S', null],
    ],
  );
  assert.equal(
    hw(c.cluster.nodes[1]!).map((g) => g.name),
    ['NVIDIA H200', 'NVIDIA H200'],
  );
  assert.equal(new Set(hw(c.cluster.nodes[2]!).map((g) => g.name)), new Set(['NVIDIA A100']), 'unseen: the class its models ask for');
  assert.is(new Set(a1.map((g) => g.uuid)).size, 4, 'distinct uuids');
});

test('without a snapshot each fabric gets one class the models ask for, in turn; node by node when classes outnumber fabrics', () => {
  const nodes = [nodeConfig('a1'), nodeConfig('a2', { fabric: 'ib-a' }), nodeConfig('b1', { fabric: 'ib-b' }), nodeConfig('b2', { fabric: 'ib-b' })];
  const two = config(nodes, {}, [model('x', { gpuClass: 'A100' }), model('y', { gpuClass: 'L40S', gpus: 16 })]);
  const hw = hardwareFor(two, null);
  const cls = (n: number) => gpuClassOf(hw(nodes[n]!)[0]!.name, []);
  assert.equal([cls(0), cls(1), cls(2), cls(3)], ['A100', 'A100', 'L40S', 'L40S']);
  assert.is(hw(nodes[0]!).length, 16, 'as many GPUs as the largest model needs on one node');
  const three = config(nodes, {}, [model('x', { gpuClass: 'A100' }), model('y', { gpuClass: 'L40S' }), model('z', { gpuClass: 'H100' })]);
  const hw3 = hardwareFor(three, null);
  assert.equal(
    nodes.map((n) => gpuClassOf(hw3(n)[0]!.name, [])),
    ['A100', 'L40S', 'A100', 'L40S'],
  );
  const none = config(nodes, {}, [model('x')]);
  assert.equal(
    nodes.map((n) => gpuClassOf(hardwareFor(none, null)(n)[0]!.name, [])),
    ['H100', 'H100', 'H200', 'H200'],
    "no class asked for: the demo's H100 and H200",
  );
});

test('a class named by a gpuClasses glob gets a product name that glob maps back to it', () => {
  const c = config(
    [nodeConfig('a1')],
    {
      gpuClasses: [
        { name: 'big', glob: 'NVIDIA H100*' },
        { name: 'fast', glob: '*L40?' },
      ],
    },
    [],
  );
  assert.is(gpuClassOf(productFor('big', c), c.cluster.gpuClasses), 'big');
  assert.is(gpuClassOf(productFor('fast', c), c.cluster.gpuClasses), 'fast');
  assert.is(productFor('A100', c), 'NVIDIA A100');
});

test.run();
