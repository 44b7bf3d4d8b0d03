import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'llmgw-validate-'));

function capture(cwd = repoRoot, env: NodeJS.ProcessEnv = { HOME: '/home/op' }) {
  return captureIo({ cwd, env });
}

/** A copy of examples/demo in a fresh directory, with models.yaml replaced (or removed). */
function demoWith(name: string, models: string | null): string {
  const dir = join(work, name);
  cpSync(join(repoRoot, 'examples', 'demo'), dir, { recursive: true });
  if (models === null) unlinkSync(join(dir, 'models.yaml'));
  else writeFileSync(join(dir, 'models.yaml'), models);
  return dir;
}

const NOTIFY_WARNING = 'warning: examples/demo/cluster.yaml:3:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody\n';

test('a valid repo prints one summary line to stdout, warnings to stderr, and exits 0', async () => {
  const c = capture();
  assert.is(await main(['validate', '--repo', 'examples/demo'], c.io), 0);
  assert.is(c.out(), 'examples/demo: valid (8 nodes, 5 models)\n');
  assert.is(c.err(), NOTIFY_WARNING);
});

test('file names are printed as the repo was given: --repo . prints bare names', async () => {
  const c = capture(join(repoRoot, 'examples', 'demo'));
  assert.is(await main(['validate'], c.io), 0);
  assert.is(c.out(), 'config: valid (8 nodes, 5 models)\n');
  assert.match(c.err(), /^warning: cluster\.yaml:3:1: /);
});

const oneLiners: [string, string | null, string][] = [
  ['a missing file', null, 'missing/models.yaml:1:1: no such file'],
  ['an empty file', '', 'empty/models.yaml:1:1: the file is empty; expected a mapping with apiVersion: llmgw/v1 and kind: Models'],
  ['malformed YAML', 'models: [a, b\n', 'malformed/models.yaml:1:9: unclosed bracket: the list that starts with [ here has no closing ]'],
  ['a file that is not a mapping', '- name: a\n', 'list/models.yaml:1:1: expected a mapping with apiVersion: llmgw/v1 and kind: Models, found a list'],
];
for (const [what, text, line] of oneLiners) {
  test(`${what} is one clear line on stderr and exit 1`, async () => {
    const name = line.split('/', 1)[0] ?? '';
    demoWith(name, text);
    const c = capture(work);
    assert.is(await main(['validate', '--repo', name], c.io), 1);
    assert.is(c.out(), '');
    const errors = c
      .err()
      .split('\n')
      .filter((l) => l && !l.startsWith('warning: '));
    assert.equal(errors, [line]);
  });
}

test('a repo directory that does not exist is one line and exit 1', async () => {
  const c = capture();
  assert.is(await main(['validate', '--repo', 'examples/no-such-dir'], c.io), 1);
  assert.is(c.err(), 'llmgw validate: examples/no-such-dir: no such directory\n');
});

test('an unknown option is a usage error, exit 1, no stack trace', async () => {
  const c = capture();
  assert.is(await main(['validate', '--bogus'], c.io), 1);
  assert.is(c.err().trim().split('\n').length, 1);
  assert.match(c.err(), /^llmgw validate: Unknown option '--bogus'/);
});

test('an unset ${VAR} is a warning that names the variable and keeps exit 0', async () => {
  const c = capture(repoRoot, { HOME: '/home/op' });
  assert.is(await main(['validate', '--repo', 'examples/large'], c.io), 0);
  assert.match(c.err(), /^warning: examples\/large\/cluster\.yaml:\d+:\d+: notify\.webhooks\[0\]\.url: environment variable LLMGW_WEBHOOK_URL is not set$/m);
});

test('a set ${VAR} never appears in any output', async () => {
  const secret = 'https://hooks.example/T0/B0/very-secret-token';
  const c = capture(repoRoot, { HOME: '/home/op', LLMGW_WEBHOOK_URL: secret, LLMGW_WEBHOOK_SECRET: 'hunter2', LLMGW_PAGER_URL: secret });
  assert.is(await main(['validate', '--repo', 'examples/large'], c.io), 0);
  assert.not.match(c.out() + c.err(), 'very-secret-token');
  assert.not.match(c.out() + c.err(), 'hunter2');
});

