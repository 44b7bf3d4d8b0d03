// The places `${VAR}` is read from the environment, and the copy of
// cluster.yaml's data with them substituted (src/config/env-vars.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fromEnvNote, isEnvPlace, misplacedRefs, substituteEnv, type EnvOutcome } from '../../src/config/env-vars.js';
import { parseYamlSource, type PathSegment, type YamlSource } from '../../src/config/yaml-source.js';
import { formatProblem } from '../../src/errors.js';
import type { ConfigProblem } from '../../src/types/config.js';
import { MODELS, STORAGE_CLUSTER, parsePair, replaced } from '../fixtures/index.js';

function source(text: string): YamlSource {
  const r = parseYamlSource('cluster.yaml', text, 'a mapping');
  if (!r.ok) throw new Error(r.error.message);
  return r.source;
}

function outcome(): EnvOutcome {
  return { errors: [], warnings: [], substituted: [] };
}

function substitute(value: unknown, env: Record<string, string> = {}): { value: unknown; out: EnvOutcome } {
  const src = source('a: 1\n');
  const out = outcome();
  return { value: substituteEnv(src, value, { env, strict: true }, out), out };
}

test('${VAR} is read only in ssh.identityFile and a webhook url, secret or header value', () => {
  const cases: [PathSegment[], boolean][] = [
    [['ssh', 'identityFile'], true],
    [['ssh'], false],
    [['ssh', 'user'], false],
    [['ssh', 'identityFile', 'x'], false],
    [['notify', 'webhooks', 0, 'url'], true],
    [['notify', 'webhooks', 3, 'secret'], true],
    [['notify', 'webhooks', 0, 'name'], false],
    [['notify', 'webhooks', '0', 'url'], false],
    [['notify', 'hooks', 0, 'url'], false],
    [['nodes', 'webhooks', 0, 'url'], false],
    [['a', 'b', 0, 'url'], false],
    [['notify', 'webhooks', 0, 'headers', 'X-Token'], true],
    [['notify', 'webhooks', 0, 'headers'], false],
    [['notify', 'webhooks', 0, 'headers', 1], false],
    [['notify', 'webhooks', 0, 'url', 'x'], false],
    [['notify', 'webhooks', 0, 'headers', 'X-Token', 'y'], false],
    [['nodes', 'x', 0, 'headers', 'X-Token'], false],
  ];
  for (const [path, place] of cases) assert.is(isEnvPlace(path), place, JSON.stringify(path));
});

test('a ${…} outside those places is one error per value or key, naming the reference; an unclosed ${ is not a reference', () => {
  const src = source(
    ['name: "${NAME}x"', 'host: "a${HOST"', 'notify:', '  webhooks:', '    - url: "${URL}"', '      headers: { "${H}": v }'].join('\n') + '\n',
  );
  const errors: ConfigProblem[] = [];
  const at = misplacedRefs(src, errors, isEnvPlace);
  assert.equal(errors.map(formatProblem), [
    'cluster.yaml:1:7: name: ${NAME} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
    'cluster.yaml:6:18: notify.webhooks[0].headers["${H}"]: ${H} is not read from the environment here: only in notify.webhooks[].url, .secret, .headers and ssh.identityFile',
  ]);
  assert.equal([...at], ['name', 'notify.webhooks[0].headers["${H}"]']);
});

test('a reference is a name of letters, digits and _: ${A-B} is malformed and left as written', () => {
  const { value, out } = substitute({ ssh: { identityFile: '/k/${A-B}' } }, { A: 'x', 'A-B': 'y' });
  assert.equal(value, { ssh: { identityFile: '/k/${A-B}' } });
  assert.equal(
    out.errors.map((e) => `${e.path}: ${e.message}`),
    ['ssh.identityFile: a ${…} must name a variable: letters, digits and _, not starting with a digit'],
  );
  assert.equal(out.substituted, []);
});

test('each variable a value uses is recorded once, in order of first use', () => {
  const { value, out } = substitute({ ssh: { identityFile: '${A}/${B}/${A}' } }, { A: 'a', B: 'b' });
  assert.equal(value, { ssh: { identityFile: 'a/b/a' } });
  assert.equal(out.substituted, [{ path: ['ssh', 'identityFile'], vars: ['${A}', '${B}'], complete: true }]);
});

test('a document that is not a mapping is returned as it is', () => {
  assert.is(substitute(null).value, null);
  assert.is(substitute('text').value, 'text');
  assert.is(substitute(7).value, 7);
});

test('ssh and notify that are missing or not mappings are left as they are, never invented or reshaped', () => {
  assert.equal(substitute({ name: 'c' }).value, { name: 'c' });
  assert.equal(substitute({ ssh: ['${A}'] }, { A: 'a' }).value, { ssh: ['${A}'] });
  assert.equal(substitute({ ssh: 'key' }).value, { ssh: 'key' });
  assert.equal(substitute({ ssh: null }).value, { ssh: null });
  assert.equal(substitute({ notify: null }).value, { notify: null });
  assert.equal(substitute({ notify: 'x' }).value, { notify: 'x' });
});

test('webhook entries that are not mappings stay as written; values that are not strings are kept', () => {
  const { value, out } = substitute({ notify: { webhooks: [null, 'x', ['${A}'], { url: '${A}' }, { url: 'u', headers: { N: 5, T: '${A}' } }] } }, { A: 'a' });
  assert.equal(value, { notify: { webhooks: [null, 'x', ['${A}'], { url: 'a' }, { url: 'u', headers: { N: 5, T: 'a' } }] } });
  assert.equal(
    out.substituted.map((s) => s.path),
    [
      ['notify', 'webhooks', 3, 'url'],
      ['notify', 'webhooks', 4, 'headers', 'T'],
    ],
  );
});

test('a problem in a substituted value names the variables it used; elsewhere no note', () => {
  const substituted = [
    { path: ['ssh', 'identityFile'], vars: ['${K}'], complete: true },
    { path: ['notify', 'webhooks', 0, 'url'], vars: ['${A}', '${B}'], complete: true },
  ];
  assert.is(fromEnvNote(substituted, ['notify', 'webhooks', 0, 'url']), ' (after substituting ${A}, ${B})');
  assert.is(fromEnvNote(substituted, ['notify', 'webhooks', 1, 'url']), '');
});

test('a variable unset twice in one value is one warning, not two', () => {
  const r = parsePair(replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - url: "https://h.example/${HOOK}/${HOOK}"'), MODELS);
  assert.equal(r.warnings.map(formatProblem), ['cluster.yaml:6:12: notify.webhooks[0].url: environment variable HOOK is not set']);
});

test.run();
