// The layering of src/ (docs/layers.md), checked by dependency-cruiser in
// `npm run check:layers`: which folder may import which, no cycle anywhere, a
// pure core without I/O, and a node bundle (agent, router) that carries none of
// the reconciler. Type-only imports count: a cycle through types is still a
// cycle to whoever reads the code.
//
// LAYERS is the one table of allowed imports, folder -> folders below it. It must
// stay acyclic (checked when this file loads) and agree with docs/layers.md
// (test/layers/ compares them). A folder missing from it is an error: a new
// folder is placed on purpose, not by accident.
//
// Known violations, each one that work under way removes, are listed in
// .dependency-cruiser-known-violations.json (`depcruise ... --output-type
// baseline` writes it) and read below, so `npm run check:layers` passes while
// they last and fails on any new one. Empty it as they go.

/** folder (under src/; `errors` is src/errors.ts) -> the folders it may import besides itself. */
const LAYERS = {
  text: [],
  types: [],
  errors: ['types'],
  util: ['errors', 'text', 'types'],
  log: ['errors', 'text', 'util'],
  config: ['errors', 'store', 'text', 'types', 'util'],
  fleet: ['config', 'slurm', 'text', 'types', 'util'],
  plan: ['config', 'fleet', 'text', 'types', 'util'],
  status: ['config', 'fleet', 'text', 'types', 'util'],
  'views/plan': ['errors', 'plan', 'status', 'text', 'types', 'util'],
  'views/status': ['errors', 'status', 'text', 'types', 'util'],
  notify: ['errors', 'fleet', 'text', 'types', 'util'],
  slurm: ['config', 'text', 'types', 'util'],
  gather: ['config', 'errors', 'slurm', 'text', 'types', 'util'],
  git: ['config', 'errors', 'store', 'text', 'types', 'util'],
  store: ['errors', 'text', 'types', 'util'],
  apply: ['config', 'errors', 'fleet', 'gather', 'plan', 'slurm', 'text', 'types', 'util'],
  agent: ['errors', 'text', 'types', 'util'],
  router: ['errors', 'text', 'types', 'util'],
  tick: ['apply', 'config', 'errors', 'fleet', 'gather', 'git', 'ledger', 'notify', 'plan', 'slurm', 'status', 'store', 'text', 'types', 'util', 'views/plan', 'views/status'],
  daemon: ['apply', 'config', 'errors', 'fleet', 'gather', 'git', 'log', 'notify', 'plan', 'status', 'store', 'text', 'tick', 'types', 'util', 'views/plan', 'views/status'],
  ledger: ['config', 'errors', 'fleet', 'git', 'store', 'text', 'types', 'util'],
  metrics: ['daemon', 'errors', 'ledger', 'log', 'status', 'text', 'tick', 'types', 'util'],
  console: ['config', 'errors', 'fleet', 'git', 'ledger', 'status', 'store', 'text', 'tick', 'types', 'util', 'views/status'],
  ci: ['errors', 'text', 'types', 'util'],
  sim: ['agent', 'errors', 'gather', 'text', 'types', 'util'],
  demo: ['agent', 'apply', 'config', 'daemon', 'errors', 'fleet', 'gather', 'git', 'plan', 'router', 'sim', 'status', 'store', 'text', 'tick', 'types', 'util', 'views/plan', 'views/status'],
  cli: [
    'agent',
    'apply',
    'ci',
    'config',
    'console',
    'daemon',
    'demo',
    'errors',
    'fleet',
    'gather',
    'git',
    'ledger',
    'log',
    'metrics',
    'notify',
    'plan',
    'router',
    'status',
    'store',
    'text',
    'tick',
    'types',
    'util',
    'views/plan',
    'views/status',
  ],
};

/** A cycle in the table itself would allow a cycle in the code: refuse to load. */
function assertAcyclic(layers) {
  const state = new Map();
  const visit = (folder, path) => {
    if (state.get(folder) === 'done') return;
    if (state.get(folder) === 'open') throw new Error(`.dependency-cruiser.cjs: LAYERS has a cycle: ${[...path, folder].join(' -> ')}`);
    if (!(folder in layers)) throw new Error(`.dependency-cruiser.cjs: LAYERS names ${folder}, which has no row`);
    state.set(folder, 'open');
    for (const below of layers[folder]) visit(below, [...path, folder]);
    state.set(folder, 'done');
  };
  for (const folder of Object.keys(layers)) visit(folder, []);
}
assertAcyclic(LAYERS);

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path of a folder's modules; `errors` is one file. */
const at = (folder) => (folder === 'errors' ? '^src/errors\\.ts$' : `^src/${esc(folder)}/`);
const any = (folders) => folders.map(at).join('|');

