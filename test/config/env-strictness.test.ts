// Which unset ${VAR} stops a command (docs/config.md): gather, apply and a live
// status or plan need what they connect with (ssh, hosts) but never send a
// notification, so there an unset variable in notify is only a warning.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { strictExceptNotify } from '../../src/config/env-vars.js';
import { formatProblem } from '../../src/errors.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
ssh: { identityFile: "\${KEY_FILE}" }
fabrics: [a]
nodes: [{ name: n1, fabric: a }]
engines: { vllm: { command: [vllm] } }
notify:
  webhooks:
    - url: "\${HOOK_URL}"
`;
const MODELS = 'apiVersion: llmgw/v1\nkind: Models\nmodels: []\n';

test('strict except in notify: notify and everything under it is lenient, every other path strict', () => {
  const cases: [string, boolean][] = [
    ['notify', false],
    ['notify.webhooks[0].url', false],
    ['notify.webhooks[1].secret', false],
    ['ssh.identityFile', true],
    ['notifyx', true],
    ['nodes[0].notify.x', true],
  ];
  for (const [path, strict] of cases) assert.is(strictExceptNotify(path), strict, path);
});

test('loaded that way, an unset variable in ssh is an error and one in notify a warning', () => {
  const r = parseConfig(
    { cluster: { name: 'cluster.yaml', text: CLUSTER }, models: { name: 'models.yaml', text: MODELS } },
    { env: {}, strictEnv: strictExceptNotify },
  );
  assert.is(r.ok, false);
  if (r.ok) return;
  assert.equal(r.errors.map(formatProblem), ['cluster.yaml:4:22: ssh.identityFile: environment variable KEY_FILE is not set']);
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:10:12: notify.webhooks[0].url: environment variable HOOK_URL is not set']);
});

test.run();
