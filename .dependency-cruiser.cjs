/**
 * The dependency rule (docs/architecture.md): the plugin API is pure, ports are interfaces,
 * the runtime orchestrates, adapters touch the outside world, and functions/ and local/ are
 * the only composition roots. `npm run arch` (part of `npm run lint`) fails on a violation.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'connect-is-pure',
      comment:
        'shared/connect is the plugin API: it imports nothing outside itself, not even node:*',
      severity: 'error',
      from: { path: '^shared/connect/' },
      to: { pathNot: '^shared/connect/' },
    },
    {
      name: 'config-is-worker-configuration',
      comment:
        'shared/config (worker and connector configuration, placeholders) builds on the plugin API only: pure, like it',
      severity: 'error',
      from: { path: '^shared/config/' },
      to: { pathNot: '^shared/(config|connect)/' },
    },
    {
      name: 'ports-are-interfaces',
      comment: 'shared/ports imports only shared/connect and shared/config',
      severity: 'error',
      from: { path: '^shared/ports/' },
      to: { pathNot: '^shared/(ports|connect|config)/' },
    },
    {
      name: 'runtime-over-ports',
      comment:
        'shared/runtime imports connect, config and ports (and node built-ins), never adapters or SDKs',
      severity: 'error',
      from: { path: '^shared/runtime/' },
      to: {
        pathNot: '^(shared/(runtime|ports|connect|config)/|node:)',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'runtime-wings-side-by-side',
      comment:
        'source, sink and enumerator never import each other; what they share lives below them in runtime/task and runtime/pipeline',
      severity: 'error',
      from: { path: '^shared/runtime/(source|sink|enumerator)/' },
      to: { path: '^shared/runtime/(source|sink|enumerator)/', pathNot: '^shared/runtime/$1/' },
    },
    {
      name: 'runtime-below-the-wings',
      comment: 'runtime/task and runtime/pipeline serve the wings and never import them',
      severity: 'error',
      from: { path: '^shared/runtime/(task|pipeline)/' },
      to: { path: '^shared/runtime/(source|sink|enumerator)/' },
    },
    {
      name: 'task-below-pipeline',
      comment: 'runtime/task (what a task is) does not depend on the record pipeline',
      severity: 'error',
      from: { path: '^shared/runtime/task/' },
      to: { path: '^shared/runtime/pipeline/' },
    },
    {
      name: 'control-plane-over-runtime',
      comment: 'shared/control-plane imports runtime, ports, config and connect only',
      severity: 'error',
      from: { path: '^shared/control-plane/' },
      to: {
        pathNot: '^shared/(control-plane|runtime|ports|connect|config)/',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'engine-over-ports',
      comment:
        'shared/engine builds the object graph from ports: it may import everything in shared/ but the adapters',
      severity: 'error',
      from: { path: '^shared/engine/' },
      to: { path: '^shared/adapters/|^(functions|local|infra)/' },
    },
    {
      name: 'only-roots-import-the-engine',
      comment:
        'the engine is built by the composition roots (functions/, local/), never inside shared/',
      severity: 'error',
      from: { path: '^shared/', pathNot: '^shared/engine/' },
      to: { path: '^shared/engine/' },
    },
    {
      name: 'adapters-stay-in-their-lane',
      comment:
        'an adapter imports ports, connect, its own folder and its SDK; never another adapter or the runtime',
      severity: 'error',
      from: { path: '^shared/adapters/([^/]+)/' },
      to: { path: '^shared/(adapters/(?!$1/)|runtime/|control-plane/|plugins/|engine/)' },
    },
    {
      name: 'plugins-over-connect',
      comment:
        'built-in plugins import the plugin API (and the AWS SDK client of the service a connector talks to)',
      severity: 'error',
      from: { path: '^shared/plugins/' },
      to: {
        path: '^shared/(runtime|ports|adapters|control-plane|config)/|^(functions|local|infra)/',
      },
    },
    {
      name: 'testkit-over-connect',
      comment:
        'shared/testkit (the connector test kit, serverless-connect/testkit) is what a plugin author depends on: it imports only the plugin API, no runtime, no adapter, not even node:*',
      severity: 'error',
      from: { path: '^shared/testkit/' },
      to: { pathNot: '^shared/(testkit|connect)/' },
    },
    {
      name: 'only-tests-import-the-testkit',
      comment:
        'the connector test kit is for tests: nothing in shared/, functions/, local/ or infra/ imports it',
      severity: 'error',
      from: { path: '^(shared|functions|local|infra)/', pathNot: '^shared/testkit/' },
      to: { path: '^shared/testkit/' },
    },
    {
      name: 'plugins-through-the-entry-point',
      comment:
        'built-in plugins reach the plugin API only as a plugin package does: through its entry point, serverless-connect/connect (shared/connect/index.ts), never a file behind it',
      severity: 'error',
      from: { path: '^shared/plugins/' },
      to: { path: '^shared/connect/', pathNot: '^shared/connect/index\\.ts$' },
    },
    {
      name: 'plugins-import-the-package-name',
      comment:
        "the entry point by its package name, not a relative path: `import ... from 'serverless-connect/connect'` (a self-reference, which dependency-cruiser does not call local)",
      severity: 'error',
      from: { path: '^shared/plugins/' },
      to: { path: '^shared/connect/', dependencyTypes: ['local'] },
    },
    {
      name: 'examples-are-plugin-packages',
      comment:
        "an example under examples/ is a plugin package of its own: it imports its own files and the plugin API through its entry point, 'serverless-connect/connect', nothing else of ours (tests may also use the test kit)",
      severity: 'error',
      from: { path: '^examples/([^/]+)/' },
      to: {
        path: '^(shared|functions|local|infra|test|bench|scripts|types)/|^examples/(?!$1/)',
        pathNot: '^shared/(connect|testkit)/index\\.ts$',
      },
    },
    {
      name: 'examples-import-the-package-name',
      comment:
        'examples reach the plugin API by its package name, as a package outside this repository does, never by a relative path',
      severity: 'error',
      from: { path: '^examples/' },
      to: { path: '^shared/', dependencyTypes: ['local'] },
    },
    {
      name: 'examples-src-use-no-test-kit',
      comment: "the test kit is for the example's tests, not its source",
      severity: 'error',
      from: { path: '^examples/[^/]+/src/' },
      to: { path: '^shared/testkit/' },
    },
    {
      name: 'shared-never-imports-roots',
      comment: 'functions/, local/ and infra/ are composition roots; shared/ never imports them',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions|local|infra|test|bench)/' },
    },
    {
      name: 'infra-reads-only-the-table-schema',
      comment: 'infra/ imports aws-cdk-lib and the pure table schema file, nothing else of shared/',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^shared/', pathNot: '^shared/adapters/dynamodb/table-schema\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
