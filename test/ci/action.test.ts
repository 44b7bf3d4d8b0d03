// action.yml: its structure, the rules that keep a pull request's checkout out
// of the install, and its steps run by bash as a runner would (expressions
// filled in by hand) against a stand-in for GitHub's API.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { MARKER } from '../../src/ci/comment-body.js';
import { startFakeGitHub } from './fake-github.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}

interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;
const steps = action.runs.steps;
const runSteps = steps.filter((s) => s.run !== undefined);
const stepNamed = (id: string) => steps.find((s) => s.id === id || s.name === id)!;

test('a composite action with described inputs and outputs', () => {
  assert.is(action.runs.using, 'composite');
  assert.ok(action.name && action.description);
  assert.equal(Object.keys(action.inputs).sort(), ['base', 'check-survive', 'comment', 'node-version', 'repo', 'token']);
  for (const [name, input] of Object.entries(action.inputs)) assert.ok(input.description.length > 10, `${name} is described`);
  assert.is(action.inputs.repo!.default, '.');
  assert.is(action.inputs.token!.default, '${{ github.token }}');
  assert.is(action.outputs.valid!.value, '${{ steps.validate.outputs.valid }}');
});

test('every script step says its shell, and no script has an expression spliced into it (inputs come in as env)', () => {
  assert.ok(runSteps.length >= 5);
  for (const s of runSteps) {
    assert.is(s.shell, 'bash', s.name);
    assert.not.match(s.run!, /\$\{\{/, `${s.name}: an expression inside run`);
  }
});

test('every script step is valid bash', () => {
  for (const s of runSteps) {
    const r = spawnSync('bash', ['-n'], { input: s.run, encoding: 'utf8' });
    assert.is(r.status, 0, `${s.name}: ${r.stderr}`);
  }
});

test("llmgw is installed in the action's own directory, with a user config of its own, never in the checkout", () => {
  const install = runSteps.find((s) => /\bnpm\b/.test(s.run!))!;
  assert.is(install['working-directory'], '${{ github.action_path }}');
  assert.match(install.run!, /npm ci --prefix "\$GITHUB_ACTION_PATH" --userconfig "\$LLMGW_NPMRC"/);
  assert.match(install.env!.LLMGW_NPMRC!, /^\$\{\{ runner\.temp \}\}\//);
  for (const s of runSteps) {
    for (const line of s.run!.split('\n').filter((l) => /\b(npm|npx)\b/.test(l) && !l.trim().startsWith('#'))) {
      assert.match(line, /--prefix "\$GITHUB_ACTION_PATH"/, `${s.name}: npm outside the action's directory: ${line}`);
    }
    assert.not.match(s.run!, /\bnpx\b/, 'npx would resolve from the checkout');
    if (s['working-directory'] !== undefined) assert.is(s['working-directory'], '${{ github.action_path }}');
  }
});

test('the checkout is read as --repo only, by the llmgw of the action', () => {
  const validate = stepNamed('validate').run!;
  const plan = stepNamed('plan').run!;
  assert.match(validate, /node "\$GITHUB_ACTION_PATH\/dist\/src\/cli\/main\.js" validate --repo "\$LLMGW_REPO"/);
  assert.match(plan, /node "\$GITHUB_ACTION_PATH\/dist\/src\/cli\/main\.js" plan --repo "\$LLMGW_REPO" --base "\$LLMGW_BASE_REF" --format markdown/);
  assert.is(stepNamed('plan').if, "steps.validate.outputs.exit == '0'");
  // The files the steps run exist in the action's directory once it is built.
  for (const f of ['dist/src/cli/main.js', 'dist/src/ci/pr-comment.js']) assert.ok(existsSync(join(ROOT, f)), f);
});

test('every step output an expression reads is one a step of the action writes', () => {
  const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  for (const [, id, key] of text.matchAll(/steps\.([a-z-]+)\.outputs\.([a-z-]+)/g)) {
    const s = steps.find((x) => x.id === id);
    assert.ok(s, `no step ${id}`);
    assert.match(s.run ?? '', new RegExp(`echo "${key}=`), `step ${id} writes ${key}`);
  }
});

/** Fills in the expressions a step's env uses, as the runner would. */
function expand(value: string, ctx: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => ctx[expr] ?? '');
}

async function runStep(
  s: Step,
  ctx: Record<string, string>,
  base: Record<string, string>,
): Promise<{ code: number | null; out: string; outputs: Record<string, string> }> {
  const outFile = join(base.RUNNER_TEMP!, `out-${s.id ?? 'x'}-${Math.random()}`);
  writeFileSync(outFile, '');
  const env = { ...base, GITHUB_OUTPUT: outFile, ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, expand(v, ctx)])) };
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run!], { env, cwd: base.GITHUB_WORKSPACE });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const outputs = Object.fromEntries(
    readFileSync(outFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { code, out, outputs };
}

test('on an invalid config the steps validate, skip the plan, comment that it is invalid, and fail the job', async () => {
  const gh = await startFakeGitHub('acme/fleet');
  const work = mkdtempSync(join(tmpdir(), 'llmgw-action-'));
  try {
    writeFileSync(join(work, 'cluster.yaml'), 'apiVersion: llmgw/v1\nkind: Cluster\nname: bad\nnodes: nope\n');
    writeFileSync(join(work, 'models.yaml'), 'apiVersion: llmgw/v1\nkind: Models\nmodels: []\n');
    const base = {
      PATH: process.env.PATH!,
      HOME: work,
      RUNNER_TEMP: work,
      GITHUB_WORKSPACE: work,
      GITHUB_ACTION_PATH: ROOT.replace(/\/$/, ''),
      GITHUB_REPOSITORY: 'acme/fleet',
      GITHUB_API_URL: gh.api,
    };
    const ctx: Record<string, string> = {
      'inputs.repo': '.',
      'inputs.token': 'ghs_token',
      'github.event.pull_request.number': '12',
      'steps.base.outputs.ref': 'origin/main',
    };

    const v = await runStep(stepNamed('validate'), ctx, base);
    assert.is(v.code, 0, v.out);
    assert.is(v.outputs.valid, 'false');
    assert.is(v.outputs.exit, '1');
    assert.match(v.out, /cluster\.yaml:\d+:\d+: nodes/);
    ctx['steps.validate.outputs.exit'] = v.outputs.exit!;
    // The plan step's `if` is false: its outputs stay empty.
    const c = await runStep(stepNamed('Comment on the pull request'), ctx, base);
    assert.is(c.code, 0, c.out);
    assert.match(c.out, /^llmgw: posted the plan comment on acme\/fleet#12/m);
    const [comment] = gh.comments.get(12)!;
    assert.match(comment!.body, new RegExp(`^${MARKER}\\n### llmgw: the config is invalid\\n`));
    assert.match(comment!.body, /cluster\.yaml:\d+:\d+: nodes/);
    const f = await runStep(stepNamed('Fail when the config is invalid or there is no plan'), ctx, base);
    assert.is(f.code, 1);
    assert.match(f.out, /::error::llmgw: the config is invalid/);
  } finally {
    await gh.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('examples/ci uses the action after a checkout, with the permission to comment', () => {
  const wf = parse(readFileSync(join(ROOT, 'examples/ci/llmgw-plan.yml'), 'utf8')) as {
    on: Record<string, unknown>;
    permissions: Record<string, string>;
    jobs: Record<string, { steps: Step[] }>;
  };
  assert.ok('pull_request' in wf.on);
  assert.is(wf.permissions['pull-requests'], 'write');
  const [job] = Object.values(wf.jobs);
  const uses = job!.steps.map((s) => s.uses ?? '');
  assert.match(uses[0]!, /^actions\/checkout@v\d+$/);
  assert.ok(
    uses.some((u) => /\/llmgw@v\d/.test(u)),
    uses.join(', '),
  );
  assert.not.ok(
    job!.steps.some((s) => /\bnpm\b|\bnpx\b/.test(s.run ?? '')),
    'the workflow installs nothing itself',
  );
});

test.run();