test('several mistakes are all reported, one line each, in file order', async () => {
  const dir = demoWith(
    'several',
    [
      'apiVersion: llmgw/v1',
      'kind: Models',
      'models:',
      '  - name: a',
      '    weights: w',
      '    engine: vlm',
      '    gpus: 0',
      '  - name: a',
      '    weights: w',
      '    engine: vllm',
      '    gpus: 1',
      '    replica: 2',
      '',
    ].join('\n'),
  );
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'several'], c.io), 1);
  assert.ok(dir);
  assert.equal(
    c
      .err()
      .split('\n')
      .filter((l) => l && !l.startsWith('warning: ')),
    [
      "several/models.yaml:6:13: models[0].engine: engine 'vlm' is not declared in cluster.yaml engines (did you mean 'vllm'?) (declared: vllm)",
      'several/models.yaml:7:11: models[0].gpus: must be >= 1',
      "several/models.yaml:8:11: models[1].name: duplicate model name 'a': already models[0]",
      "several/models.yaml:12:5: models[1].replica: unknown key 'replica' (did you mean 'replicas'?)",
    ],
  );
});

test('keys and values with ESC, CR and BEL reach the terminal escaped, never raw', async () => {
  demoWith(
    'hostile',
    [
      'apiVersion: llmgw/v1',
      'kind: Models',
      'models:',
      '  - name: "\x1b[31mred\x1b[0m"',
      '    weights: w',
      '    engine: "vllm\r\x07"',
      '    gpus: 1',
      '    "\x1b]0;owned\x07": 1',
      '',
    ].join('\n'),
  );
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'hostile'], c.io), 1);
  const out = c.out() + c.err();
  assert.not.match(out, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  assert.match(out, 'models[0]["\\u001b]0;owned\\u0007"]');
  assert.match(out, "engine 'vllm\\r\\x07' is not declared");
  assert.match(out, "unknown key '\\x1b]0;owned\\x07'");
});

test('an engine without allowArgs is one warning, however many models use it', async () => {
  const dir = demoWith('open-engine', null);
  cpSync(join(repoRoot, 'examples', 'demo', 'models.yaml'), join(dir, 'models.yaml'));
  const cluster = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
  writeFileSync(join(dir, 'cluster.yaml'), cluster.replace(/^ {4}allowArgs: .*\n/m, ''));
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'open-engine'], c.io), 0);
  assert.equal(
    c
      .err()
      .split('\n')
      .filter((l) => l.includes('allowArgs')),
    ['warning: open-engine/cluster.yaml:37:3: engines.vllm: no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)'],
  );
});

test('a gpuClass no GPU of the committed snapshot has is a warning with the classes seen; exit 0', async () => {
  const models = readFileSync(join(repoRoot, 'examples', 'demo', 'models.yaml'), 'utf8').replace('gpuClass: H100', 'gpuClass: H10O');
  demoWith('typo-class', models);
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'typo-class'], c.io), 0);
  assert.equal(
    c
      .err()
      .split('\n')
      .filter((l) => l.includes('gpuClass')),
    [
      "warning: typo-class/models.yaml:8:15: models[0].gpuClass: no GPU in typo-class/.llmgw/observed.json has class 'H10O' (did you mean 'H100'?); classes seen: H100, H200",
    ],
  );
});

test('without a committed snapshot a gpuClass is not judged', async () => {
  const models = readFileSync(join(repoRoot, 'examples', 'demo', 'models.yaml'), 'utf8').replace('gpuClass: H100', 'gpuClass: H10O');
  const dir = demoWith('no-snapshot', models);
  rmSync(join(dir, '.llmgw'), { recursive: true });
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'no-snapshot'], c.io), 0);
  assert.not.match(c.err(), 'gpuClass');
});

test('a symlinked cluster.yaml is one line and exit 1', async () => {
  const dir = demoWith('linked', readFileSync(join(repoRoot, 'examples', 'demo', 'models.yaml'), 'utf8'));
  unlinkSync(join(dir, 'cluster.yaml'));
  symlinkSync(join(repoRoot, 'examples', 'demo', 'cluster.yaml'), join(dir, 'cluster.yaml'));
  const c = capture(work);
  assert.is(await main(['validate', '--repo', 'linked'], c.io), 1);
  assert.equal(c.err().split('\n').filter(Boolean), [
    'linked/cluster.yaml:1:1: cluster.yaml is a symbolic link: llmgw reads only regular files from the config repo, and read nothing through it',
  ]);
});

test('--help names the new warnings', async () => {
  const c = capture();
  assert.is(await main(['validate', '--help'], c.io), 0);
  assert.match(c.out(), 'allowArgs');
  assert.match(c.out(), '.llmgw/observed.json');
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
