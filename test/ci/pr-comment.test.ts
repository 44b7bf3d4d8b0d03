// The plan comment against a stand-in for GitHub's REST API on 127.0.0.1.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKER, MAX_COMMENT, commentBody, fitComment } from '../../src/ci/comment-body.js';
import { prComment } from '../../src/ci/pr-comment.js';
import { GitHubError } from '../../src/ci/github-comments.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';

const TOKEN = 'ghs_SECRETtoken123';
const SCRIPT = fileURLToPath(new URL('../../src/ci/pr-comment.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'llmgw-pr-comment-'));
let gh: FakeGitHub;

const PLAN = '### llmgw plan\n\n2 to start, 0 to stop.\n';
writeFileSync(
  join(dir, 'validate.txt'),
  'fleet: valid (8 nodes, 5 models)\nwarning: cluster.yaml:30:10: notify.webhooks[0].url: ${LLMGW_WEBHOOK_URL} is not set\n',
);
writeFileSync(join(dir, 'plan.md'), PLAN);
writeFileSync(join(dir, 'plan.err'), '');

/** The validate and plan steps' outputs as the action hands them over (both exited 0), with `more` before the plan's exit. */
function outputs(more: string[] = []): string[] {
  const files = ['--validate-output', join(dir, 'validate.txt'), '--validate-exit', '0', '--plan', join(dir, 'plan.md')];
  return [...files, ...more, '--plan-exit', '0'];
}

function run(extra: string[] = [], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const io = {
    env: { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: 'acme/fleet', GITHUB_API_URL: gh.api, ...env },
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  };
  const argv = [...outputs(['--plan-errors', join(dir, 'plan.err')]), '--pr', '7', ...extra];
  return prComment(argv, io).then((code) => ({ code, out, err }));
}

const others = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, body: `comment ${from + i}`, user: { login: `person${i % 3}`, type: 'User' as const } }));

