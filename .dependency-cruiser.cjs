// The layers of src/ and the imports each may make (docs/architecture.md draws the same
// table). `npm test` runs `npm run check:layers`, which fails on any import that breaks a rule
// here. Imports that broke a rule before the rules existed are listed in
// .dependency-cruiser-known-violations.json: they are the remaining work of making operations
// the only door, and that list may only shrink (regenerate it with `npm run check:layers:baseline`
// after removing some; never to admit a new one).

/** A rule that files in `from` import only from the folders in `allowed` (and their own folder). */
function onlyFrom(name, from, allowed, comment) {
  const own = from.replace(/^\^src\//, '').replace(/\/$/, '');
  const targets = ['core', ...allowed, own].map((folder) => `src/${folder}/`).join('|').replace(/\//g, '\\/');
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^src/${own}/` },
    to: { path: '^src/', pathNot: `^(${targets})` },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing',
      comment: 'The vocabulary (statuses, kinds, event types, ids, the clock) depends on nothing else in src.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    onlyFrom('store-on-core', 'store', [], 'The store (all SQL) knows only the vocabulary.'),
    onlyFrom('bus-on-store', 'bus', ['store'], 'Wake-ups ride on the store (and LISTEN/NOTIFY on PostgreSQL).'),
    onlyFrom('mind-on-store', 'mind', ['store'], 'Minds, intentions, beliefs and predictions are rules over the store.'),
    onlyFrom('capabilities-on-store', 'capabilities', ['store'], 'Capabilities, policy and approvals act and record through the store, nothing above it.'),
    onlyFrom('planning-on-capabilities', 'planning', ['capabilities'], 'Validation and strategies are pure: the vocabulary and the capability registry (read-only).'),
    onlyFrom('access-on-capabilities', 'access', ['store', 'capabilities'], 'Who may do what: tokens, roles and the caller identity.'),
    onlyFrom('drafting-below-execution', 'drafting', ['store', 'mind', 'capabilities', 'planning'], 'The I/O around the pure planner: reads what a plan needs, asks the model role, stores the plan.'),
    onlyFrom('execution-below-operations', 'execution', ['store', 'bus', 'mind', 'capabilities', 'planning', 'drafting'], 'The executor uses every layer below it and none above.'),
    onlyFrom('notify-on-bus', 'notify', ['store', 'bus', 'capabilities'], 'Webhooks follow the event log; the daemon hands them their settings.'),
    onlyFrom('telemetry-on-bus', 'telemetry', ['store', 'bus'], 'Traces follow the event log; the daemon hands them their settings.'),
    onlyFrom('operations-below-surfaces', 'operations', ['store', 'bus', 'mind', 'capabilities', 'planning', 'drafting', 'execution', 'access'], 'The shared operations every surface calls.'),
    onlyFrom('server-through-operations', 'server', ['operations', 'access'], 'The HTTP API is a surface: it calls operations with a caller identity.'),
    onlyFrom('mcp-through-operations', 'mcp', ['operations', 'access'], 'MCP is a surface: it calls operations with a caller identity.'),
    onlyFrom('cli-through-operations', 'cli', ['operations', 'access', 'daemon'], 'The CLI is a surface (and the process entry, so it may start the daemon).'),
    {
      name: 'nothing-imports-surfaces',
      comment: 'Only the daemon (the composition root) and the CLI (the process entry) start a surface.',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: '^src/(daemon|cli)/' },
      to: { path: '^src/(server|mcp|cli)/', pathNot: '^src/$1/' },
    },
    {
      name: 'nothing-imports-the-daemon',
      comment: 'The daemon composes everything; only the CLI starts it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(daemon|cli)/' },
      to: { path: '^src/daemon/' },
    },
    {
      name: 'catalogue-loads-code-lazily',
      comment:
        'The registry and the capability catalogue are loaded by `praxis validate` and every daemon at start-up; a capability reaches its implementation code (host/, browser/) only behind import(), at its first invocation.',
      severity: 'error',
      from: { path: '^src/capabilities/(catalogue/|registry\\.ts$|module\\.ts$|builtin-implementations\\.ts$)' },
      to: { path: '^src/capabilities/(host|browser)/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle of runtime imports makes load order matter; type-only imports do not count.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports is dead code (entry points excepted).',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: ['^src/index\\.ts$', '\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|web)/' },
  },
};
