import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UNHEALTHY_GRACE_MS, deriveState } from '../../src/agent/replica-state.js';
import type { HealthRecord, ReplicaRecord } from '../../src/agent/replica-store.js';

const rec = {
  replica: 'm-0',
  pid: 100,
  pidStartTime: '5',
  startedAt: '2026-11-29T08:00:00.000Z',
  startTimeoutSeconds: 600,
  log: '/var/lib/llmgw/logs/m-0.log',
} as ReplicaRecord;
const fresh: HealthRecord = { pid: 100, pidStartTime: '5' };
const at = (iso: string) => new Date(iso);

test('alive and not yet healthy within startTimeoutSeconds is starting', () => {
  const d = deriveState(rec, fresh, { alive: true, healthy: false, now: at('2026-11-29T08:05:00Z') });
  assert.is(d.state, 'starting');
  assert.is(d.health, fresh);
  assert.is(d.warning, undefined);
});

test('a health answer of 200 is running, and the time is remembered', () => {
  const d = deriveState(rec, fresh, { alive: true, healthy: true, now: at('2026-11-29T08:05:00Z') });
  assert.is(d.state, 'running');
  assert.is(d.health.healthyAt, '2026-11-29T08:05:00.000Z');
});

test('a process that exited is failed, naming the log', () => {
  const d = deriveState(rec, fresh, { alive: false, healthy: false, now: at('2026-11-29T08:05:00Z') });
  assert.is(d.state, 'failed');
  assert.is(d.warning, 'replica m-0 failed: its process (pid 100) exited; log: /var/lib/llmgw/logs/m-0.log');
});

test('no health by startTimeoutSeconds is failed', () => {
  const d = deriveState(rec, fresh, { alive: true, healthy: false, now: at('2026-11-29T08:10:01Z') });
  assert.is(d.state, 'failed');
  assert.is(d.health.failed?.reason, 'not healthy within startTimeoutSeconds (600 s)');
});

test('failed is sticky: a late health answer does not bring a failed replica back', () => {
  const failed: HealthRecord = { ...fresh, failed: { at: '2026-11-29T08:10:01.000Z', reason: 'not healthy within startTimeoutSeconds (600 s)' } };
  const d = deriveState(rec, failed, { alive: true, healthy: true, now: at('2026-11-29T08:11:00Z') });
  assert.is(d.state, 'failed');
});

test('a replica that was healthy and misses a probe stays running within the grace, with a warning', () => {
  const h: HealthRecord = { ...fresh, healthyAt: '2026-11-29T08:20:00.000Z' };
  const d = deriveState(rec, h, { alive: true, healthy: false, now: new Date(Date.parse(h.healthyAt!) + UNHEALTHY_GRACE_MS - 1000) });
  assert.is(d.state, 'running');
  assert.is(d.warning, 'replica m-0 did not answer its health check; last answered 2026-11-29T08:20:00.000Z');
});

test('a replica silent for longer than the grace is failed, even long after its start timeout', () => {
  const h: HealthRecord = { ...fresh, healthyAt: '2026-11-29T08:20:00.000Z' };
  const d = deriveState(rec, h, { alive: true, healthy: false, now: new Date(Date.parse(h.healthyAt!) + UNHEALTHY_GRACE_MS + 1000) });
  assert.is(d.state, 'failed');
  assert.is(d.health.failed?.reason, 'health check unanswered since 2026-11-29T08:20:00.000Z');
});

test.run();
