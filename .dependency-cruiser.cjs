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
      name: 'ports-are-interfaces',
      comment: 'shared/ports imports only shared/connect',
      severity: 'error',
      from: { path: '^shared/ports/' },
      to: { pathNot: '^shared/(ports|connect)/' },
    },
    {
      name: 'runtime-over-ports',
      comment:
        'shared/runtime imports connect and ports (and node built-ins), never adapters or SDKs',
      severity: 'error',
      from: { path: '^shared/runtime/' },
      to: { pathNot: '^(shared/(runtime|ports|connect)/|node:)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'control-plane-over-runtime',
      comment: 'shared/control-plane imports runtime, ports and connect only',
      severity: 'error',
      from: { path: '^shared/control-plane/' },
      to: {
        pathNot: '^shared/(control-plane|runtime|ports|connect)/',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'adapters-stay-in-their-lane',
      comment:
        'an adapter imports ports, connect, its own folder and its SDK; never another adapter or the runtime',
      severity: 'error',
      from: { path: '^shared/adapters/([^/]+)/' },
      to: { path: '^shared/(adapters/(?!$1/)|runtime/|control-plane/|plugins/)' },
    },
    {
      name: 'plugins-over-connect',
      comment:
        'built-in plugins import the plugin API (and the AWS SDK client of the service a connector talks to)',
      severity: 'error',
      from: { path: '^shared/plugins/' },
      to: {
        path: '^shared/(runtime|ports|adapters|control-plane)/|^(functions|local|infra)/',
      },
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
