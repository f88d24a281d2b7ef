import {
  CreateAliasCommand,
  CreateEventSourceMappingCommand,
  DeleteEventSourceMappingCommand,
  type EventSourceMappingConfiguration,
  type LambdaClient,
  ListAliasesCommand,
  ListEventSourceMappingsCommand,
  ListTagsCommand,
  type SourceAccessConfiguration,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import type { SinkMapping, SinkMappingPort, SinkMappingSpec } from '../../ports/dispatch.js';

/** The tag naming a mapping's connector (group ids are sanitised, so they cannot say). */
export const CONNECTOR_TAG = 'serverless-connect:connector';

/** Where the sink function's mappings read from. */
export type KafkaClusterSource =
  | {
      readonly kind: 'msk';
      readonly clusterArn: string;
      /** SASL/SCRAM secret (`SASL_SCRAM_512_AUTH`); none for MSK IAM or an open cluster. */
      readonly accessConfigurations?: readonly SourceAccessConfiguration[];
    }
  | {
      readonly kind: 'self-managed';
      readonly bootstrapServers: readonly string[];
      /** Auth secret, VPC subnets and security groups, CA certificate, as Lambda takes them. */
      readonly accessConfigurations?: readonly SourceAccessConfiguration[];
    };

export interface LambdaSinkMappingsOptions {
  /** The sink-task function the mappings invoke (unqualified name or ARN). */
  readonly functionName: string;
  readonly cluster: KafkaClusterSource;
  /**
   * The alias of the sink function a connector's mappings invoke (the event does not name the
   * connector; the handler reads the alias from its invoked ARN). Aliases point at `$LATEST`.
   */
  readonly aliasOf: (connector: string) => string;
}

/** The prefix every connector alias starts with (see `sinkFunctionAlias`). */
const ALIAS_PREFIX = 'c-';

const GONE_STATES = new Set(['Deleting']);
const DISABLED_STATES = new Set(['Disabled', 'Disabling']);

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : '';
}

/**
 * Sink mappings as Lambda event source mappings of the sink function, one per connector and
 * topic, each invoking the function through the connector's alias and tagged with the
 * connector's name. Tags never change, so they are read once per mapping and container.
 * Aliases are created with the first mapping and kept (they cost nothing; a connector created
 * again under the same name reuses its alias).
 */
export class LambdaSinkMappings implements SinkMappingPort {
  readonly #connectorOf = new Map<string, string | undefined>();
  readonly #aliases = new Set<string>();

  constructor(
    private readonly client: LambdaClient,
    private readonly options: LambdaSinkMappingsOptions,
  ) {}

  async list(connector?: string): Promise<SinkMapping[]> {
    const aliases =
      connector === undefined ? await this.#listAliases() : [this.options.aliasOf(connector)];
    const found: SinkMapping[] = [];
    for (const alias of aliases) {
      let marker: string | undefined;
      do {
        const page = await this.client.send(
          new ListEventSourceMappingsCommand({
            FunctionName: this.#qualified(alias),
            ...(marker === undefined ? {} : { Marker: marker }),
          }),
        );
        for (const config of page.EventSourceMappings ?? []) {
          const mapping = await this.#toMapping(config);
          if (
            mapping !== undefined &&
            (connector === undefined || mapping.connector === connector)
          ) {
            found.push(mapping);
          }
        }
        marker = page.NextMarker;
      } while (marker !== undefined);
    }
    return found;
  }