test.before.each(async () => {
  gh = await startFakeGitHub();
});
test.after.each(async () => {
  await gh.close();
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('no comment yet: one is created, marked, holding the plan and the validate warnings, sent with the token', async () => {
  const r = await run();
  assert.is(r.code, 0);
  const [c] = gh.comments.get(7)!;
  assert.ok(c!.body.startsWith(`${MARKER}\n### llmgw plan\n`));
  assert.match(c!.body, /<details><summary>llmgw validate: 1 warning<\/summary>/);
  assert.match(c!.body, /LLMGW_WEBHOOK_URL/);
  assert.equal(
    gh.seen.map((s) => `${s.method} ${s.path}`),
    ['GET /repos/acme/fleet/issues/7/comments?per_page=100', 'POST /repos/acme/fleet/issues/7/comments'],
  );
  assert.ok(gh.seen.every((s) => s.authorization === `Bearer ${TOKEN}`));
  assert.is(r.out, `llmgw: posted the plan comment on acme/fleet#7: https://github.example/c/${c!.id}\n`);
  assert.not.match(r.out + r.err, TOKEN);
});

test('the next push updates that same comment in place: still one comment from llmgw', async () => {
  await run();
  writeFileSync(join(dir, 'plan.md'), '### llmgw plan\n\n1 to start.\n');
  try {
    const r = await run();
    assert.is(r.code, 0);
    const ours = gh.comments.get(7)!;
    assert.is(ours.length, 1);
    assert.match(ours[0]!.body, /1 to start\./);
    assert.equal(gh.seen.at(-1)!.method, 'PATCH');
    assert.is(gh.seen.at(-1)!.path, `/repos/acme/fleet/issues/comments/${ours[0]!.id}`);
    assert.match(r.out, /^llmgw: updated the plan comment/);
  } finally {
    writeFileSync(join(dir, 'plan.md'), PLAN);
  }
});

test('the marked comment is found among 250 others on the third page of comments', async () => {
  const ours = { id: 9999, body: `${MARKER}\nold plan`, user: { login: 'github-actions[bot]', type: 'Bot' as const } };
  gh.comments.set(7, [...others(220), ours, ...others(30, 221)]);
  const r = await run();
  assert.is(r.code, 0);
  assert.equal(
    gh.seen.map((s) => `${s.method} ${s.path}`),
    [
      'GET /repos/acme/fleet/issues/7/comments?per_page=100',
      'GET /repos/acme/fleet/issues/7/comments?per_page=100&page=2',
      'GET /repos/acme/fleet/issues/7/comments?per_page=100&page=3',
      'PATCH /repos/acme/fleet/issues/comments/9999',
    ],
  );
  assert.is(gh.comments.get(7)!.length, 251);
  assert.match(ours.body, /2 to start/);
});

test('a person quoting the marker does not make their comment ours: a new one is posted, theirs untouched', async () => {
  const theirs = { id: 5, body: `${MARKER}\nlook at this`, user: { login: 'mallory', type: 'User' as const } };
  gh.comments.set(7, [theirs]);
  await run();
  assert.is(theirs.body, `${MARKER}\nlook at this`);
  assert.is(gh.comments.get(7)!.length, 2);
});

test('an invalid config: the comment says so and lists the errors inside a fence nothing in them can close', async () => {
  writeFileSync(join(dir, 'invalid.txt'), 'fleet/models.yaml:14:11: models[2].gpus: must be >= 1\nfleet/models.yaml:20:5: ```injected``` <img src=x>\n');
  const r = await run(['--validate-output', join(dir, 'invalid.txt'), '--validate-exit', '1', '--plan-exit', '0']);
  assert.is(r.code, 0);
  const body = gh.comments.get(7)![0]!.body;
  assert.match(body, /^<!-- llmgw-plan -->\n### llmgw: the config is invalid\n/);
  assert.match(body, /\n````text\nfleet\/models\.yaml:14:11: models\[2\]\.gpus: must be >= 1\nfleet\/models\.yaml:20:5: ```injected``` <img src=x>\n````/);
});

test('a plan that fails says so with its error', () => {
  const body = commentBody({ validateOutput: 'ok\n', validateExit: 0, plan: { markdown: '', errors: 'llmgw plan: origin/main is not a ref\n', exit: 1 } });
  assert.match(body, /### llmgw: no plan\n\nThe config is valid, but no plan could be made:\n\n```text\nllmgw plan: origin\/main is not a ref\n```/);
});

test('a body over the limit is cut at a line, the open fence and details closed, with a note that it was cut', async () => {
  const rows = Array.from({ length: 4000 }, (_, i) => `| start | model-${i} | gpu-a${String(i).padStart(4, '0')} | 0,1,2,3 |`).join('\n');
  const big = `### llmgw plan\n\n<details><summary>argv</summary>\n\n\`\`\`\n${rows}\n\`\`\`\n\n</details>\n`;
  assert.ok(big.length > 100_000);
  writeFileSync(join(dir, 'big.md'), big);
  const r = await run(['--plan', join(dir, 'big.md'), '--base', 'origin/main']);
  assert.is(r.code, 0);
  const body = gh.comments.get(7)![0]!.body;
  assert.ok(body.length <= MAX_COMMENT, `${body.length}`);
  assert.ok(body.length > MAX_COMMENT - 200, 'cut near the limit, not far before it');
  assert.match(
    body,
    /\n\| start \| model-\d+ \| gpu-a\d{4} \| 0,1,2,3 \|\n```\n<\/details>\n\n> \*\*Cut here:\*\* the plan is longer than one comment may be; run `llmgw plan --base origin\/main` for all of it\.\n$/,
  );
});

test('fitComment leaves a body within the limit as it is', () => {
  assert.is(fitComment('short\n', 'note', 100), 'short\n');
  const cut = fitComment('a\n'.repeat(100), 'note', 50);
  assert.ok(cut.length <= 50);
  assert.match(cut, /^(a\n)+\n> \*\*Cut here:\*\* note\n$/);
});

test('GitHub refusing is one error naming the call and status, never the token', async () => {
  gh.failWith = { status: 403, message: 'Resource not accessible by integration' };
  try {
    await run();
    assert.unreachable('should fail');
  } catch (err) {
    assert.instance(err, GitHubError);
    assert.is((err as Error).message, 'GET /repos/acme/fleet/issues/7/comments: HTTP 403 (Resource not accessible by integration)');
  }
});

test('a next page on another host is refused, and the token is never sent there', async () => {
  const elsewhere = await startFakeGitHub();
  try {
    gh.comments.set(7, others(150));
    gh.nextOverride = `${elsewhere.api}/repos/acme/fleet/issues/7/comments?page=2`;
    await run().then(
      () => assert.unreachable('should refuse'),
      (err: unknown) =>
        assert.match((err as Error).message, /^the next page of comments is on another host \(127\.0\.0\.1:\d+\); not sending the token there$/),
    );
    assert.equal(elsewhere.seen, []);
  } finally {
    await elsewhere.close();
  }
});

test('the pull request number comes from the event file when --pr is not given', async () => {
  writeFileSync(join(dir, 'event.json'), JSON.stringify({ pull_request: { number: 42 } }));
  const io = {
    env: { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: 'acme/fleet', GITHUB_API_URL: gh.api, GITHUB_EVENT_PATH: join(dir, 'event.json') },
    stdout: { write: () => true },
    stderr: { write: () => true },
  };
  assert.is(await prComment(['--validate-output', join(dir, 'validate.txt'), '--validate-exit', '1'], io), 0);
  assert.is(gh.comments.get(42)!.length, 1);
});

test('as a script: exit 0 with one line when posted; exit 1 with one line, no stack and no token, when it cannot', async () => {
  const env = { PATH: process.env.PATH!, GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: 'acme/fleet', GITHUB_API_URL: gh.api };
  const args = [SCRIPT, ...outputs(), '--pr', '3'];
  // spawnSync would block this process, and with it the fake server: run it asynchronously.
  const { spawn } = await import('node:child_process');
  const ran = (e: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const c = spawn(process.execPath, args, { env: e });
      let stdout = '';
      let stderr = '';
      c.stdout.on('data', (d) => (stdout += d));
      c.stderr.on('data', (d) => (stderr += d));
      c.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  const ok = await ran(env);
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^llmgw: posted the plan comment on acme\/fleet#3: /);
  gh.failWith = { status: 401, message: 'Bad credentials' };
  const bad = await ran(env);
  assert.is(bad.status, 1);
  assert.is(bad.stderr, 'llmgw pr-comment: GET /repos/acme/fleet/issues/3/comments: HTTP 401 (Bad credentials)\n');
  const none = spawnSync(process.execPath, args, { env: { PATH: env.PATH, GITHUB_REPOSITORY: 'acme/fleet' }, encoding: 'utf8' });
  assert.is(none.status, 1);
  assert.is(none.stderr, 'llmgw pr-comment: GITHUB_TOKEN is not set\n');
});

test.run();
