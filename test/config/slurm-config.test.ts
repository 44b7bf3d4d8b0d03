// cluster.yaml `slurm:` (docs/slurm.md, docs/config.md): its defaults (mode
// observe, yield false, port ssh.port), the Slurm names that reach sbatch's
// command line refused in one clear line unless they are [A-Za-z0-9._-]+,
// `mode: jobs` without a partition refused, `slurmName` mapping nodes (and two
// nodes on one Slurm node refused), and `llmgw validate` printing the same.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { formatProblem } from '../../src/errors.js';
import { captureIo } from '../helpers/io.js';
import { CLUSTER, ONE_GPU_MODELS, parsePair } from '../fixtures/index.js';

function load(cluster: string) {
  const r = parsePair(cluster, ONE_GPU_MODELS);
  return { r, errors: r.ok ? [] : r.errors.map(formatProblem), warnings: r.warnings.map(formatProblem).filter((w) => !w.includes('notify.webhooks')) };
}

test('slurm: with a host alone is observe mode, yield off, the ssh port, no names mapped', () => {
  const { r, errors } = load(CLUSTER + 'ssh: { port: 2222 }\nslurm:\n  host: slurm-ctl\n');
  assert.equal(errors, []);
  if (r.ok) assert.equal(r.config.cluster.slurm, { host: 'slurm-ctl', port: 2222, mode: 'observe', yield: false, names: {} });
});

test('a repo without slurm: has no slurm config at all', () => {
  const { r, errors } = load(CLUSTER);
  assert.equal(errors, []);
  if (r.ok) assert.is('slurm' in r.config.cluster, false);
});

test('every key is kept as written: jobs mode with partition, account, qos, reservation, port and yield', () => {
  const { r, errors } = load(
    CLUSTER +
      'slurm:\n  host: ctl.example\n  port: 22022\n  partition: gpu\n  account: ml-team\n  qos: high.prio\n  reservation: llmgw_serve\n  mode: jobs\n  yield: true\n',
  );
  assert.equal(errors, []);
  if (r.ok)
    assert.equal(r.config.cluster.slurm, {
      host: 'ctl.example',
      port: 22022,
      mode: 'jobs',
      yield: true,
      names: {},
      partition: 'gpu',
      account: 'ml-team',
      qos: 'high.prio',
      reservation: 'llmgw_serve',
    });
});

test('account, qos, reservation and partition outside [A-Za-z0-9._-]+ are one clear line each, at the value', () => {
  for (const key of ['partition', 'account', 'qos', 'reservation']) {
    for (const bad of ['"gpu --qos=x"', '"a;b"', '"$(id)"', '""', '"a\\nb"']) {
      const { errors } = load(CLUSTER + `slurm:\n  host: ctl\n  ${key}: ${bad}\n`);
      const col = 5 + key.length;
      assert.equal(errors, [`cluster.yaml:13:${col}: slurm.${key}: must be a Slurm name: letters, digits, ".", "_" or "-"`], `${key}: ${bad}`);
    }
  }
});

test('mode jobs without a partition is refused at mode, saying what the partition is for', () => {
  const { errors } = load(CLUSTER + 'slurm:\n  host: ctl\n  mode: jobs\n');
  assert.equal(errors, ['cluster.yaml:13:9: slurm.mode: mode jobs needs slurm.partition: the partition llmgw submits its jobs to']);
});

test('slurm: needs a host; an unknown key and an unknown mode are refused', () => {
  assert.equal(load(CLUSTER + 'slurm:\n  partition: gpu\n').errors.length, 1);
  assert.match(load(CLUSTER + 'slurm:\n  partition: gpu\n').errors[0] ?? '', /^cluster\.yaml:1[12]:\d+: slurm: .*host/);
  assert.equal(load(CLUSTER + 'slurm:\n  host: ctl\n  partitions: gpu\n').errors.length, 1);
  assert.match(load(CLUSTER + 'slurm:\n  host: ctl\n  partitions: gpu\n').errors[0] ?? '', /slurm\.partitions: .*partition/);
  assert.match(load(CLUSTER + 'slurm:\n  host: ctl\n  mode: batch\n').errors[0] ?? '', /^cluster\.yaml:13:9: slurm\.mode: must be one of/);
});

test('slurmName maps each expanded node, {name} replaced; a name equal to the node is not listed', () => {
  const cluster = CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: "{name}.cluster"\n') + 'slurm: { host: ctl }\n';
  const { r, errors } = load(cluster);
  assert.equal(errors, []);
  if (r.ok) assert.equal(r.config.cluster.slurm?.names, { 'gpu-a01': 'gpu-a01.cluster', 'gpu-a02': 'gpu-a02.cluster' });
  const same = load(CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: "{name}"\n') + 'slurm: { host: ctl }\n');
  if (same.r.ok) assert.equal(same.r.config.cluster.slurm?.names, {});
});

test('two nodes that map to one Slurm node are refused; a slurmName with a space or an unknown placeholder is refused', () => {
  const one = CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: n1\n') + 'slurm: { host: ctl }\n';
  assert.equal(load(one).errors, ["cluster.yaml:8:16: nodes[0].slurmName: Slurm node 'n1' is already node 'gpu-a01'"]);
  const spaced = CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: "{name} b"\n') + 'slurm: { host: ctl }\n';
  assert.equal(load(spaced).errors, [
    'cluster.yaml:8:16: nodes[0].slurmName: must be a Slurm node name: letters, digits, ".", "_" or "-", and {name} for the expanded name',
  ]);
  const placeholder = CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: "{host}"\n') + 'slurm: { host: ctl }\n';
  assert.is(load(placeholder).errors.length, 1);
  assert.match(load(placeholder).errors[0] ?? '', /^cluster\.yaml:8:16: nodes\[0\]\.slurmName: .*\{host\}/);
});

test('slurmName without slurm: is a warning, not an error', () => {
  const { errors, warnings } = load(CLUSTER.replace('    fabric: ib-a\n', '    fabric: ib-a\n    slurmName: n1\n'));
  assert.equal(errors, []);
  assert.equal(warnings, ['cluster.yaml:8:5: nodes[0].slurmName: slurmName has no effect without slurm:']);
});

test('llmgw validate prints a bad Slurm account as one line and exits 1', async () => {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const work = mkdtempSync(join(tmpdir(), 'llmgw-slurm-validate-'));
  const dir = join(work, 'repo');
  cpSync(join(repoRoot, 'examples', 'demo'), dir, { recursive: true });
  const text = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
  writeFileSync(join(dir, 'cluster.yaml'), text + 'slurm:\n  host: slurm-ctl\n  account: "ml team"\n');
  const c = captureIo({ cwd: dir, env: { HOME: '/home/op' } });
  const code = await main(['validate'], c.io);
  rmSync(work, { recursive: true, force: true });
  assert.is(code, 1);
  const lines = c
    .err()
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('warning: '));
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /^cluster\.yaml:\d+:12: slurm\.account: must be a Slurm name: letters, digits, "\.", "_" or "-"$/);
});

test.run();
