// Loaded (node --import, through NODE_OPTIONS) into every node process of a
// test file during mutation testing's recording run (scripts/run-tests.mjs,
// LLMGW_MUTATION_COVERAGE=1): at exit, writes the ids of the mutants this
// process reached. Stryker's instrumented code counts them in
// globalThis.__stryker__.mutantCoverage.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

process.on('exit', () => {
  const cov = globalThis.__stryker__?.mutantCoverage;
  const dir = process.env.LLMGW_COVERAGE_DIR;
  if (!cov || !dir) return;
  const ids = new Set(Object.keys(cov.static ?? {}));
  for (const perTest of Object.values(cov.perTest ?? {})) for (const id of Object.keys(perTest)) ids.add(id);
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ tag: process.env.LLMGW_COVERAGE_TAG, ids: [...ids] }));
});
