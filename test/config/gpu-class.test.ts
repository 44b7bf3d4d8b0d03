import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gpuClassOf } from '../../src/config/gpu-class.js';
import { MODELS, STORAGE_CLUSTER, replaced, validConfig } from '../fixtures/index.js';

test('without rules: NVIDIA dropped, cut at the first space or hyphen (docs/config.md examples)', () => {
  assert.is(gpuClassOf('NVIDIA H100 80GB HBM3', []), 'H100');
  assert.is(gpuClassOf('NVIDIA A100-SXM4-80GB', []), 'A100');
  assert.is(gpuClassOf('NVIDIA H200', []), 'H200');
  assert.is(gpuClassOf('Tesla V100-SXM2-32GB', []), 'Tesla');
  assert.is(gpuClassOf('NVIDIA L40S', []), 'L40S');
});

test('the first matching glob wins', () => {
  const rules = [
    { name: 'H100-PCIe', glob: 'NVIDIA H100 PCIe*' },
    { name: 'H100', glob: 'NVIDIA H100*' },
  ];
  assert.is(gpuClassOf('NVIDIA H100 PCIe', rules), 'H100-PCIe');
  assert.is(gpuClassOf('NVIDIA H100 80GB HBM3', rules), 'H100');
});

test('? matches one character and the glob must match the whole name', () => {
  const rules = [{ name: 'A10x', glob: 'NVIDIA A10?' }];
  assert.is(gpuClassOf('NVIDIA A10G', rules), 'A10x');
  assert.is(gpuClassOf('NVIDIA A100-SXM4-80GB', rules), 'A100');
});

test('glob characters other than * and ? are literal', () => {
  const rules = [{ name: 'odd', glob: 'GPU (rev.2)*' }];
  assert.is(gpuClassOf('GPU (rev.2) 16GB', rules), 'odd');
  assert.is(gpuClassOf('GPU (revX2) 16GB', rules), 'GPU');
});

test('no rule matching falls back to the derived class', () => {
  assert.is(gpuClassOf('NVIDIA H200 141GB', [{ name: 'H100', glob: 'NVIDIA H100*' }]), 'H200');
});

test('gpuClasses merged in with << follow the ones written, and the merge key is not a class', () => {
  const c = validConfig(replaced(STORAGE_CLUSTER, 'name: test', 'name: test\ngpuClasses:\n  <<: { A100: "*A100*" }\n  H100: "*H100*"'), MODELS);
  assert.equal(c.cluster.gpuClasses, [
    { name: 'H100', glob: '*H100*' },
    { name: 'A100', glob: '*A100*' },
  ]);
});

test('GPU class names: padding and doubled spaces in the product name do not matter; a nameless GPU is "unknown"', () => {
  assert.is(gpuClassOf('  NVIDIA H100 80GB HBM3  ', []), 'H100');
  assert.is(gpuClassOf('NVIDIA  H100 80GB HBM3', []), 'H100');
  assert.is(gpuClassOf('   ', []), 'unknown');
  assert.is(gpuClassOf('NVIDIA H100\nPCIe', [{ name: 'hopper', glob: 'NVIDIA H100*' }]), 'hopper', 'a glob matches across a line break');
});

test.run();
