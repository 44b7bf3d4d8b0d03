// Signed means detected (docs/notifications.md#the-outbox-is-signed): the
// outbox is committed in state.json, which anyone who can push may edit, so
// every entry carries a MAC under a key the repo never holds, and delivery
// drops, unsent and with a warning naming the id, every entry whose MAC does
// not verify: a forged event, one whose fields were changed, one from an
// older state.json, one another process queued under a key this one lacks.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseState, serializeState } from '../../src/store/files.js';
import { replaced, UNPLACEABLE_MODELS } from '../fixtures/config-yaml.js';
import { minuteEachRead, tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import { loadOutboxKey } from '../../src/notify/outbox-key.js';
import { deriveOutboxKey, processOutboxKey, sealEntry, unverified, type OutboxKey } from '../../src/notify/outbox-mac.js';
import { deliverOutbox, enqueue, eventId, hookKey } from '../../src/notify/outbox.js';
import { emptyState, type OutboxEntry, type State } from '../../src/types/state.js';
import { receiver } from './http-receiver.js';

const NOW = new Date('2026-11-29T12:00:00Z');

function ev(subject: string, text = `[prod-eu] Node ${subject} is lost.`): NotifyEvent {
  return { event: 'node.lost', cluster: 'prod-eu', time: NOW.toISOString(), subject, text, details: { node: subject } };
}
function withOutbox(outbox: OutboxEntry[]): State {
  return { ...emptyState(), outbox };
}
const otherKey = (): OutboxKey => deriveOutboxKey(randomBytes(32), 'env');

async function deliver(state: State, url: string, key?: OutboxKey): Promise<{ state: State; lines: string[] }> {
  const lines: string[] = [];
  const left = await deliverOutbox(state, [{ url }], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1, ...(key ? { key } : {}) });
  return { state: left, lines };
}

test('an outbox entry without a MAC (an older state.json, or a hand-written one) is dropped unsent, with one warning naming its id', async () => {
  const rx = await receiver();
  try {
    const old: OutboxEntry = { id: eventId(ev('n1')), event: ev('n1'), hooks: [hookKey({ url: rx.url })] };
    const r = await deliver(withOutbox([old]), rx.url);
    assert.is(rx.hits.length, 0, 'nothing sent');
    assert.equal(r.state.outbox, []);
    assert.is(r.lines.length, 1);
    assert.match(r.lines[0]!, new RegExp(`^warning: notify: dropped event ${old.id} from the outbox unsent: it carries no MAC`));
  } finally {
    await rx.close();
  }
});

test('an entry whose event or hooks were changed after it was sealed does not verify, and is dropped unsent', async () => {
  const rx = await receiver();
  try {
    const key = otherKey();
    const hook = hookKey({ url: rx.url });
    const real = sealEntry(key, { id: eventId(ev('n1')), event: ev('n1'), hooks: ['0000000000000000'] });
    const retexted = { ...real, id: eventId(ev('n2')), event: ev('n2', 'Urgent: log in at http://attacker.invalid/') };
    const rehooked = { ...real, hooks: [hook] };
    const r = await deliver(withOutbox([retexted, rehooked]), rx.url, key);
    assert.is(rx.hits.length, 0, 'neither reached the receiver');
    assert.equal(r.state.outbox, []);
    assert.equal(
      r.lines.map((l) => l.replace(/ from the outbox unsent: .*/, '')),
      [`warning: notify: dropped event ${retexted.id}`, `warning: notify: dropped event ${real.id}`],
    );
    assert.ok(
      r.lines.every((l) => l.includes('its MAC does not verify') && !l.includes('attacker')),
      'the warning names the id, never a field of the forged entry',
    );
  } finally {
    await rx.close();
  }
});

