// `--poll` (docs/operations.md#which-trigger-sees-what): a move of the remote branch,
// read with ls-remote from a real bare remote, asks for one tick; no move, or a move
// the last tick made itself (its push is in the tracking ref), asks for none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { branchTips } from '../../src/git/branch-tip.js';
import { remotePoll } from '../../src/daemon/remote-poll.js';
import { sandbox } from '../git/fixtures.js';

function fakeLoop() {
  let runs = 0;
  let busy = false;
  const triggers: string[] = [];
  return {
    triggers,
    busy: () => busy,
    runs: () => runs,
    trigger: (r: string) => void triggers.push(r),
    /** A tick ran (and finished) between two looks. */
    ran: () => void (runs += 1),
    setBusy: (b: boolean) => void (busy = b),
  };
}

test('no move: no tick; a person pushes: one tick; the same tip again: none', async () => {
  const sb = sandbox();
  try {
    const mine = sb.clone('mine');
    const other = sb.clone('other');
    const tips = await branchTips(mine, sb.env, { timeoutMs: 30_000 });
    assert.ok(tips);
    assert.is(tips.where, 'origin main');
    const loop = fakeLoop();
    const step = remotePoll({ tips, loop, log: () => undefined });
    assert.is(await step(), false, 'the first look only learns where the branch is');
    assert.is(await step(), false);
    sb.write(other, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # moved\n');
    sb.git(other, 'commit', '--quiet', '-am', 'a person merges');
    sb.git(other, 'push', '--quiet', 'origin', 'main');
    assert.is(await step(), true);
    assert.equal(loop.triggers, ['poll']);
    assert.is(await step(), false, 'seen once is enough');
    assert.equal(loop.triggers, ['poll']);
  } finally {
    sb.cleanup();
  }
});

test("llmgw's own push is not a move: the tick's tracking ref has it", async () => {
  const sb = sandbox();
  try {
    const mine = sb.clone('mine');
    const tips = await branchTips(mine, sb.env, { timeoutMs: 30_000 });
    assert.ok(tips);
    const loop = fakeLoop();
    const step = remotePoll({ tips, loop, log: () => undefined });
    await step();
    // A tick commits STATUS.md and pushes it (which updates origin/main here).
    sb.write(mine, 'STATUS.md', '# status\n');
    sb.git(mine, 'add', 'STATUS.md');
    sb.git(mine, 'commit', '--quiet', '-m', 'llmgw: status');
    sb.git(mine, 'push', '--quiet', 'origin', 'main');
    loop.ran();
    assert.is(await step(), false);
    assert.equal(loop.triggers, []);
  } finally {
    sb.cleanup();
  }
});

test('a look while a tick runs is dropped; the move is seen at the next look after it', async () => {
  const sb = sandbox();
  try {
    const mine = sb.clone('mine');
    const other = sb.clone('other');
    const tips = await branchTips(mine, sb.env, { timeoutMs: 30_000 });
    assert.ok(tips);
    const loop = fakeLoop();
    const step = remotePoll({ tips, loop, log: () => undefined });
    await step();
    sb.write(other, 'cluster.yaml', 'apiVersion: llmgw/v1\nkind: Cluster\nname: t2\n');
    sb.git(other, 'commit', '--quiet', '-am', 'moved during a tick');
    sb.git(other, 'push', '--quiet', 'origin', 'main');
    loop.setBusy(true);
    assert.is(await step(), false);
    // The tick did not fetch (it started before the push): the remote is still ahead of what it saw.
    loop.setBusy(false);
    loop.ran();
    assert.is(await step(), true);
    assert.equal(loop.triggers, ['poll']);
  } finally {
    sb.cleanup();
  }
});

test('a checkout that tracks no remote branch has nothing to poll', async () => {
  const sb = sandbox();
  try {
    assert.is(await branchTips(`${sb.root}/seed`, sb.env, { timeoutMs: 30_000 }), null);
  } finally {
    sb.cleanup();
  }
});

test('a remote that does not answer is said once, and asks for no tick', async () => {
  const sb = sandbox();
  try {
    const mine = sb.clone('mine');
    const tips = await branchTips(mine, sb.env, { timeoutMs: 30_000 });
    assert.ok(tips);
    sb.git(mine, 'remote', 'set-url', 'origin', `${sb.root}/gone.git`);
    const logs: string[] = [];
    const loop = fakeLoop();
    const step = remotePoll({ tips, loop, log: (l) => logs.push(l) });
    assert.is(await step(), false);
    assert.is(await step(), false);
    assert.is(logs.length, 1);
    assert.match(logs[0]!, /^poll: reading main from origin failed/);
    assert.equal(loop.triggers, []);
  } finally {
    sb.cleanup();
  }
});

test.run();
