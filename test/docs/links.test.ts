// The docs hold together: every relative link in README.md, DEVELOPMENT.md and docs/*.md points
// at a file that exists, and every #anchor at a heading of that file; every
// docs/<page>.md a source comment or a --help cites exists.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = [
  'overview',
  'config',
  'protocol',
  'placement',
  'commands',
  'status',
  'notifications',
  'safety',
  'operations',
  'security',
  'layers',
  'simulation',
  'slurm',
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^(```|````)[\s\S]*?^\1/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
}

function markdownFiles(): string[] {
  return ['README.md', 'DEVELOPMENT.md', ...PAGES.map((p) => `docs/${p}.md`), 'examples/ci/README.md'].map((f) => join(ROOT, f));
}

test('every docs page exists and is written, not a placeholder', () => {
  for (const p of PAGES) {
    const text = readFileSync(join(ROOT, 'docs', `${p}.md`), 'utf8');
    assert.not.match(text, /Being written/, p);
    assert.ok(text.length > 3000, `docs/${p}.md is ${text.length} characters`);
  }
});

test('every relative link in the README and the docs reaches a file, and its anchor a heading there', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8').replace(/^(```|````)[\s\S]*?^\1/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, hash] = target!.split('#') as [string, string | undefined];
      const dest = path === '' ? file : join(dirname(file), path);
      if (!existsSync(dest)) {
        broken.push(`${relative(ROOT, file)}: ${target} (no such file)`);
        continue;
      }
      if (hash !== undefined && statSync(dest).isFile() && dest.endsWith('.md') && !anchorsOf(dest).has(hash)) {
        broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`);
      }
    }
  }
  assert.equal(broken, []);
});

test('every docs/<page>.md that code, help texts or the action cite exists', () => {
  const cited = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mjs|yml|service)$/.test(name)) {
        for (const [, page] of readFileSync(p, 'utf8').matchAll(/docs\/([a-z-]+)\.md/g)) cited.set(page!, relative(ROOT, p));
      }
    }
  };
  for (const d of ['src', 'scripts', 'examples']) walk(join(ROOT, d));
  for (const f of ['action.yml']) for (const [, page] of readFileSync(join(ROOT, f), 'utf8').matchAll(/docs\/([a-z-]+)\.md/g)) cited.set(page!, f);
  assert.ok(cited.size >= 5);
  for (const [page, where] of cited) assert.ok(PAGES.includes(page), `${where} cites docs/${page}.md, which is not a page`);
});

test('nothing in the code or the README cites a document outside the repository', () => {
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (readFileSync(p, 'utf8').includes('CONTRACT')) hits.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, 'src'));
  if (readFileSync(join(ROOT, 'README.md'), 'utf8').includes('CONTRACT')) hits.push('README.md');
  assert.equal(hits, []);
});

test.run();
