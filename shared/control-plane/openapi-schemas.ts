/**
 * The component schemas and path parameters of the OpenAPI description (openapi.ts): the JSON
 * shapes of dto.ts and of Connect's config entities.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const schemas = {
  ErrorMessage: {
    type: 'object',
    required: ['error_code', 'message'],
    properties: { error_code: { type: 'integer' }, message: { type: ['string', 'null'] } },
  },
  ServerInfo: {
    type: 'object',
    required: ['version', 'commit', 'kafka_cluster_id'],
    properties: {
      version: { type: 'string', description: 'The Kafka Connect version reproduced' },
      commit: { type: 'string' },
      kafka_cluster_id: { type: 'string' },
      serverless_connect_version: { type: 'string' },
    },
  },
  WorkerStatus: {
    type: 'object',
    required: ['status', 'message'],
    properties: {
      status: { type: 'string', enum: ['healthy', 'starting', 'unhealthy'] },
      message: { type: 'string' },
    },
  },
  ConfigMap: { type: 'object', additionalProperties: { type: 'string' } },
  ConfigInput: {
    type: 'object',
    description:
      'Numbers and booleans are stored as strings; null is an error (a removal in PATCH)',
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
  },
  CreateConnectorRequest: {
    type: 'object',
    required: ['config'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      config: ref('ConfigInput'),
      initial_state: { type: 'string', enum: ['RUNNING', 'PAUSED', 'STOPPED'] },
    },
  },
  ConnectorTaskId: {
    type: 'object',
    required: ['connector', 'task'],
    properties: { connector: { type: 'string' }, task: { type: 'integer' } },
  },
  ConnectorType: { type: 'string', enum: ['source', 'sink', 'unknown'] },
  ConnectorInfo: {
    type: 'object',
    required: ['name', 'config', 'tasks', 'type'],
    properties: {
      name: { type: 'string' },
      config: ref('ConfigMap'),
      tasks: { type: 'array', items: ref('ConnectorTaskId') },
      type: ref('ConnectorType'),
    },
  },
  ConnectorState: {
    type: 'object',
    required: ['state', 'worker_id'],
    properties: {
      state: {
        type: 'string',
        enum: ['UNASSIGNED', 'RUNNING', 'PAUSED', 'STOPPED', 'FAILED', 'RESTARTING'],
      },
      worker_id: { type: 'string' },
      trace: { type: 'string' },
    },
  },
  TaskState: {
    type: 'object',
    required: ['id', 'state', 'worker_id'],
    properties: {
      id: { type: 'integer' },
      state: { type: 'string', enum: ['UNASSIGNED', 'RUNNING', 'PAUSED', 'FAILED', 'RESTARTING'] },
      worker_id: { type: 'string' },
      trace: { type: 'string' },
    },
  },
  ConnectorStateInfo: {
    type: 'object',
    required: ['name', 'connector', 'tasks', 'type'],
    properties: {
      name: { type: 'string' },
      connector: ref('ConnectorState'),
      tasks: { type: 'array', items: ref('TaskState') },
      type: ref('ConnectorType'),
    },
  },
  ConnectorExpansion: {
    type: 'object',
    properties: {
      status: ref('ConnectorStateInfo'),
      info: { oneOf: [ref('ConnectorInfo'), { type: 'null' }] },
      cost: {
        description: 'serverless-connect extension (expand=cost), not Apache Kafka Connect’s',
        oneOf: [ref('ConnectorCost'), { type: 'null' }],
      },
    },
  },
  TaskInfo: {
    type: 'object',
    required: ['id', 'config'],
    properties: { id: ref('ConnectorTaskId'), config: ref('ConfigMap') },
  },
  ConnectorOffset: {
    type: 'object',
    required: ['partition'],
    additionalProperties: false,
    properties: {
      partition: {
        type: 'object',
        description:
          'Sink: {"kafka_topic", "kafka_partition"}; source: the source partition (primitive values)',
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      },
      offset: {
        type: ['object', 'null'],
        description: 'Sink: {"kafka_offset"}; source: the source offset; null resets',
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      },
    },
  },
  ConnectorOffsets: {
    type: 'object',
    required: ['offsets'],
    additionalProperties: false,
    properties: { offsets: { type: 'array', items: ref('ConnectorOffset') } },
  },
  Message: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  PluginInfo: {
    type: 'object',
    required: ['class', 'type'],
    properties: {
      class: { type: 'string' },
      type: {
        type: 'string',
        enum: ['source', 'sink', 'converter', 'header_converter', 'transformation', 'predicate'],
      },
      version: { type: 'string' },
    },
  },
  ConfigKeyInfo: {
    type: 'object',
    required: ['name', 'type', 'required', 'importance', 'documentation'],
    properties: {
      name: { type: 'string' },
      type: {
        type: 'string',
        enum: ['BOOLEAN', 'STRING', 'INT', 'SHORT', 'LONG', 'DOUBLE', 'LIST', 'CLASS', 'PASSWORD'],
      },
      required: { type: 'boolean' },
      default_value: { type: ['string', 'null'] },
      importance: { type: 'string', enum: ['HIGH', 'MEDIUM', 'LOW'] },
      documentation: { type: 'string' },
      group: { type: ['string', 'null'] },
      width: { type: 'string', enum: ['NONE', 'SHORT', 'MEDIUM', 'LONG'] },
      display_name: { type: 'string' },
      dependents: { type: 'array', items: { type: 'string' } },
      order: { type: 'integer' },
    },
  },
  ConfigValueInfo: {
    type: 'object',
    required: ['name', 'errors'],
    properties: {
      name: { type: 'string' },
      value: { type: ['string', 'null'] },
      recommended_values: { type: 'array', items: { type: ['string', 'null'] } },
      errors: { type: 'array', items: { type: 'string' } },
      visible: { type: 'boolean' },
    },
  },
  ConfigInfos: {
    type: 'object',
    required: ['name', 'error_count', 'groups', 'configs'],
    properties: {
      name: { type: 'string' },
      error_count: { type: 'integer' },
      groups: { type: 'array', items: { type: 'string' } },
      configs: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            definition: { oneOf: [ref('ConfigKeyInfo'), { type: 'null' }] },
            value: { oneOf: [ref('ConfigValueInfo'), { type: 'null' }] },
          },
        },
      },
    },
  },
  LoggerLevel: {
    type: 'object',
    required: ['level', 'last_modified'],
    properties: { level: { type: 'string' }, last_modified: { type: ['integer', 'null'] } },
  },
  LoggerLevelRequest: {
    type: 'object',
    required: ['level'],
    properties: {
      level: {
        type: 'string',
        enum: ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'],
      },
    },
  },
} as const;

export const parameters = {
  connector: {
    name: 'connector',
    in: 'path',
    required: true,
    description: 'The connector name, percent-encoded (a `/` in a name is `%2F`)',
    schema: { type: 'string' },
  },
  task: { name: 'task', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } },
  plugin: {
    name: 'plugin',
    in: 'path',
    required: true,
    description: 'A plugin class name or alias',
    schema: { type: 'string' },
  },
  logger: { name: 'logger', in: 'path', required: true, schema: { type: 'string' } },
} as const;