test('with neither LLMGW_OUTBOX_KEY nor an identity file, only what this process queued is sent: another process’s entry is dropped', async () => {
  const rx = await receiver();
  try {
    const hooks = [{ url: rx.url }];
    const mine = enqueue(emptyState(), [ev('n1')], hooks);
    const theirs = sealEntry(otherKey(), { id: eventId(ev('n2')), event: ev('n2'), hooks: [hookKey(hooks[0]!)] });
    const r = await deliver(withOutbox([...mine.outbox, theirs]), rx.url);
    assert.equal(
      rx.hits.map((h) => h.headers['webhook-id']),
      [eventId(ev('n1'))],
    );
    assert.equal(r.state.outbox, []);
    assert.is(r.lines.length, 1);
    assert.match(r.lines[0]!, new RegExp(`^warning: notify: dropped event ${theirs.id} .*only what this process queued is sent$`));
  } finally {
    await rx.close();
  }
});

test('what delivery leaves is sealed again: a hook that took the event is off the entry, and the entry still verifies at the next tick', async () => {
  const up = await receiver();
  const down = await receiver((res) => res.writeHead(503).end());
  try {
    const key = otherKey();
    const hooks = [{ url: up.url }, { url: down.url }];
    const queued = enqueue(emptyState(), [ev('n1')], hooks, key);
    const lines: string[] = [];
    const left = await deliverOutbox(queued, hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1, key });
    assert.equal(left.outbox[0]!.hooks, [hookKey(hooks[1]!)]);
    assert.is(unverified(key, left.outbox[0]!), null, 'resealed after its hooks changed');
    const next = await deliverOutbox(left, hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1, key });
    assert.is(next.outbox.length, 1, 'still owed to the hook that is down');
    assert.ok(!lines.some((l) => l.startsWith('warning:')), 'no entry llmgw sealed is ever dropped as untrusted');
  } finally {
    await up.close();
    await down.close();
  }
});

test('a MAC survives state.json: an entry serialized and parsed back still verifies', () => {
  const key = otherKey();
  const e = { ...ev('n1', 'text with \u0085 and \u202e and "quotes"'), details: { node: 'n1', replicas: ['a', 'b'], n: 3 } };
  const state = enqueue(emptyState(), [e], [{ url: 'http://127.0.0.1:1/b' }, { url: 'http://127.0.0.1:1/a' }], key);
  const back = parseState(serializeState(state), 'state.json');
  assert.match(back.outbox[0]!.mac!, /^[0-9a-f]{64}$/);
  assert.is(unverified(key, back.outbox[0]!), null);
});

test('a forged entry under a real event’s id does not keep the real event out of the outbox', () => {
  const hooks = [{ url: 'http://127.0.0.1:1/a' }];
  const forged: OutboxEntry = { id: eventId(ev('n1')), event: ev('n1', 'forged'), hooks: [hookKey(hooks[0]!)], mac: '0'.repeat(64) };
  const r = enqueue(withOutbox([forged]), [ev('n1')], hooks);
  assert.is(r.outbox.length, 2);
  assert.is(unverified(processOutboxKey(), r.outbox[1]!), null, 'the real one, sealed, is queued beside the forgery');
});

// --- the key ---

