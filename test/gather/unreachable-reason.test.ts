import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SshError, type SshErrorKind } from '../../src/errors.js';
import { connectError, connectTimeoutError } from '../../src/gather/ssh-errors.js';
import { UNREACHABLE_REASONS, unreachableReason } from '../../src/gather/unreachable-reason.js';

const target = { name: 'gpu-a01', host: '10.0.0.1', port: 22 };

test('each SSH error kind has its reason class; anything else is unknown', () => {
  const kinds: [SshErrorKind, string][] = [
    ['timeout', 'timeout'],
    ['refused', 'refused'],
    ['auth-failed', 'auth'],
    ['host-key-changed', 'host-key-changed'],
    ['host-key-unknown', 'host-key-unknown'],
    ['bad-reply', 'bad-reply'],
    ['command-failed', 'command-failed'],
    ['unreachable', 'network'],
  ];
  for (const [kind, reason] of kinds) assert.is(unreachableReason(new SshError(kind, 'h', 'x')), reason, kind);
  assert.is(unreachableReason(new Error('HOST KEY CHANGED: refused timeout')), 'unknown', 'never read from the text');
  assert.ok(kinds.every(([, r]) => UNREACHABLE_REASONS.includes(r as never)));
});

test('a host that never completes TCP, one that stalls the handshake and one the kernel gave up on are all timeouts', () => {
  assert.is(unreachableReason(connectTimeoutError(target, false, 10_000)), 'timeout');
  assert.is(unreachableReason(connectTimeoutError(target, true, 10_000)), 'timeout');
  const kernel = connectError(Object.assign(new Error('connect ETIMEDOUT 10.0.0.1:22'), { level: 'client-socket', code: 'ETIMEDOUT' }), target, false, 10_000);
  assert.is(kernel.message, 'gpu-a01 (10.0.0.1:22): connect ETIMEDOUT');
  assert.is(unreachableReason(kernel), 'timeout');
});

test('no route, a name that does not resolve and a refused port keep their own classes', () => {
  const sock = (code: string) => connectError(Object.assign(new Error(code), { level: 'client-socket', code }), target, false, 10_000);
  assert.is(unreachableReason(sock('EHOSTUNREACH')), 'network');
  assert.is(unreachableReason(sock('ENOTFOUND')), 'network');
  assert.is(unreachableReason(sock('ECONNREFUSED')), 'refused');
  assert.is(
    unreachableReason(
      connectError(Object.assign(new Error('All configured authentication methods failed'), { level: 'client-authentication' }), target, true, 1),
    ),
    'auth',
  );
});

test.run();
