// Where routers send a replica's requests (src/fleet/routes.ts): to the URL llmgw
// builds from cluster.yaml, never to the endpoint a report claims; a report whose
// endpoint differs is a warning in status.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { endpointWarnings, replicaUrl, routedUrl } from '../../src/fleet/routes.js';
import type { Fleet } from '../../src/types/fleet.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

function fleetOf(...obs: Parameters<typeof snapshot>[0]): Fleet {
  const c = config(obs.map((o) => nodeConfig(o.name, { host: `${o.name}.example` })));
  return buildFleet(c, snapshot(obs), emptyState(), NOW);
}

test('replicaUrl: a host name or IPv4 as it is, an IPv6 address in brackets once', () => {
  assert.is(replicaUrl('gpu-a01.example', 8000), 'http://gpu-a01.example:8000');
  assert.is(replicaUrl('10.0.0.7', 8001), 'http://10.0.0.7:8001');
  assert.is(replicaUrl('fd00::7', 8002), 'http://[fd00::7]:8002');
  assert.is(replicaUrl('[fd00::7]', 8002), 'http://[fd00::7]:8002');
});

test("routedUrl: the rank-0 node's host from cluster.yaml and the replica's port", () => {
  const f = fleetOf(up('n1', report(gpus(1), [replica('m-0', [0], { port: 8005, endpoint: 'http://evil.example:9/steal' })])));
  assert.is(routedUrl(f.replicaById.get('m-0')!, f), 'http://n1.example:8005');
});

test('routedUrl: null without a port, without nodes, or on a node cluster.yaml does not name', () => {
  const f = fleetOf(up('n1', report(gpus(1))));
  assert.is(routedUrl({ nodes: ['n1'], port: null }, f), null);
  assert.is(routedUrl({ nodes: [], port: 8000 }, f), null);
  assert.is(routedUrl({ nodes: ['ghost'], port: 8000 }, f), null);
});

test('endpointWarnings: a report whose endpoint is elsewhere is named, with what routers get instead', () => {
  const f = fleetOf(
    up(
      'n1',
      report(gpus(2), [
        replica('m-0', [0], { port: 8000, endpoint: 'http://attacker.example/steal' }),
        replica('m-1', [1], { port: 8001, endpoint: 'http://n1.example:8001' }),
      ]),
    ),
  );
  assert.equal(endpointWarnings(f), [{ replica: 'm-0', node: 'n1', reported: 'http://attacker.example/steal', routed: 'http://n1.example:8000' }]);
});

test('endpointWarnings: the same URL spelled differently (case, trailing slash) is no warning', () => {
  const f = fleetOf(up('n1', report(gpus(1), [replica('m-0', [0], { port: 8000, endpoint: 'HTTP://N1.example:8000/' })])));
  assert.equal(endpointWarnings(f), []);
});

test('endpointWarnings: an endpoint that is no URL at all is a warning, cut to 200 characters', () => {
  const junk = `not a url ${'x'.repeat(300)}`;
  const f = fleetOf(up('n1', report(gpus(1), [replica('m-0', [0], { port: 8000, endpoint: junk })])));
  const w = endpointWarnings(f);
  assert.is(w.length, 1);
  assert.is(w[0]!.routed, 'http://n1.example:8000');
  assert.ok(w[0]!.reported.length <= 200 && w[0]!.reported.startsWith('not a url x'), w[0]!.reported);
});

test('endpointWarnings: nothing to compare -> no warning (no endpoint; no port, so routers get nothing)', () => {
  const f = fleetOf(
    up('n1', report(gpus(2), [replica('m-0', [0], { port: 8000, endpoint: undefined }), replica('m-1', [1], { port: undefined, endpoint: 'garbage' })])),
  );
  assert.is(f.replicaById.get('m-1')!.port, null);
  assert.equal(endpointWarnings(f), []);
});

test('endpointWarnings: a replica on a lost node is gone, so no warning for it', () => {
  const bad = { port: 8000, endpoint: 'http://attacker.example/steal' };
  const f = fleetOf(
    down('n1', '2026-11-28T00:00:00Z', report(gpus(1), [replica('m-0', [0], bad)])),
    down('n2', '2026-11-29T07:59:00Z', report(gpus(1), [replica('m-1', [0], bad)])),
  );
  assert.equal([f.replicaById.get('m-0')!.lost, f.replicaById.get('m-1')!.lost], [true, false]);
  // Unreachable (not yet lost) still counts: its last report is what routers were given.
  assert.equal(
    endpointWarnings(f).map((w) => w.replica),
    ['m-1'],
  );
});

test('endpointWarnings: sorted by replica id whatever order the fleet lists them in', () => {
  const ids = ['a-0', 'b-0', 'c-0', 'd-0', 'e-0'];
  const f = fleetOf(
    up(
      'n1',
      report(
        gpus(5),
        ids.map((id, i) => replica(id, [i], { port: 8000 + i, endpoint: `http://elsewhere.example/${id}` })),
      ),
    ),
  );
  const shuffled: Fleet = { ...f, replicas: [f.replicas[3]!, f.replicas[0]!, f.replicas[4]!, f.replicas[2]!, f.replicas[1]!] };
  assert.equal(
    endpointWarnings(shuffled).map((w) => w.replica),
    ids,
  );
  assert.equal(
    endpointWarnings({ ...f, replicas: [...f.replicas].reverse() }).map((w) => w.replica),
    ids,
  );
});

test.run();
