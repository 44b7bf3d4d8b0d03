// One replica id runs in one place: losing .llmgw/observed.json while a node is
// briefly unreachable must not start a second copy of its replicas, and a copy
// that runs where its id is not placed is stopped — only that copy.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { handlerTransport } from '../fixtures/canned-fleet.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes, tickWorld, type TickWorld } from '../fixtures/tick-world.js';
import { git } from '../../src/demo/git-remote.js';
import { SshError } from '../../src/errors.js';
import type { AgentApplyRequest } from '../../src/types/snapshot.js';
import { captureIo } from '../helpers/io.js';

interface World extends TickWorld {
  /** Nodes that refuse connections. */
  down: Set<string>;
  /** Router tables pushed, as JSON. */
  tables: string[];
  /** Every copy of every id on the fleet: `id@node`, sorted. */
  copies(): string[];
}

/** The world two ticks in: m-0 and m-1 started, then seen running. */
async function settled(): Promise<World> {
  const down = new Set<string>();
  const tables: string[] = [];
  const w = await tickWorld({
    cluster: tickClusterYaml({ nodes: 4, routers: ['rt-1'], extra: ['lostAfter: 10m'] }),
    models: modelsYaml([{ name: 'm', gpus: 8, replicas: 2 }]),
    nodes: tickNodes(4),
    prefix: 'identity',
    transport: (inner) => ({
      async run(target, command, input) {
        if (down.has(target.name)) throw new SshError('refused', target.name, `${target.name}: connect ECONNREFUSED`);
        if (command.endsWith('router endpoints')) tables.push(input);
        return inner.run(target, command, input);
      },
      close: async () => undefined,
    }),
  });
  await w.tick(0);
  await w.tick(1);
  return { ...w, down, tables, copies: () => [...w.canned.replicas].flatMap(([node, list]) => list.map((r) => `${r.id}@${node}`)).sort() };
}

function nodeOf(w: World, id: string): string {
  return [...w.canned.replicas].find(([, l]) => l.some((r) => r.id === id))![0];
}

/** m-0's node, a node running nothing, and m-0 as its node reports it: where a test puts a second copy of m-0. */
function secondCopySite(w: World) {
  const node = nodeOf(w, 'm-0');
  const other = tickNodes(4).find((n) => w.canned.replicas.get(n)!.length === 0)!;
  const original = w.canned.replicas.get(node)!.find((r) => r.id === 'm-0')!;
  return { node, other, original };
}

for (const [how, breakIt] of [
  ['missing', async (dir: string) => rm(join(dir, '.llmgw/observed.json'))],
  // The case: a report's 1e999 committed, unreadable at the next tick.
  [
    'holding 1e999',
    async (dir: string) => {
      const text = await readFile(join(dir, '.llmgw/observed.json'), 'utf8');
      await writeFile(join(dir, '.llmgw/observed.json'), text.replace(/"memoryMiB": \d+/, '"memoryMiB": 1e999'));
    },
  ],
] as const) {
  test(`observed.json ${how} while a node is briefly unreachable: its replicas are not started elsewhere, and every id runs once when it is back`, async () => {
    const w = await settled();
    assert.equal(w.copies().length, 2);
    const node = nodeOf(w, 'm-0');
    await breakIt(w.dir);
    await git(w.dir, ['add', '-A', '.llmgw']);
    await git(w.dir, ['commit', '--quiet', '-m', 'a person breaks observed.json']);

    w.down.add(node);
    const away = await w.tick(2);
    assert.equal(away.plan!.actions, [], 'nothing is started while the node is only unreachable');
    assert.equal(
      away.report!.models.map((m) => [m.name, m.running]),
      [['m', 2]],
    );
    // Broken again: state.json's placements alone still know what runs there.
    await breakIt(w.dir);
    assert.equal((await w.tick(3)).plan!.actions, []);
    w.down.delete(node);
    const back = await w.tick(4);
    assert.equal(back.plan!.actions, []);
    assert.equal(
      w.copies().map((c) => c.split('@')[0]),
      ['m-0', 'm-1'],
    );
    assert.equal(back.report!.duplicates, []);
    await w.close();
  });
}

test('observed.json and its node both gone past lostAfter: the replica is replaced under a new id, and the returning copy is the surplus (docs/placement.md step 2)', async () => {
  const w = await settled();
  const node = nodeOf(w, 'm-0');
  await rm(join(w.dir, '.llmgw/observed.json'));
  w.down.add(node);
  await w.tick(2);
  const lost = await w.tick(13);
  assert.equal(
    lost.plan!.actions.filter((a) => a.op === 'start').map((a) => a.replica),
    ['m-2'],
  );
  w.down.delete(node);
  const back = await w.tick(14);
  assert.equal(
    back.plan!.actions.map((a) => `${a.op} ${a.replica}`),
    ['stop m-0'],
  );
  // The surplus drains first (out of every router's table), and is stopped on a later tick.
  assert.equal(
    w.copies().map((c) => c.split('@')[0]),
    ['m-0', 'm-1', 'm-2'],
  );
  await w.tick(15);
  assert.equal(
    w.copies().map((c) => c.split('@')[0]),
    ['m-1', 'm-2'],
  );
  await w.close();
});

