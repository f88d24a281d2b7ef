import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { grantBySid } from './role-statements.js';

/**
 * What the task functions need of the AWS Glue Schema Registry: a connector whose
 * `key.converter` or `value.converter` is one of Glue's converters reads (and, with
 * `schemaAutoRegistrationEnabled=true`, registers) schemas in the converter's registry. Granted
 * per `Connector` construct from its config ({@link glueRegistryUses}), or for the whole
 * deployment ({@link GlueSchemaRegistryOptions}: connectors created through REST), with the same
 * statements ({@link grantGlueRegistries}). infra/ cannot read the plugins (the dependency rule),
 * so the converters are known by their names (shared/plugins/converters/glue/: the classes, their
 * simple names, their aliases) and keys.
 */

const GLUE_CONVERTERS: ReadonlySet<string> = new Set([
  'com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter',
  'AWSKafkaAvroConverter',
  'glue-avro',
  'com.amazonaws.services.schemaregistry.kafkaconnect.protobuf.ProtobufSchemaConverter',
  'ProtobufSchemaConverter',
  'ProtobufSchema',
  'glue-protobuf',
  'com.amazonaws.services.schemaregistry.kafkaconnect.jsonschema.JsonSchemaConverter',
  'glue-json-schema',
]);

/** The Glue registries every task function of a deployment may use (`glueSchemaRegistry`). */
export interface GlueSchemaRegistryOptions {
  /** The registries' names (`registry.name` of the connectors' converters). */
  readonly registries: readonly string[];
  /**
   * Whether the converters may create schemas and register versions there
   * (`schemaAutoRegistrationEnabled=true`). @default false
   */
  readonly autoRegister?: boolean;
  /** The registries' region. @default - the stack's */
  readonly region?: string;
}

/** The AWS library's default registry when `registry.name` is unset. */
const DEFAULT_REGISTRY = 'default-registry';

/** One registry a connector's converter uses, and whether it may register schemas there. */
export interface GlueRegistryUse {
  /** The registry's ARN and its schemas' (`schema/<registry>/*`). */
  readonly resources: readonly string[];
  readonly register: boolean;
}

/**
 * The Glue registries `config`'s converters use (none when neither converter is Glue's). A
 * converter's `region` key picks the registry's region (the stack's by default), as the converter
 * itself does.
 */
export function glueRegistryUses(
  scope: Construct,
  config: Readonly<Record<string, string>>,
): GlueRegistryUse[] {
  return ['key.converter', 'value.converter'].flatMap((prefix) => {
    const converter = config[prefix]?.trim();
    if (converter === undefined || !GLUE_CONVERTERS.has(converter)) return [];
    const setting = (key: string) => config[`${prefix}.${key}`]?.trim() || undefined;
    return [
      {
        resources: registryResources(
          scope,
          setting('registry.name') ?? DEFAULT_REGISTRY,
          setting('region'),
        ),
        register: setting('schemaAutoRegistrationEnabled')?.toLowerCase() === 'true',
      },
    ];
  });
}

/** The registries of a deployment's {@link GlueSchemaRegistryOptions}. */
export function deploymentGlueRegistryUses(
  scope: Construct,
  options: GlueSchemaRegistryOptions,
): GlueRegistryUse[] {
  return options.registries.map((registry) => {
    if (registry.trim() === '') throw new Error('glueSchemaRegistry: a registry name is empty');
    return {
      resources: registryResources(scope, registry.trim(), options.region),
      register: options.autoRegister === true,
    };
  });
}

/** The ARNs of `registry` and its schemas (`schema/<registry>/*`) in `region` (the stack's). */
function registryResources(scope: Construct, registry: string, region: string | undefined) {
  const stack = Stack.of(scope);
  const arn = (resource: string, resourceName: string) =>
    stack.formatArn({
      service: 'glue',
      region: region ?? stack.region,
      resource,
      resourceName,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  return [arn('registry', registry), arn('schema', `${registry}/*`)];
}

/**
 * Lets `role` use Glue registries `uses`: find schema versions (`ConnectorGlueSchemas`),
 * register schemas where auto-registration is on (`ConnectorGlueRegister`), and read a version by
 * its id (`ConnectorGlueSchemaVersions`); one statement per `Sid` and role, whoever grants it.
 */
export function grantGlueRegistries(role: IRole, uses: readonly GlueRegistryUse[]): void {
  if (uses.length === 0) return;
  grantBySid(
    role,
    'ConnectorGlueSchemas',
    GLUE_READ_ACTIONS,
    uses.flatMap((u) => u.resources),
  );
  const registering = uses.filter((use) => use.register).flatMap((use) => use.resources);
  if (registering.length > 0) {
    grantBySid(role, 'ConnectorGlueRegister', GLUE_REGISTER_ACTIONS, registering);
  }
  grantBySid(role, 'ConnectorGlueSchemaVersions', GLUE_VERSION_ACTIONS, ['*']);
}

/** Actions on a registry and its schemas: finding a schema's version id, and registering. */
export const GLUE_READ_ACTIONS = ['glue:GetSchemaByDefinition'];
export const GLUE_REGISTER_ACTIONS = ['glue:CreateSchema', 'glue:RegisterSchemaVersion'];
/**
 * Reading a schema by its version id alone: AWS authorizes `GetSchemaVersion` only on `*`
 * (awslabs/aws-glue-schema-registry#68), a read of schema definitions.
 */
export const GLUE_VERSION_ACTIONS = ['glue:GetSchemaVersion'];