test('the outbox key: $LLMGW_OUTBOX_KEY first, else the identity file’s bytes, else this process’s own; the same material the same key', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-outbox-key-'));
  try {
    const id = join(dir, 'id_ed25519');
    await writeFile(id, randomBytes(400));
    const env1 = await loadOutboxKey({ LLMGW_OUTBOX_KEY: 'k1' }, id);
    assert.is(env1.source, 'env', 'the variable wins over the identity');
    assert.ok(
      env1.bytes.equals((await loadOutboxKey({ LLMGW_OUTBOX_KEY: 'k1' }, undefined)).bytes),
      'another reconciler with the same variable has the same key',
    );
    assert.not.ok(env1.bytes.equals((await loadOutboxKey({ LLMGW_OUTBOX_KEY: 'k2' }, undefined)).bytes));
    const fromId = await loadOutboxKey({ LLMGW_OUTBOX_KEY: '' }, id);
    assert.is(fromId.source, 'identity', 'an empty variable is no key');
    assert.ok(fromId.bytes.equals((await loadOutboxKey({}, id)).bytes), 'the same identity, the same key');
    const entry = sealEntry(env1, { id: eventId(ev('n1')), event: ev('n1'), hooks: ['0123456789abcdef'] });
    assert.is(unverified(env1, entry), null);
    assert.is(unverified(fromId, entry), 'bad-mac');
    assert.is(unverified(processOutboxKey(), entry), 'bad-mac');

    assert.is((await loadOutboxKey({}, join(dir, 'missing'))).source, 'process', 'an unreadable identity: this process’s key');
    assert.is((await loadOutboxKey({}, dir)).source, 'process', 'a directory is no identity');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.is((await loadOutboxKey({}, fifo)).source, 'process', 'a FIFO is not read (and does not block)');
    assert.is((await loadOutboxKey({}, undefined)).bytes, processOutboxKey().bytes);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// --- the attack, end to end ---

test('a forged outbox entry in a committed state.json sends nothing: a PR’s event, and a copy of a real MAC on other text, are dropped with a warning each', async () => {
  const keys = await mkdtemp(join(tmpdir(), 'llmgw-outbox-forged-'));
  let up = false;
  const rx = await receiver((res) => res.writeHead(up ? 200 : 503).end());
  const identity = join(keys, 'id_ed25519');
  await writeFile(identity, randomBytes(400));
  const cluster = replaced(
    tickClusterYaml({ nodes: 2, webhook: '${LLMGW_TEST_HOOK}' }),
    'knownHosts: /dev/null }',
    'knownHosts: /dev/null, identityFile: "${LLMGW_TEST_IDENTITY}" }',
  );
  const world = await tickWorld({ cluster, models: UNPLACEABLE_MODELS, nodes: tickNodes(2), prefix: 'outbox-forged' });
  try {
    const { dir } = world;
    const lines: string[] = [];
    const now = minuteEachRead();
    const env = { LLMGW_TEST_IDENTITY: identity, LLMGW_TEST_HOOK: rx.url };
    const tick = () => world.tick(0, { env, now, log: (l) => lines.push(l) });

    await tick();
    const state = parseState(execFileSync('git', ['show', 'HEAD:.llmgw/state.json'], { cwd: dir, encoding: 'utf8' }), 'state.json');
    assert.is(state.outbox.length, 1, 'the real event is owed (the hook answered 503)');
    const real = state.outbox[0]!;

    // The pull request: an event nobody detected, and the real MAC pasted onto other text.
    const forged: OutboxEntry = {
      id: 'evt_' + 'f'.repeat(24),
      event: { ...real.event, subject: 'forged', text: 'forged: rotate your keys at http://attacker.invalid/' },
      hooks: real.hooks,
    };
    const pasted: OutboxEntry = { ...real, id: 'evt_' + 'e'.repeat(24), event: { ...real.event, text: 'pasted: http://attacker.invalid/' } };
    await writeFile(join(dir, '.llmgw/state.json'), serializeState({ ...state, outbox: [forged, real, pasted] }));
    execFileSync('git', ['-c', 'user.name=mallory', '-c', 'user.email=mallory@example', 'commit', '--quiet', '-am', 'state tweak'], { cwd: dir });

    up = true;
    lines.length = 0;
    const before = rx.hits.length;
    await tick();
    const sent = rx.hits.slice(before);
    assert.equal([...new Set(sent.map((h) => h.headers['webhook-id']))], [real.id], 'only the event llmgw queued itself is sent');
    assert.ok(!sent.some((h) => h.body.includes('attacker')), 'no forged text reached the receiver');
    const warnings = lines.filter((l) => l.startsWith('warning: notify: dropped event'));
    assert.equal(
      warnings.map((l) => l.split(' ')[4]),
      [forged.id, pasted.id],
    );
    assert.ok(!lines.some((l) => l.includes(identity) || l.includes(rx.url) || l.includes('127.0.0.1')), 'no line names the identity path or the hook URL');
    const after = parseState(execFileSync('git', ['show', 'HEAD:.llmgw/state.json'], { cwd: dir, encoding: 'utf8' }), 'state.json');
    assert.equal(after.outbox, [], 'the forgeries are gone from the committed outbox');
  } finally {
    await rx.close();
    await world.close();
    await rm(keys, { recursive: true, force: true });
  }
});

test.run();
