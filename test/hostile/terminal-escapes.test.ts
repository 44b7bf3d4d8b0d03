// Everything quoted from a file, a report or a reply into a terminal, a log or
// Markdown is escaped (docs/security.md): a node whose GPU names, errors,
// replica ids, weights paths and warnings hold `\x1b]0;pwned\x07`, `\r`,
// `\x1b[2J`, C1 and bidi controls, a router whose usage does, an apply reply
// and stderr that do, and a models.yaml weights path that does — then every
// command a person runs against that fleet (gather, status, plan, apply,
// reconcile) in every format, and what the tick commits. No raw control
// character reaches any of them.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as apply } from '../../src/cli/commands/apply.js';
import { run as gather } from '../../src/cli/commands/gather.js';
import { run as plan } from '../../src/cli/commands/plan.js';
import { run as reconcile } from '../../src/cli/commands/reconcile.js';
import { run as status } from '../../src/cli/commands/status.js';
import { reportError } from '../../src/cli/report-error.js';
import { startSimFleet, type ExecHandler, type SimFleet } from '../../src/sim/fleet.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { simClusterYaml, tempDir } from '../gather/sim-helpers.js';
import { captureIo } from '../helpers/io.js';
import { leaksIn, leaksInAll } from '../helpers/leak-check.js';

const EVIL = '\x1b]0;pwned\x07\r\x1b[2J\x9b31m\u202eevil';

function hostileReport(): AgentReport {
  return {
    version: 1,
    gpus: [
      { index: 0, uuid: `GPU-${EVIL}`, name: `NVIDIA H100${EVIL}`, memoryMiB: 81559, healthy: true },
      { index: 1, uuid: 'GPU-1', name: `NVIDIA H100${EVIL}`, memoryMiB: 81559, healthy: false },
    ],
    replicas: [
      { id: `m-9${EVIL}`, model: 'm', gpus: [0], state: 'failed', error: `died${EVIL}`, endpoint: `http://x${EVIL}/`, port: 8000, spec: `s${EVIL}` },
      { id: 'ghost-0', model: `ghost${EVIL}`, gpus: [1], state: 'running', port: 8001, startedAt: '2026-11-29T07:00:00Z' },
    ],
    storage: [{ path: `/models${EVIL}`, kind: 'local', weights: [`org/m${EVIL}`], incomplete: [`org/x${EVIL}`] }],
    warnings: [`warn${EVIL}`, `weights path ../../etc${EVIL} ignored`],
  };
}

const handler: ExecHandler = async ({ host, command }) => {
  if (command.endsWith(' usage')) {
    return { stdout: JSON.stringify({ version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: { [`m-0${EVIL}`]: '2026-11-29T07:59:00Z' } }), code: 0 };
  }
  if (command.endsWith(' endpoints')) return { stdout: '', stderr: `table refused${EVIL}\n`, code: 2 };
  if (host === 'n3') return { stdout: '', stderr: `agent crashed${EVIL}\n`, code: 3 };
  if (command.endsWith(' apply')) {
    return {
      stdout: JSON.stringify({
        version: 1,
        results: [
          { replica: 'm-0', op: 'start', ok: false, error: `no${EVIL}` },
          { replica: 'm-1', op: 'start', ok: false, error: `no${EVIL}` },
        ],
      }),
      code: 0,
    };
  }
  if (host === 'n1') return { stdout: JSON.stringify(hostileReport()), code: 0 };
  return {
    stdout: JSON.stringify({
      version: 1,
      gpus: [{ index: 0, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true }],
      replicas: [],
      storage: [{ path: '/models', kind: 'local', weights: [], incomplete: [] }],
      warnings: [],
    }),
    code: 0,
  };
};

const tmp = tempDir('terminal-escapes');
const bodies: string[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    bodies.push(body);
    res.writeHead(204).end();
  });
});
let fleet: SimFleet;
const repo = join(tmp.dir, 'repo');
const outputs: Record<string, string> = {};
let hook = '';

