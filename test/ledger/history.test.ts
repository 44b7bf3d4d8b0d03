// The pure parts of reading the ledger's history (src/ledger/history.ts): which
// commits are ticks, which ones a range needs, and cat-file's batch output.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseBatch, parseTickLog, ticksFor } from '../../src/ledger/history.js';

const S = '\u001f';
const E = '\u001e';
const rec = (sha: string, time: string, email: string, files: string[]) => `${E}${sha}${S}${time}${S}${email}\n\n${files.join('\n')}\n`;

test('parseTickLog: only commits by llmgw touching only generated files, oldest first; a file outside the config directory is a person', () => {
  const log = [
    rec('c3', '2026-11-20T03:00:00Z', 'llmgw@localhost', ['fleet/STATUS.md', 'fleet/.llmgw/observed.json']),
    rec('c2', '2026-11-20T02:00:00Z', 'llmgw@localhost', ['fleet/STATUS.md', 'README.md']),
    rec('c1', '2026-11-20T01:00:00Z', 'person@example.com', ['fleet/STATUS.md']),
    rec('c0', '2026-11-20T00:00:00Z', 'llmgw@localhost', ['fleet/.llmgw/state.json']),
  ].join('');
  assert.equal(
    parseTickLog(log, 'fleet/').map((t) => t.sha),
    ['c0', 'c3'],
  );
});

test('ticksFor: from the last tick more than 25 h before `since` to the first at or after `until`', () => {
  const ticks = [0, 10, 30, 50, 60, 70].map((h) => ({ sha: `h${h}`, time: new Date(Date.UTC(2026, 10, 20) + h * 3_600_000).toISOString() }));
  const at = (h: number) => new Date(Date.UTC(2026, 10, 20) + h * 3_600_000).toISOString();
  assert.equal(
    ticksFor(ticks, { since: at(40), until: at(55) }).map((t) => t.sha),
    ['h10', 'h30', 'h50', 'h60'],
  );
  // Every tick before the range: the last one, whose GPUs the unobserved time is counted at.
  assert.equal(
    ticksFor(ticks, { since: at(200), until: at(210) }).map((t) => t.sha),
    ['h70'],
  );
});

test('parseBatch: blobs by size (a newline inside one is content), a missing name is null', () => {
  const out = Buffer.from('aaaa blob 3\na\nb\nx:missing.json missing\nbbbb blob 2\n{}\n');
  assert.equal(parseBatch(out, ['x:a', 'x:missing.json', 'x:b']), [{ oid: 'aaaa', text: 'a\nb' }, null, { oid: 'bbbb', text: '{}' }]);
});

test.run();
