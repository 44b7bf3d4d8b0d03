// The layering check bites (docs/layers.md): dependency-cruiser with the repo's
// own .dependency-cruiser.cjs fails on a small tree holding a cycle, a file
// system import in the pure core and an import against the table, naming each
// rule; the real src/ passes; and the table of docs/layers.md is the config's.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/golden.js';

const CONFIG = '.dependency-cruiser.cjs';
const BIN = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

function depcruise(cwd: string, paths: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...paths, '--config', CONFIG, '--output-type', 'err'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LLMGW_LAYERS_STRICT: '' },
    timeout: 170_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A tree of `files` beside copies of the real config, its known violations and the tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-layers-'));
  for (const f of [CONFIG, '.dependency-cruiser-known-violations.json', 'tsconfig.json']) copyFileSync(join(ROOT, f), join(dir, f));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('a cycle, fs in plan/ and plan/ importing views/ each fail the check, naming the rule and the import', () => {
  const dir = tree({
    'src/plan/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
    'src/plan/b.ts': "import type { A } from './c.js';\nexport const b = (): number => 1;\nexport type B = A;\n",
    'src/plan/c.ts': "import type { B } from './b.js';\nexport type A = number;\nexport type C = B;\n",
    'src/plan/reads.ts': "import { readFileSync } from 'node:fs';\nexport const reads = (p: string): string => readFileSync(p, 'utf8');\n",
    'src/plan/shows.ts': "import { shown } from '../views/plan/shown.js';\nexport const shows = shown;\n",
    'src/views/plan/shown.ts': "export const shown = 'x';\n",
    'src/text/words.ts': "export const words = 'leaf';\n",
  });
  try {
    const { status, out } = depcruise(dir, ['src']);
    assert.is.not(status, 0, out);
    // The cycle is through type-only imports: they count (tsPreCompilationDeps).
    assert.match(out, /error no-circular: src\/plan\/(b|c)\.ts →/);
    assert.match(out, 'error pure-core-no-io: src/plan/reads.ts → fs');
    assert.match(out, 'error layers-plan: src/plan/shows.ts → src/views/plan/shown.ts');
    assert.match(out, /x 3 dependency violations/);
    assert.not.match(out, 'src/text/words.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder with no row in the table, and the node bundle reaching the planner, fail the check', () => {
  const dir = tree({
    'src/newfolder/x.ts': "import { words } from '../text/words.js';\nexport const x = words;\n",
    'src/text/words.ts': "export const words = 'leaf';\n",
    'src/agent/uses-plan.ts': "import { p } from './via-util.js';\nexport const u = p;\n",
    'src/agent/via-util.ts': "import { p } from '../plan/p.js';\nexport { p };\n",
    'src/plan/p.ts': 'export const p = 2;\n',
  });
  try {
    const { status, out } = depcruise(dir, ['src']);
    assert.is.not(status, 0, out);
    assert.match(out, 'error layers-folder-not-in-table: src/newfolder/x.ts → src/text/words.ts');
    assert.match(out, 'error layers-agent: src/agent/via-util.ts → src/plan/p.ts');
    // Reached through another agent file: the whole path is what the bundle would carry.
    assert.match(out, 'error node-bundle-carries-no-reconciler: src/agent/uses-plan.ts → src/plan/p.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the repo's own src/ passes the check (its known violations aside)", () => {
  const { status, out } = depcruise(ROOT, ['src']);
  assert.is(status, 0, out);
  assert.match(out, 'no dependency violations found');
});

test('docs/layers.md holds the same table as the config, and the config refuses a cyclic one', () => {
  const require = createRequire(import.meta.url);
  const config = require(join(ROOT, CONFIG)) as { LAYERS: Record<string, string[]> };
  const page = readFileSync(join(ROOT, 'docs/layers.md'), 'utf8');
  const rows = [...page.matchAll(/^\| `([a-z/]+)` \| [^|]+ \| ([^|]+) \|$/gm)].map((m) => [
    m[1]!,
    m[2]!.trim() === 'nothing' ? [] : m[2]!.split(',').map((s) => s.trim()),
  ]);
  assert.equal(Object.fromEntries(rows), config.LAYERS);
  assert.is(rows.length, Object.keys(config.LAYERS).length, 'each folder once');

  const text = readFileSync(join(ROOT, CONFIG), 'utf8').replace('  text: [],', "  text: ['plan'],");
  const dir = tree({});
  try {
    writeFileSync(join(dir, CONFIG), text);
    assert.throws(() => require(join(dir, CONFIG)), /LAYERS has a cycle: text -> plan -> .*text/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
