// Mutation testing (StrykerJS) of the pure core and the parts whose mistakes are
// silent: `npm run mutate [-- folder ...]` (scripts/mutate.mjs) runs one Stryker
// run per folder below, each with only the tests that cover that folder. See
// docs/testing.md.
//
// How it stays affordable on a small machine: Stryker writes every mutant of a
// folder into one copy of the sources at once ("mutant schemata"), tsc builds
// that copy ONCE, and each mutant is then one run of the folder's test files
// with __STRYKER_ACTIVE_MUTANT__ naming it. The test runner stops at the first
// failing file (LLMGW_TEST_BAIL), closest tests first. Incremental mode reuses
// the results of code that did not change since the last run.
//
// Folders, not file lists: a file that moves within a folder stays covered.

/** folder -> what is mutated, and the test files (scripts/run-tests.mjs filters) that cover it, closest first. */
export const FOLDERS = {
  fleet: {
    mutate: ['src/fleet/**/*.ts'],
    // The lifecycle's and the routes' parts of the fleet model are held by the
    // planner's, the apply's and the tick's tests of drains and tables.
    tests: [
      'test/fleet/',
      'test/status/',
      'test/views/status/',
      'test/plan/through-fleet',
      'test/plan/from-reports',
      'test/notify/events-fleet',
      'test/plan/drain',
      'test/plan/rollout',
      'test/plan/other-gpus',
      'test/apply/router-tables',
      'test/apply/lifecycle-requests',
      'test/tick/lifecycle-state',
    ],
  },
  notify: {
    mutate: ['src/notify/**/*.ts'],
    tests: ['test/notify/'],
  },
  'gather/known-hosts': {
    mutate: ['src/gather/known-hosts.ts'],
    tests: ['test/gather/known-hosts', 'test/gather/ssh-transport'],
  },
  'apply/agent-requests': {
    mutate: ['src/apply/agent-requests.ts'],
    tests: ['test/apply/agent-requests', 'test/apply/executor'],
  },
  status: {
    // Its renderers (src/views/status) and the shared words status/ used to hold
    // (src/text, docs/layers.md) stay mutated with it.
    mutate: ['src/status/**/*.ts', 'src/views/status/**/*.ts', 'src/text/format.ts', 'src/text/markdown-escape.ts', 'src/text/reason-labels.ts'],
    tests: ['test/status/', 'test/views/status/', 'test/views/plan/render', 'test/plan/golden', 'test/notify/events'],
  },
  store: {
    mutate: ['src/store/**/*.ts'],
    tests: ['test/store/', 'test/config/', 'test/tick/', 'test/hostile/'],
  },
  config: {
    mutate: ['src/config/**/*.ts', 'src/text/compress-hostlist.ts'],
    tests: [
      'test/config/',
      'test/text/compress-hostlist',
      'test/examples/',
      'test/cli/validate',
      'test/status/invalid-config',
      'test/views/status/invalid-config',
    ],
  },
  plan: {
    // The plan's renderers (src/views/plan) stay mutated with the model they render.
    mutate: ['src/plan/**/*.ts', 'src/views/plan/**/*.ts'],
    // The planner's own unit tests first and plan/base (git repos, ~7 s) last:
    // a mutant is killed by the first failing file.
    tests: [
      'test/plan/keep-',
      'test/plan/one-node',
      'test/plan/multi-node',
      'test/plan/replace',
      'test/plan/safety',
      'test/plan/surplus',
      'test/plan/replica-ids',
      'test/plan/duplicate-stops',
      'test/plan/unplaceable',
      'test/plan/freed-capacity',
      'test/plan/heap',
      'test/plan/recent-failures',
      'test/plan/placement-order',
      'test/plan/golden',
      'test/plan/markdown-plan',
      'test/views/plan/',
      'test/plan/',
      'test/apply/agent-requests',
      'test/status/golden',
    ],
  },
};

const requested = process.env.LLMGW_MUTATE_FOLDER;
if (requested !== undefined && !(requested in FOLDERS)) {
  throw new Error(`LLMGW_MUTATE_FOLDER=${requested}: not one of ${Object.keys(FOLDERS).join(', ')}`);
}
// Without a folder (a bare `npx stryker run`): everything, against every test named above.
const chosen = requested ? [FOLDERS[requested]] : Object.values(FOLDERS);
const mutate = chosen.flatMap((f) => f.mutate);
const tests = [...new Set(chosen.flatMap((f) => f.tests))];
const name = requested ? requested.replace(/\//g, '-') : 'all';

// One test file at a time, stopping at the first failure: Stryker runs two
// mutants side by side, which is the machine's two cores. A file that hangs
// (a mutant that loops) is killed by run-tests' own timeout, well before
// Stryker's, and counts as a failure, so no orphan keeps a core busy.
//
// Stryker's run without a mutant records which test files reach each mutant
// (LLMGW_MUTATION_COVERAGE, scripts/run-tests.mjs); a mutant then runs only the
// files that reach it, and one that no file reaches survives without a run.
const command = [
  'LLMGW_MUTATION_COVERAGE=1',
  'LLMGW_TEST_BAIL=1',
  'LLMGW_TEST_JOBS=1',
  'LLMGW_TEST_TIMEOUT_MS=180000',
  'node scripts/run-tests.mjs',
  ...tests,
].join(' ');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'command',
  commandRunner: { command },
  // Run without a shell, before node_modules is linked into the sandbox: npm
  // gives the shell and finds tsc in the project's node_modules/.bin.
  buildCommand: 'npm run -s build',
  mutate,
  // Not needed to build or test; `dist` is rebuilt inside the sandbox.
  ignorePatterns: ['/dist', '/.bench', '/tmp', '/bench', '*.log'],
  concurrency: Number(process.env.LLMGW_MUTATE_CONCURRENCY ?? 2),
  // A mutant's run may take timeoutFactor x the clean run + timeoutMS before it
  // counts as Timeout (detected); generous, because the machine is shared.
  timeoutMS: 30_000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 10,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
};
