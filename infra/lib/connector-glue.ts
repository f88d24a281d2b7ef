import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * What a connector declared in CDK needs of the AWS Glue Schema Registry: when its
 * `key.converter` or `value.converter` is Glue's Avro converter, the task function reads (and,
 * with `schemaAutoRegistrationEnabled=true`, registers) schemas in the converter's registry.
 * infra/ cannot read the plugins (the dependency rule), so the converter is known by its names
 * (shared/plugins/converters/glue/: the class, its simple name, its alias) and keys.
 */

const GLUE_CONVERTERS: ReadonlySet<string> = new Set([
  'com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter',
  'AWSKafkaAvroConverter',
  'glue-avro',
]);

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
  const stack = Stack.of(scope);
  return ['key.converter', 'value.converter'].flatMap((prefix) => {
    const converter = config[prefix]?.trim();
    if (converter === undefined || !GLUE_CONVERTERS.has(converter)) return [];
    const setting = (key: string) => config[`${prefix}.${key}`]?.trim() || undefined;
    const registry = setting('registry.name') ?? DEFAULT_REGISTRY;
    const region = setting('region') ?? stack.region;
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({
        service: 'glue',
        region,
        resource,
        resourceName,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    return [
      {
        resources: [arn('registry', registry), arn('schema', `${registry}/*`)],
        register: setting('schemaAutoRegistrationEnabled')?.toLowerCase() === 'true',
      },
    ];
  });
}

/** Actions on a registry and its schemas: finding a schema's version id, and registering. */
export const GLUE_READ_ACTIONS = ['glue:GetSchemaByDefinition'];
export const GLUE_REGISTER_ACTIONS = ['glue:CreateSchema', 'glue:RegisterSchemaVersion'];
/**
 * Reading a schema by its version id alone: AWS authorizes `GetSchemaVersion` only on `*`
 * (awslabs/aws-glue-schema-registry#68), a read of schema definitions.
 */
export const GLUE_VERSION_ACTIONS = ['glue:GetSchemaVersion'];