const layerRules = Object.entries(LAYERS).map(([folder, below]) => ({
  name: `layers-${folder.replace('/', '-')}`,
  comment: `${folder} may import only ${below.length > 0 ? below.join(', ') : 'nothing of the project'} (docs/layers.md)`,
  severity: 'error',
  from: { path: at(folder) },
  to: { path: '^src/', pathNot: any([folder, ...below]) },
}));

// The pure core: planning, status, their views, the shared words, the types, and
// config apart from its one file reader. Functions of (config, snapshot, now).
const PURE_CORE = '^src/(fleet|plan|status|views|text|types|slurm)/|^src/config/';
const FILE_READER = '^src/config/(config-files|load-config)\\.ts$';

// What the node bundle (scripts/bundle.mjs) carries onto a GPU node or a router
// host: agent and router, never the reconciler.
const NODE_BUNDLE = '^src/(agent|router)/';
const RECONCILER_FOLDERS = '^src/(apply|ci|config|console|daemon|demo|fleet|gather|git|metrics|notify|plan|sim|status|store|tick|views)/';
const RECONCILER_PACKAGES = '(^|/)node_modules/(ssh2|simple-git|yaml|chokidar|node-cron|diff|marked|puppeteer-core)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycle between modules, type-only imports included (docs/layers.md)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'layers-folder-not-in-table',
      comment: 'every folder of src/ that imports anything has a row in LAYERS (.dependency-cruiser.cjs) and in docs/layers.md',
      severity: 'error',
      from: { path: '^src/', pathNot: any(Object.keys(LAYERS)) },
      to: {},
    },
    ...layerRules,
    {
      name: 'pure-core-no-io',
      comment: 'the pure core imports no file system, OS, process, network or clock module, nor the I/O wrappers of src/util (docs/layers.md)',
      severity: 'error',
      from: { path: PURE_CORE, pathNot: FILE_READER },
      to: {
        path: [
          '^(node:)?(fs|fs/promises|os|child_process|net|http|https|http2|tls|dgram|dns|readline|readline/promises|timers|timers/promises|worker_threads|cluster)$',
          '^src/util/(fs|regular-file|read-all|crash-point)\\.ts$',
        ],
      },
    },
    {
      name: 'pure-core-no-ssh-or-git',
      comment: 'the pure core reaches no node and no repository: no ssh2, no git, no gather/ or git/ (docs/layers.md)',
      severity: 'error',
      from: { path: PURE_CORE, pathNot: FILE_READER },
      to: { path: ['(^|/)node_modules/(ssh2|simple-git|isomorphic-git|nodegit)/', '^src/(gather|git|store)/'] },
    },
    {
      name: 'node-bundle-carries-no-reconciler',
      comment: "agent/ and router/ (the node bundle, scripts/bundle.mjs) reach none of the reconciler's folders or libraries (docs/layers.md)",
      severity: 'error',
      from: { path: NODE_BUNDLE },
      to: { reachable: true, path: [RECONCILER_FOLDERS, RECONCILER_PACKAGES] },
    },
    {
      name: 'node-bundle-no-ajv-compiler',
      comment: 'the bundle validates with precompiled validators: agent/ and router/ never import ajv itself (scripts/bundle.mjs)',
      severity: 'error',
      from: { path: '^src/(agent|router)/' },
      to: { path: '(^|/)node_modules/ajv/' },
    },
  ],
  options: {
    // LLMGW_LAYERS_STRICT=1 shows the known violations too (--no-ignore-known cannot undo a config's list).
    knownViolations: process.env.LLMGW_LAYERS_STRICT ? [] : require('./.dependency-cruiser-known-violations.json'),
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Report `node_modules/...` as the path whether node_modules is a directory or a link to one.
    preserveSymlinks: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

// For test/layers/ (the table equals docs/layers.md's); not enumerable, so
// dependency-cruiser's own check of this file's keys never sees it.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
