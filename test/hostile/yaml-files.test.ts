// Hostile cluster.yaml and models.yaml (docs/security.md): seeded variants of
// the demo's files — structure damaged, values made hostile, `${VAR}`s of
// secrets put where they are not read, text cut and garbled — each either
// loads or is refused with one line per problem; none crashes the loader
// (an "internal error" line is one), none prints a control character or a
// secret's value, and a config that loads plans and renders without either.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { canaryEnv, CANARY, leaksIn, leaksInAll } from '../helpers/leak-check.js';
import { COUNT, eachVariant, mutateJson, mutateText, rssGrowthMiB, type Rng } from './generate.js';
import { renderAll } from './render-all.js';

const demo = (f: string) => fileURLToPath(new URL(`../../../examples/demo/${f}`, import.meta.url));
const CLUSTER = `${readFileSync(demo('cluster.yaml'), 'utf8')}notify:\n  webhooks:\n    - url: \${LLMGW_WEBHOOK_URL}\n      secret: \${LLMGW_WEBHOOK_SECRET}\n      headers: { Authorization: "Bearer \${LLMGW_CANARY_TOKEN}" }\n`;
const MODELS = readFileSync(demo('models.yaml'), 'utf8');
const SNAPSHOT = JSON.parse(readFileSync(demo('.llmgw/observed.json'), 'utf8')) as Snapshot;
/** The canary secrets, and one whose value is itself invalid where it is read (its message must still not quote it). */
const ENV = { ...canaryEnv(), HOME: '/nonexistent-home', LLMGW_CANARY_BAD: `\x1b[2J not a url ${CANARY}\n` };
/** Where a hostile document puts `${VAR}`s: allowed places (substituted) and forbidden ones (an error naming the variable). */
const REFS = ['${LLMGW_WEBHOOK_SECRET}', '${LLMGW_CANARY_TOKEN}', '${LLMGW_CANARY_BAD}', '${LLMGW_UNSET_VAR}', 'x${LLMGW_WEBHOOK_URL}y'];
/** RSS a run of variants may add, in MiB: generous for the allocator, far below what one runaway variant would take. */
const MEMORY_BOUND_MIB = 512;

function variant(base: string, r: Rng): string {
  if (r.chance(0.35)) return mutateText(base, r);
  const doc = mutateJson(parse(base), r) as Record<string, unknown>;
  let text = stringify(doc, { lineWidth: 0 });
  // Put a secret's ${VAR} somewhere: in a string value, a key, or where the webhooks read it.
  if (r.chance(0.5)) {
    const strings = [...text.matchAll(/: ([A-Za-z][^\n]*)$/gm)];
    const m = strings.length > 0 ? r.pick(strings) : null;
    if (m) text = text.slice(0, m.index + 2) + JSON.stringify(m[1]! + r.pick(REFS)) + text.slice(m.index + m[0].length);
  }
  if (r.chance(0.2)) text = text.replace('url: ${LLMGW_WEBHOOK_URL}', `url: ${r.pick(REFS)}`);
  return text;
}

function checkLoad(cluster: string, models: string, strict: boolean): void {
  const loaded = parseConfig(
    { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
    { env: ENV, strictEnv: strict, displayDir: '.' },
  );
  const problems = [...(loaded.ok ? [] : loaded.errors), ...loaded.warnings].map(formatProblem);
  if (!loaded.ok) assert.ok(loaded.errors.length > 0, 'refused with at least one problem');
  for (const line of problems) {
    assert.not.ok(line.includes('\n'), `one line: ${line}`);
    assert.match(line, /^(cluster|models)\.yaml:\d+:\d+: /, `names the file and place: ${line}`);
    assert.not.match(line, /internal error/, line);
    const leaks = leaksIn(line, 'problem');
    assert.equal(leaks, [], leaks.join('; '));
  }
  if (!loaded.ok) return;
  const leaks = leaksInAll(renderAll(loaded.config, SNAPSHOT));
  assert.equal(leaks, [], leaks.join('; '));
}

for (const file of ['cluster.yaml', 'models.yaml'] as const) {
  test(`${COUNT} hostile variants of ${file}: each loads or is refused in one line per problem, no crash, no control character, no secret`, async () => {
    const rss = process.memoryUsage().rss;
    let refused = 0;
    await eachVariant(
      file,
      COUNT,
      (r) => ({ text: variant(file === 'cluster.yaml' ? CLUSTER : MODELS, r), strict: r.chance(0.5) }),
      (v) => {
        const [cluster, models] = file === 'cluster.yaml' ? [v.text, MODELS] : [CLUSTER, v.text];
        const loaded = parseConfig(
          { cluster: { name: 'cluster.yaml', text: cluster }, models: { name: 'models.yaml', text: models } },
          { env: ENV, strictEnv: v.strict },
        );
        if (!loaded.ok) refused++;
        checkLoad(cluster, models, v.strict);
      },
      (v) => v.text,
    );
    // The mix is part of what is checked: the generator must reach both outcomes.
    assert.ok(refused > COUNT / 10 && refused < COUNT, `${refused} of ${COUNT} refused`);
    assert.ok(rssGrowthMiB(rss) < MEMORY_BOUND_MIB, `RSS grew ${rssGrowthMiB(rss).toFixed(0)} MiB`);
  });
}

test('the valid documents the variants start from load, and a secret in them shows nowhere in what they render', () => {
  const loaded = parseConfig(
    { cluster: { name: 'cluster.yaml', text: CLUSTER }, models: { name: 'models.yaml', text: MODELS } },
    { env: ENV, strictEnv: true },
  );
  assert.ok(loaded.ok, JSON.stringify(loaded.ok ? [] : loaded.errors.map(formatProblem)));
  assert.ok(loaded.config.cluster.notify.webhooks[0]!.url.includes(CANARY), 'the secret was substituted');
  assert.equal(leaksInAll(renderAll(loaded.config, SNAPSHOT)), []);
});

test.run();
