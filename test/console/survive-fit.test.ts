// The console shows survive and fit (docs/placement.md#survive, #will-it-fit): the
// Overview a broken `survive:` at the top and the table of where replicas run,
// a model's page its fit on each class and what its worst node and fabric loss
// leave. Rendered from one status report, as STATUS.md is.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelBody } from '../../src/console/pages/models.js';
import { overviewBody } from '../../src/console/pages/overview.js';
import { summarize } from '../../src/status/summarize.js';
import { CONFIG_70B, makeFleet, W70 } from '../fixtures/fleet.js';

function world() {
  const H100 = { cls: 'H100', product: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 };
  const fleet = makeFleet({
    nodes: [
      { name: 'h1', fabric: 'ib-a', ...H100, holds: [W70], sizes: { [W70]: { bytes: 141_107_000_000, config: CONFIG_70B } } },
      { name: 'h2', fabric: 'ib-b', ...H100 },
    ],
    models: [
      { name: 'llama-70b', weights: W70, gpus: 4, replicas: 2, survive: 'fabric' },
      { name: 'solo', weights: 'org/solo', gpus: 1, replicas: 1, survive: 'node' },
    ],
    replicas: [
      { id: 'llama-70b-0', model: 'llama-70b', ranks: [{ node: 'h1', gpus: [0, 1, 2, 3] }] },
      { id: 'llama-70b-1', model: 'llama-70b', ranks: [{ node: 'h2', gpus: [0, 1, 2, 3] }] },
      { id: 'solo-0', model: 'solo', ranks: [{ node: 'h1', gpus: [4] }] },
    ],
  });
  return { fleet, report: summarize(fleet, []) };
}

test('Overview: a broken survive: first, then where each model runs with its worst losses', () => {
  const { report } = world();
  const page = overviewBody(report).toString();
  const warning = page.indexOf('id="survive-warning"');
  assert.ok(warning >= 0 && warning < page.indexOf('id="attention"'), 'the warning comes before the attention list');
  assert.ok(page.includes('model &#39;solo&#39; does not survive the loss of node h1: all its 1 replica run there (models.yaml survive: node).'), page);
  const section = page.slice(page.indexOf('id="placement"'), page.indexOf('</section>', page.indexOf('id="placement"')));
  assert.match(section, /<h2>Where replicas run<\/h2>/);
  assert.match(
    section,
    /llama-70b<\/a><\/td><td[^>]*>2<\/td><td[^>]*>h\[1-2\]<\/td><td[^>]*>losing h1 leaves 1 of 2<\/td><td[^>]*>losing ib-a leaves 1 of 2<\/td>/,
  );
  assert.match(section, /solo<\/a><\/td><td[^>]*>1<\/td><td[^>]*>h1<\/td><td[^>]*>losing h1 leaves 0 of 1<\/td>/);
});

test("a model's page: its fit on each class with the GiB figures, where it runs, its worst losses", () => {
  const { fleet, report } = world();
  const page = modelBody('llama-70b', report, fleet)!.toString();
  // 4 × H100: 141.107e9 / 4 = 32.85 GiB a GPU; one 131072-token sequence 10 GiB a GPU; 3 fit in 37.8 GiB.
  assert.ok(
    page.includes('<dt>Fits</dt><dd>H100: fits 3 full-length sequences (32.85 GiB of weights a GPU + 10 GiB KV a sequence; at most 131072 tokens)</dd>'),
    page,
  );
  assert.ok(page.includes('<dt>Runs on</dt><dd>h[1-2]</dd>'), page);
  assert.ok(page.includes('<dt>Worst node loss</dt><dd>losing h1 leaves 1 of 2</dd>'), page);
  assert.ok(page.includes('<dt>Worst fabric loss</dt><dd>losing ib-a leaves 1 of 2</dd>'), page);
  // org/solo is held nowhere and has no weightsBytes.
  assert.ok(modelBody('solo', report, fleet)!.toString().includes('<dt>Fits</dt><dd>size unknown: set weightsBytes in models.yaml'));
});

test.run();
