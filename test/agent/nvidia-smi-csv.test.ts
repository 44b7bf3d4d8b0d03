import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GPU_FALLBACK_FIELDS, GPU_FIELDS, gpuQueryArgs, parseGpuCsv } from '../../src/agent/nvidia-smi-csv.js';

const row = (cells: string[]) => cells.join(', ');
const healthy = ['0', 'GPU-aaaa', 'NVIDIA H100 80GB HBM3', '81559', '0', 'No', 'No'];

test('a healthy row becomes a GPU with index, uuid, name and memory', () => {
  const { gpus, warnings } = parseGpuCsv(row(healthy) + '\n', GPU_FIELDS);
  assert.equal(gpus, [{ index: 0, uuid: 'GPU-aaaa', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true }]);
  assert.equal(warnings, []);
});

test('the query asks for every health field, then the PCI bus id (for kernel-log Xids), as bare CSV values', () => {
  assert.equal(gpuQueryArgs(GPU_FIELDS), [
    '--query-gpu=index,uuid,name,memory.total,ecc.errors.uncorrected.volatile.total,retired_pages.pending,remapped_rows.failure,pci.bus_id',
    '--format=csv,noheader,nounits',
  ]);
  assert.equal(GPU_FALLBACK_FIELDS.at(-1), 'pci.bus_id', 'an old driver without row remapping still gives bus ids');
});

test("each row's bus id is kept by index, and a row of the seven health fields alone (an older fixture) still parses", () => {
  const text = [
    row(['0', 'GPU-a', 'NVIDIA H100', '81559', '0', 'No', 'No', '00000000:3B:00.0']),
    row(['1', 'GPU-b', 'NVIDIA H100', '81559', '0', 'No', 'No']),
  ].join('\n');
  const { gpus, busIds } = parseGpuCsv(text, GPU_FIELDS);
  assert.equal(
    gpus.map((g) => [g.index, g.healthy]),
    [
      [0, true],
      [1, true],
    ],
  );
  assert.equal([...busIds], [[0, '00000000:3B:00.0']]);
});

test('uncorrectable ECC errors make a GPU unhealthy', () => {
  const { gpus } = parseGpuCsv(row(['3', 'GPU-b', 'NVIDIA A100-SXM4-80GB', '81920', '2', 'No', 'No']), GPU_FIELDS);
  assert.is(gpus[0]?.healthy, false);
  assert.is(gpus[0]?.reason, 'uncorrectable ECC errors: 2');
});

test('pending retired pages make a GPU unhealthy', () => {
  const { gpus } = parseGpuCsv(row(['0', 'GPU-b', 'Tesla V100', '16384', '0', 'Yes', '[N/A]']), GPU_FIELDS);
  assert.is(gpus[0]?.healthy, false);
  assert.is(gpus[0]?.reason, 'retired pages pending (needs a GPU reset)');
});

test('a remapped-row failure (Yes or a count) makes a GPU unhealthy', () => {
  for (const v of ['Yes', '1']) {
    const { gpus } = parseGpuCsv(row(['0', 'GPU-b', 'NVIDIA H100', '81559', '0', 'No', v]), GPU_FIELDS);
    assert.is(gpus[0]?.healthy, false, v);
    assert.is(gpus[0]?.reason, 'row remapping failed');
  }
});

test('a GPU nvidia-smi reports in error is unhealthy, with the error in the reason', () => {
  const { gpus } = parseGpuCsv(row(['1', 'GPU-c', 'NVIDIA H100', '81559', '[GPU requires reset]', '[GPU requires reset]', 'ERR!']), GPU_FIELDS);
  assert.is(gpus[0]?.healthy, false);
  assert.is(gpus[0]?.reason, 'nvidia-smi reports it in error: [GPU requires reset], ERR!');
});

test('[N/A] and [Not Supported] mean unknown, not unhealthy', () => {
  const { gpus } = parseGpuCsv(row(['0', 'GPU-d', 'NVIDIA GeForce RTX 4090', '[N/A]', '[N/A]', '[Not Supported]', '[Not Supported]']), GPU_FIELDS);
  assert.equal(gpus, [{ index: 0, uuid: 'GPU-d', name: 'NVIDIA GeForce RTX 4090', healthy: true }]);
});

test('several problems are all named in the reason', () => {
  const { gpus } = parseGpuCsv(row(['0', 'GPU-e', 'NVIDIA H100', '81559', '5', 'Yes', 'Yes']), GPU_FIELDS);
  assert.is(gpus[0]?.reason, 'uncorrectable ECC errors: 5; retired pages pending (needs a GPU reset); row remapping failed');
});

test('a line that is not a GPU row is a warning and the other GPUs are still reported', () => {
  const text = [row(healthy), 'Unable to determine the device handle for GPU0000:04:00.0: Unknown Error', row(['2', ...healthy.slice(1)])].join('\n');
  const { gpus, warnings } = parseGpuCsv(text, GPU_FIELDS);
  assert.equal(
    gpus.map((g) => g.index),
    [0, 2],
  );
  assert.equal(warnings, ['nvidia-smi: unexpected line: Unable to determine the device handle for GPU0000:04:00.0: Unknown Error']);
});

test('rows are sorted by index and the fallback field list parses without remapped rows', () => {
  const text = [row(['1', 'GPU-1', 'Tesla V100', '16384', '0', 'No']), row(['0', 'GPU-0', 'Tesla V100', '16384', '0', 'No'])].join('\n');
  const { gpus } = parseGpuCsv(text, GPU_FALLBACK_FIELDS);
  assert.equal(
    gpus.map((g) => [g.index, g.healthy]),
    [
      [0, true],
      [1, true],
    ],
  );
});

test('a header line is skipped, units are tolerated, and a short row is read as the leading fields', () => {
  const text = ['index, uuid, name, memory.total [MiB]', '0, GPU-a, NVIDIA H100 80GB HBM3, 81559 MiB', '1, GPU-b, NVIDIA H100 80GB HBM3'].join('\n');
  const { gpus, warnings } = parseGpuCsv(text, GPU_FIELDS);
  assert.equal(gpus, [
    { index: 0, uuid: 'GPU-a', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true },
    { index: 1, uuid: 'GPU-b', name: 'NVIDIA H100 80GB HBM3', healthy: true },
  ]);
  assert.equal(warnings, []);
});

test.run();
