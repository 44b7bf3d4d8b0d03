// Status rendered for fleets at the edges, against golden files: nothing to
// report, nothing observed, and more of everything than the renderers write out.
// LLMGW_UPDATE_GOLDEN=1 rewrites them from the current code.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../src/status/index.js';
import { renderStatusJson, renderStatusMarkdown, renderStatusText } from '../../src/views/status/index.js';
import { golden } from '../helpers/golden.js';
import { bareFleet, crowdedFleet, quietFleet } from './fleets.js';
import { sampleFleet } from './sample.js';

const dir = 'test/status/golden/cases';

test('a fleet where nothing needs attention says so, in the terminal and in STATUS.md', () => {
  const report = summarize(quietFleet(), []);
  golden(`${dir}/quiet.txt`, renderStatusText(report, { color: false }));
  golden(`${dir}/quiet.md`, renderStatusMarkdown(report));
  golden(`${dir}/quiet.color.txt`, renderStatusText(report, { color: true }));
  assert.match(renderStatusText(report, { color: false }), 'Nothing needs attention.');
  assert.not.match(renderStatusText(report, { color: false }), 'idleness unknown', 'a replica used this very second is not of unknown idleness');
});

test('the sample fleet in the terminal: the golden text, one model that cannot be placed', () => {
  const report = summarize(sampleFleet(), [{ model: 'llama-70b', missing: 1, reason: 'needs 4 free H100 GPUs on one node' }]);
  golden(`${dir}/sample.txt`, renderStatusText(report, { color: false }));
});

test('a fleet nothing was observed of: no GPUs, no models, every node lost', () => {
  const report = summarize(bareFleet(), []);
  golden(`${dir}/bare.txt`, renderStatusText(report, { color: false }));
  golden(`${dir}/bare.md`, renderStatusMarkdown(report));
  golden(`${dir}/bare.json`, renderStatusJson(report));
});

test('a crowded fleet: long lists end in "and N more", 24 fabrics list who holds what, every bucket and state shows', () => {
  const { fleet, unplaceable } = crowdedFleet();
  const report = summarize(fleet, unplaceable);
  golden(`${dir}/crowded.txt`, renderStatusText(report, { color: false }));
  golden(`${dir}/crowded.md`, renderStatusMarkdown(report));
  golden(`${dir}/crowded.json`, renderStatusJson(report));
});

test('in a colour terminal each bucket of the bar has its colour, and only the bar, headings and warnings are painted', () => {
  const { fleet, unplaceable } = crowdedFleet();
  const coloured = renderStatusText(summarize(fleet, unplaceable), { color: true });
  golden(`${dir}/crowded.color.txt`, coloured);
  // Without the escapes it is the plain rendering, byte for byte.
  assert.is(coloured.replace(/\x1b\[[0-9;]*m/g, ''), renderStatusText(summarize(fleet, unplaceable), { color: false }));
});

test.run();