test('a copy of an id on a second node is stopped there only: the replica keeps its node, its GPUs and its route', async () => {
  const w = await settled();
  const { node, other, original } = secondCopySite(w);
  w.canned.replicas.set(other, [{ ...original, startedAt: '2026-11-28T00:00:00Z', endpoint: `http://${other}:8000` }]);
  w.tables.length = 0;
  const r = await w.tick(2);
  assert.equal(
    r.plan!.actions.map((a) => [a.op, a.replica, a.placement.map((p) => p.node), a.op === 'stop' && a.duplicate]),
    [['stop', 'm-0', [other], true]],
  );
  assert.is(r.plan!.blocked, null);
  assert.equal(w.copies(), [`m-0@${node}`, ...w.copies().filter((c) => c.startsWith('m-1'))].sort());
  // Every table pushed this tick still routes m-0 to the copy of record.
  assert.ok(w.tables.length > 0);
  for (const t of w.tables) assert.equal(JSON.parse(t).models.m.find((e: { replica: string }) => e.replica === 'm-0').url, original.endpoint);
  assert.equal(r.report!.duplicates, []);
  await w.close();
});

test('a duplicate that cannot be stopped yet is in status JSON and STATUS.md until it is', async () => {
  const w = await settled();
  const { node, other, original } = secondCopySite(w);
  w.canned.replicas.set(other, [{ ...original }]);
  const refuse = handlerTransport({
    async handler(ctx) {
      if (ctx.host === other && ctx.command.endsWith('agent apply')) {
        const req = JSON.parse(ctx.stdin) as AgentApplyRequest;
        return {
          code: 0,
          stdout: JSON.stringify({
            version: 1,
            results: req.stop.map((s) => ({ replica: typeof s === 'string' ? s : s.replica, op: 'stop', ok: false, error: 'busy' })),
          }),
        };
      }
      return w.canned.handler(ctx);
    },
  });
  const r = await w.tick(2, { transport: refuse });
  assert.equal(r.report!.duplicates, [{ replica: 'm-0', model: 'm', nodes: [other], recordNodes: [node] }]);
  const status = await readFile(join(w.dir, 'STATUS.md'), 'utf8');
  assert.match(status, /^- 1 replica id also runs where it is not placed \(duplicate copies, being stopped\): m-0 \(on [^)]+\)$/m);
  assert.not.match(status, /Nothing needs attention/);
  const c = captureIo({ cwd: w.dir });
  const observedAt = JSON.parse(await readFile(join(w.dir, '.llmgw/observed.json'), 'utf8')).observedAt;
  assert.is(await main(['status', '--json', '--observed', '.llmgw/observed.json', '--now', observedAt], c.io), 0, c.err());
  assert.equal(JSON.parse(c.out()).duplicates, r.report!.duplicates);
  const fixed = await w.tick(3);
  assert.equal(fixed.report!.duplicates, []);
  assert.equal(
    w.copies().filter((x) => x.startsWith('m-0@')),
    [`m-0@${node}`],
  );
  await w.close();
});

test('state.json with fields of the wrong type is a warning and a fresh start, never a crash of the tick or of plan', async () => {
  const w = await settled();
  await writeFile(join(w.dir, '.llmgw/state.json'), JSON.stringify({ version: 1, startFailures: {}, unreachableSince: [], notified: 'x' }));
  await git(w.dir, ['commit', '--quiet', '-am', 'a person breaks state.json']);
  const lines: string[] = [];
  const r = await w.tick(2, { log: (l) => lines.push(l) });
  assert.equal(r.plan!.actions, []);
  assert.ok(
    lines.some((l) => /^warning: .*state\.json: not a valid state file \(\/\w+: must be \w+; and 2 more\); starting from an empty state$/.test(l)),
    lines.join('\n'),
  );
  await writeFile(join(w.dir, '.llmgw/state.json'), JSON.stringify({ version: 1, startFailures: {} }));
  const c = captureIo({ cwd: w.dir });
  assert.is(await main(['plan', '--observed', '.llmgw/observed.json'], c.io), 0, c.err());
  assert.match(c.err(), /state\.json: not a valid state file/);
  assert.not.match(c.err(), /internal error/);
  await w.close();
});

test.run();