test.before(async () => {
  fleet = await startSimFleet({ dir: join(tmp.dir, 'keys'), handler, hosts: [{ name: 'n1' }, { name: 'n2' }, { name: 'n3' }, { name: 'rt' }] });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  mkdirSync(repo);
  const nodes = simClusterYaml(fleet).replace(/\n {2}- \{ name: rt,[^\n]*/, '');
  const rt = fleet.hosts.find((h) => h.name === 'rt')!;
  // maxStopFraction 1: the tick applies (and its failures are logged) rather than being blocked.
  writeFileSync(
    join(repo, 'cluster.yaml'),
    `${nodes}routers:\n  - { name: rt, host: "${rt.host}", port: ${rt.port} }\nsafety: { maxStopFraction: 1 }\nnotify: { webhooks: [{ url: "\${LLMGW_TEST_HOOK}" }] }\n`,
  );
  writeFileSync(
    join(repo, 'models.yaml'),
    'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m, weights: "org/m\\e]0;pwned\\a\\r", engine: vllm, gpus: 1, replicas: 2 }\n  - { name: h, weights: org/h, engine: vllm, gpus: 64 }\n',
  );
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
  git('init', '--quiet');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'seed');
});
test.after(async () => {
  await fleet.close();
  await new Promise((r) => receiver.close(r));
  tmp.remove();
});

async function cli(name: string, fn: (argv: string[], io: ReturnType<typeof captureIo>['io']) => Promise<number>, argv: string[]): Promise<void> {
  const c = captureIo({ cwd: tmp.dir, env: { HOME: tmp.dir, PATH: process.env.PATH, LLMGW_TEST_HOOK: hook } });
  try {
    await fn(argv, c.io);
  } catch (err) {
    reportError(err, c.io, name);
  }
  outputs[`${name} ${argv.join(' ')} (stdout)`] = c.out();
  outputs[`${name} ${argv.join(' ')} (stderr)`] = c.err();
}

test('gather, status, plan, apply and reconcile print no raw control character in any format', async () => {
  await cli('gather', gather, ['--repo', 'repo', '--out', 'repo/.llmgw/observed.json']);
  const snapshot = readFileSync(join(repo, '.llmgw/observed.json'), 'utf8');
  assert.ok(snapshot.includes('\\u001b]0;pwned'), 'the hostile text is in the snapshot, JSON-escaped');
  for (const format of ['text', 'markdown', 'json']) {
    await cli('status', status, ['--repo', 'repo', '--observed', 'repo/.llmgw/observed.json', '--format', format]);
    await cli('plan', plan, ['--repo', 'repo', '--observed', 'repo/.llmgw/observed.json', '--format', format]);
  }
  // A STATUS.md a person committed with raw escapes: the plan's diff starts from it.
  writeFileSync(join(repo, 'STATUS.md'), `# Fleet${EVIL}\n`);
  for (const format of ['text', 'markdown'])
    await cli('plan', plan, ['--repo', 'repo', '--observed', 'repo/.llmgw/observed.json', '--format', format, '--now', '2026-11-29T08:00:00Z']);
  await cli('status', status, ['--repo', 'repo']);
  await cli('apply', apply, ['--repo', 'repo', '--yes', '--force']);
  await cli('reconcile', reconcile, ['--repo', 'repo', '--no-push']);
  await cli('reconcile', reconcile, ['--repo', 'repo', '--no-push', '--log-format', 'json']);
  assert.match(outputs['status --repo repo --observed repo/.llmgw/observed.json --format text (stdout)']!, /H100\]0;pwned/);
  assert.equal(leaksInAll(outputs), []);
  assert.match(
    outputs['apply --repo repo --yes --force (stdout)']!,
    /start m-0: failed: n2: no\\x1b\]0;pwned\\x07\\r\\x1b\[2J\\x9b31m\\u202eevil/,
    'shown escaped, not dropped',
  );
});

test('what the tick committed and sent holds no raw control character either: STATUS.md, state.json, commit messages, webhook bodies', () => {
  assert.ok(
    bodies.some((b) => b.includes('apply.failed')),
    'the tick notified its failed starts',
  );
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  assert.equal(
    [
      ...leaksIn(readFileSync(join(repo, 'STATUS.md'), 'utf8'), 'STATUS.md'),
      ...leaksIn(readFileSync(join(repo, '.llmgw/state.json'), 'utf8'), 'state.json'),
      ...leaksIn(readFileSync(join(repo, '.llmgw/observed.json'), 'utf8'), 'observed.json'),
      ...leaksIn(git('log', '--format=%B'), 'commit messages'),
      ...bodies.flatMap((b, i) => leaksIn(b, `webhook body ${i}`)),
    ],
    [],
  );
});

test.run();
