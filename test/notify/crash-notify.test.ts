// The `notify` crash moment (src/util/crash-point.ts, docs/notes/crash.md)
// sits in deliverOutbox right after a hook took an event and before that is
// recorded: the fault-injection suite kills the process there to check that
// the event is sent again, with the same webhook-id. A child process runs
// deliverOutbox against a real receiver on 127.0.0.1 with LLMGW_CRASH_AT set.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { receiver } from './http-receiver.js';

const outboxModule = fileURLToPath(new URL('../../src/notify/outbox.js', import.meta.url));

const script = `
const { deliverOutbox, enqueue } = await import(process.env.OUTBOX_MODULE);
const hooks = [{ url: process.env.HOOK_URL }];
const ev = (subject) => ({ event: 'node.lost', cluster: 'c', time: '2026-11-29T12:00:00.000Z', subject, text: subject, details: {} });
const state = enqueue({ version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [], placements: {}, outbox: [] }, [ev('n1'), ev('n2')], hooks);
const left = await deliverOutbox(state, hooks, { now: () => new Date('2026-11-29T12:00:00Z'), log: () => {}, backoffMs: 0 });
process.stdout.write(String(left.outbox.length));
`;

function run(url: string, crashAt: string | undefined): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OUTBOX_MODULE: outboxModule, HOOK_URL: url };
  if (crashAt === undefined) delete env.LLMGW_CRASH_AT;
  else env.LLMGW_CRASH_AT = crashAt;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
}

test('LLMGW_CRASH_AT=notify kills the process right after the first event a hook took, before the next is sent', async () => {
  const rx = await receiver();
  try {
    const r = await run(rx.url, 'notify');
    assert.equal({ signal: r.signal, out: r.out }, { signal: 'SIGKILL', out: '' });
    assert.is(rx.hits.length, 1);
  } finally {
    await rx.close();
  }
});

test('without LLMGW_CRASH_AT the same delivery completes: both events taken, nothing left', async () => {
  const rx = await receiver();
  try {
    const r = await run(rx.url, undefined);
    assert.equal({ code: r.code, signal: r.signal, out: r.out }, { code: 0, signal: null, out: '0' });
    assert.is(rx.hits.length, 2);
  } finally {
    await rx.close();
  }
});

test.run();