  async create(spec: SinkMappingSpec): Promise<SinkMapping> {
    const { cluster } = this.options;
    const alias = await this.#ensureAlias(spec.connector);
    try {
      const created = await this.client.send(
        new CreateEventSourceMappingCommand({
          FunctionName: this.#qualified(alias),
          Topics: [spec.topic],
          StartingPosition: spec.startingPosition,
          BatchSize: spec.batchSize,
          MaximumBatchingWindowInSeconds: spec.maxBatchingWindowSeconds,
          Enabled: spec.enabled,
          Tags: { [CONNECTOR_TAG]: spec.connector },
          ...(cluster.kind === 'msk'
            ? {
                EventSourceArn: cluster.clusterArn,
                AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: spec.groupId },
                ...(cluster.accessConfigurations === undefined
                  ? {}
                  : { SourceAccessConfigurations: [...cluster.accessConfigurations] }),
              }
            : {
                SelfManagedEventSource: {
                  Endpoints: { KAFKA_BOOTSTRAP_SERVERS: [...cluster.bootstrapServers] },
                },
                SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: spec.groupId },
                ...(cluster.accessConfigurations === undefined
                  ? {}
                  : { SourceAccessConfigurations: [...cluster.accessConfigurations] }),
              }),
        }),
      );
      if (created.UUID !== undefined) this.#connectorOf.set(created.UUID, spec.connector);
      return { ...spec, id: created.UUID ?? '' };
    } catch (error) {
      if (nameOf(error) !== 'ResourceConflictException') throw error;
      // Another run created it first: return that one.
      const existing = (await this.list(spec.connector)).find((m) => m.topic === spec.topic);
      if (existing === undefined) throw error;
      return existing;
    }
  }

  async update(mapping: SinkMapping, spec: SinkMappingSpec): Promise<SinkMapping> {
    try {
      await this.client.send(
        new UpdateEventSourceMappingCommand({
          UUID: mapping.id,
          Enabled: spec.enabled,
          BatchSize: spec.batchSize,
          MaximumBatchingWindowInSeconds: spec.maxBatchingWindowSeconds,
        }),
      );
    } catch (error) {
      // A mapping in transition refuses changes; the next enumerator run tries again.
      if (nameOf(error) !== 'ResourceInUseException') throw error;
      return mapping;
    }
    return { ...mapping, ...spec, id: mapping.id };
  }

  async delete(mapping: SinkMapping): Promise<void> {
    try {
      await this.client.send(new DeleteEventSourceMappingCommand({ UUID: mapping.id }));
    } catch (error) {
      if (nameOf(error) !== 'ResourceNotFoundException') throw error;
    }
    this.#connectorOf.delete(mapping.id);
  }

  #qualified(alias: string): string {
    return `${this.options.functionName}:${alias}`;
  }

  /** The connector aliases of the sink function. */
  async #listAliases(): Promise<string[]> {
    const names: string[] = [];
    let marker: string | undefined;
    do {
      const page = await this.client.send(
        new ListAliasesCommand({
          FunctionName: this.options.functionName,
          ...(marker === undefined ? {} : { Marker: marker }),
        }),
      );
      for (const alias of page.Aliases ?? []) {
        if (alias.Name?.startsWith(ALIAS_PREFIX)) names.push(alias.Name);
      }
      marker = page.NextMarker;
    } while (marker !== undefined);
    return names;
  }

  /** Creates the connector's alias (on `$LATEST`) unless this container saw it already. */
  async #ensureAlias(connector: string): Promise<string> {
    const alias = this.options.aliasOf(connector);
    if (this.#aliases.has(alias)) return alias;
    try {
      await this.client.send(
        new CreateAliasCommand({
          FunctionName: this.options.functionName,
          Name: alias,
          FunctionVersion: '$LATEST',
          Description: `serverless-connect sink connector ${connector}`.slice(0, 256),
        }),
      );
    } catch (error) {
      // It exists already (an earlier run, or a connector of the same name before).
      if (nameOf(error) !== 'ResourceConflictException') throw error;
    }
    this.#aliases.add(alias);
    return alias;
  }

  async #toMapping(config: EventSourceMappingConfiguration): Promise<SinkMapping | undefined> {
    const id = config.UUID;
    const topic = config.Topics?.[0];
    if (id === undefined || topic === undefined || GONE_STATES.has(config.State ?? '')) {
      return undefined;
    }
    if (!this.#connectorOf.has(id) && config.EventSourceMappingArn !== undefined) {
      const tags = await this.client.send(
        new ListTagsCommand({ Resource: config.EventSourceMappingArn }),
      );
      this.#connectorOf.set(id, tags.Tags?.[CONNECTOR_TAG]);
    }
    const connector = this.#connectorOf.get(id);
    if (connector === undefined) return undefined; // not one of ours
    const groupId =
      config.AmazonManagedKafkaEventSourceConfig?.ConsumerGroupId ??
      config.SelfManagedKafkaEventSourceConfig?.ConsumerGroupId ??
      id;
    return {
      id,
      connector,
      topic,
      groupId,
      startingPosition: config.StartingPosition === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON',
      batchSize: config.BatchSize ?? 100,
      maxBatchingWindowSeconds: config.MaximumBatchingWindowInSeconds ?? 0,
      enabled: !DISABLED_STATES.has(config.State ?? ''),
    };
  }
}
