/**
 * {@link GlueRegistryPort} over `@aws-sdk/client-glue` (external in the Lambda bundles: the
 * runtime ships it), with AWS SDK errors mapped as the port's notes say.
 */
import {
  type Compatibility,
  CreateSchemaCommand,
  type DataFormat,
  GetSchemaByDefinitionCommand,
  GetSchemaVersionCommand,
  GlueClient,
  RegisterSchemaVersionCommand,
} from '@aws-sdk/client-glue';
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import { type AwsConnection, awsClientSettings } from '../../connectors/aws-connection-config.js';
import {
  GlueAlreadyExistsError,
  GlueEntityNotFoundError,
  type GlueRegistryPort,
  GlueRequestError,
  type GlueSchemaId,
  type GlueVersionRef,
  missingEntityOf,
} from './glue-registry-port.js';

const RETRIABLE_NAMES = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'InternalServiceException',
  'InternalServerError',
  'ServiceUnavailable',
  'ConcurrentModificationException',
  'OperationTimeoutException',
  'TimeoutError',
]);

/** `error` (from the SDK) as the port's ConnectError, for the call `what`. */
export function toGlueError(error: unknown, what: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const text = typeof e.message === 'string' ? e.message : String(error);
  const message = `${what} failed: ${name}: ${text}`;
  const options = { cause: error };
  if (name === 'EntityNotFoundException') {
    return missingEntityOf(text) === 'other'
      ? new ConnectError(message, options) // e.g. the registry does not exist: not a record's fault
      : new GlueEntityNotFoundError(message, options);
  }
  if (name === 'AlreadyExistsException') return new GlueAlreadyExistsError(message, options);
  if (name === 'InvalidInputException' || name === 'ValidationException') {
    return new GlueRequestError(message, options);
  }
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : 0;
  const clientFault = e.$fault === 'client' || (status >= 400 && status < 500);
  if (clientFault && !RETRIABLE_NAMES.has(name) && status !== 429) {
    return new ConnectError(message, options);
  }
  // Server faults, throttling, and no answer at all (refused, reset, timed out).
  return new RetriableError(message, options);
}

function required(value: string | undefined, field: string, what: string): string {
  if (value === undefined) {
    throw new ConnectError(`${what} answered without ${field}`);
  }
  return value;
}

function sdkSchemaId(id: GlueSchemaId) {
  return { RegistryName: id.registryName, SchemaName: id.schemaName };
}

/**
 * The port over `client`. `description` of a created schema defaults to the library's
 * `DEFAULT-DESCRIPTION-<region>-<registry name>`, with the client's resolved region.
 */
export function sdkGluePort(client: GlueClient): GlueRegistryPort {
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toGlueError(error, what);
    }
  }
  return {
    getSchemaByDefinition(schemaId, definition) {
      const what = `GetSchemaByDefinition of schema ${schemaId.schemaName} in registry ${schemaId.registryName}`;
      return call(what, async (): Promise<GlueVersionRef> => {
        const out = await client.send(
          new GetSchemaByDefinitionCommand({
            SchemaId: sdkSchemaId(schemaId),
            SchemaDefinition: definition,
          }),
        );
        return {
          schemaVersionId: required(out.SchemaVersionId, 'SchemaVersionId', what),
          status: out.Status ?? 'AVAILABLE',
        };
      });
    },
    createSchema(input) {
      const what = `CreateSchema ${input.schemaName} in registry ${input.registryName}`;
      return call(what, async (): Promise<GlueVersionRef> => {
        const region = await client.config.region();
        const out = await client.send(
          new CreateSchemaCommand({
            RegistryId: { RegistryName: input.registryName },
            SchemaName: input.schemaName,
            DataFormat: input.dataFormat as DataFormat,
            Compatibility: input.compatibility as Compatibility,
            Description: input.description ?? `DEFAULT-DESCRIPTION-${region}-${input.registryName}`,
            SchemaDefinition: input.schemaDefinition,
          }),
        );
        return {
          schemaVersionId: required(out.SchemaVersionId, 'SchemaVersionId', what),
          status: out.SchemaVersionStatus ?? 'AVAILABLE',
        };
      });
    },
    registerSchemaVersion(schemaId, definition) {
      const what = `RegisterSchemaVersion of schema ${schemaId.schemaName} in registry ${schemaId.registryName}`;
      return call(what, async (): Promise<GlueVersionRef> => {
        const out = await client.send(
          new RegisterSchemaVersionCommand({
            SchemaId: sdkSchemaId(schemaId),
            SchemaDefinition: definition,
          }),
        );
        return {
          schemaVersionId: required(out.SchemaVersionId, 'SchemaVersionId', what),
          status: out.Status ?? 'AVAILABLE',
        };
      });
    },
    getSchemaVersion(schemaVersionId) {
      const what = `GetSchemaVersion ${schemaVersionId}`;
      return call(what, async () => {
        const out = await client.send(
          new GetSchemaVersionCommand({ SchemaVersionId: schemaVersionId }),
        );
        return {
          schemaVersionId: required(out.SchemaVersionId, 'SchemaVersionId', what),
          schemaDefinition: required(out.SchemaDefinition, 'SchemaDefinition', what),
          dataFormat: required(out.DataFormat, 'DataFormat', what),
          schemaArn: out.SchemaArn ?? '',
          versionNumber: out.VersionNumber ?? null,
          status: out.Status ?? 'AVAILABLE',
        };
      });
    },
  };
}

/** A Glue client for `connection` (region, endpoint, explicit credentials when configured). */
export function glueClientFor(connection: AwsConnection): GlueClient {
  return new GlueClient(awsClientSettings(connection));
}
