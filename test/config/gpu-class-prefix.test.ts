import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gpuClassOf } from '../../src/config/gpu-class.js';

test('NVIDIA is dropped only as the first word of the product name', () => {
  assert.is(gpuClassOf('XNVIDIA H100', []), 'XNVIDIA');
  assert.is(gpuClassOf('  NVIDIA H100', []), 'H100');
});

test.run();
