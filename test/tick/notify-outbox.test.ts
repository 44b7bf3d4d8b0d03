// A tick sends an event only once it is committed with its id, and what a
// webhook is owed survives ticks that cannot deliver it — a receiver down, a
// cluster.yaml broken for a while — to be sent under that same id.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UNPLACEABLE_MODELS } from '../fixtures/config-yaml.js';
import { minuteEachRead, tickClusterYaml, tickNodes, tickWorld, type TickWorld } from '../fixtures/tick-world.js';
import { git } from '../../src/demo/git-remote.js';
import type { State } from '../../src/types/state.js';

const cluster = (url: string) => tickClusterYaml({ nodes: 2, webhook: url });

test('an event is committed with its id before it is sent, and stays owed through a broken cluster.yaml until the hook takes it', async () => {
  let world: TickWorld | undefined;
  let up = false;
  const got: { id: string; committedAtHead: boolean }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const head = execFileSync('git', ['show', 'HEAD:.llmgw/state.json'], { cwd: world!.dir, encoding: 'utf8' });
      got.push({ id, committedAtHead: head.includes(id) });
      res.writeHead(up ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    world = await tickWorld({ cluster: cluster(url), models: UNPLACEABLE_MODELS, nodes: tickNodes(2), prefix: 'outbox' });
    const { dir } = world;
    const now = minuteEachRead();
    const tick = () => world!.tick(0, { now });
    const outbox = async () => (JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8')) as State).outbox;

    const first = await tick();
    assert.ok(first.events.includes('model.unplaceable'));
    const owed = await outbox();
    assert.is(owed.length, 1);
    assert.ok(got.length > 0 && got.every((g) => g.committedAtHead && g.id === owed[0]!.id), 'sent only once committed, under its committed id');

    await world.commit({ 'cluster.yaml': 'apiVersion: llmgw/v1\nkind: Cluster\nname: [\n' }, 'a broken cluster.yaml');
    await tick();
    assert.equal(
      (await outbox()).map((o) => o.id),
      [owed[0]!.id],
      'the hook is unknown while cluster.yaml is broken: still owed',
    );

    await world.commit({ 'cluster.yaml': cluster(url) }, 'fixed');
    up = true;
    await tick();
    assert.equal(await outbox(), []);
    assert.equal([...new Set(got.map((g) => g.id))], [owed[0]!.id]);
    assert.match(await git(dir, ['log', '-1', '--format=%s']), /^llmgw: notified 1 event \(t\)$/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await world?.close();
  }
});

test.run();
