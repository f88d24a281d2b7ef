/**
 * The four AWS Glue Schema Registry calls the Glue converters make, as a port (so the caching
 * client and the converter are tested with a fake, and run on the AWS SDK through
 * `glue-sdk-port.ts`), and the errors every implementation throws:
 *
 * | Glue answers | error | under the runtime |
 * |---|---|---|
 * | no answer (network, timeout), throttling, a server fault (5xx), `ConcurrentModificationException` | RetriableError | retried per `errors.retry.*`, then `errors.tolerance` |
 * | `EntityNotFoundException` for a schema or schema version | {@link GlueEntityNotFoundError} (DataError) | a record error under `errors.tolerance` |
 * | `InvalidInputException` (e.g. an invalid schema definition) | {@link GlueRequestError} (DataError) | a record error |
 * | `AlreadyExistsException` | {@link GlueAlreadyExistsError} (DataError; the client handles it) | - |
 * | the registry does not exist, access denied, another client fault | ConnectError | `errors.tolerance` (not the record's fault) |
 *
 * Messages carry Glue's own words (`Schema version is not found. SchemaVersionId: ...`), never
 * credentials.
 */
import { DataError } from 'serverless-connect/connect';

/** A schema in a registry, by names (Glue's `SchemaId`). */
export interface GlueSchemaId {
  readonly registryName: string;
  readonly schemaName: string;
}

/**
 * A schema version's status: AVAILABLE once the compatibility check passed, PENDING while it
 * runs, FAILURE when it failed, DELETING.
 */
export type GlueVersionStatus = 'AVAILABLE' | 'PENDING' | 'FAILURE' | 'DELETING' | (string & {});

/** A schema version as registering or finding it by definition answers. */
export interface GlueVersionRef {
  readonly schemaVersionId: string;
  readonly status: GlueVersionStatus;
}

/** A schema version as `GetSchemaVersion` answers. */
export interface GlueSchemaVersion extends GlueVersionRef {
  readonly schemaDefinition: string;
  /** `AVRO`, `JSON` or `PROTOBUF`. */
  readonly dataFormat: string;
  readonly schemaArn: string;
  readonly versionNumber: number | null;
}

/** What `CreateSchema` takes (the first version's definition with it). */
export interface CreateSchemaInput extends GlueSchemaId {
  readonly dataFormat: string;
  /** `NONE`, `DISABLED`, `BACKWARD`, `BACKWARD_ALL`, `FORWARD`, `FORWARD_ALL`, `FULL`, `FULL_ALL`. */
  readonly compatibility: string;
  /** `null`: the library's default, `DEFAULT-DESCRIPTION-<region>-<registry name>`. */
  readonly description: string | null;
  readonly schemaDefinition: string;
}

/**
 * The Glue Schema Registry calls. Each throws the errors of the module notes; none caches.
 */
export interface GlueRegistryPort {
  /** The version of `schemaId` whose definition is `definition` (`GetSchemaByDefinition`). */
  getSchemaByDefinition(schemaId: GlueSchemaId, definition: string): Promise<GlueVersionRef>;
  /** Creates the schema with its first version (`CreateSchema`). */
  createSchema(input: CreateSchemaInput): Promise<GlueVersionRef>;
  /** Registers `definition` as a version of `schemaId` (`RegisterSchemaVersion`). */
  registerSchemaVersion(schemaId: GlueSchemaId, definition: string): Promise<GlueVersionRef>;
  /** The version `schemaVersionId` (`GetSchemaVersion`). */
  getSchemaVersion(schemaVersionId: string): Promise<GlueSchemaVersion>;
}

/** What an `EntityNotFoundException` was about, from Glue's message. */
export type GlueMissingEntity = 'schema' | 'schema-version' | 'other';

/**
 * Glue has no such schema or schema version (`EntityNotFoundException`). `entity` is read from
 * Glue's message as the AWS library reads it ("Schema version is not found." / "Schema is not
 * found.").
 */
export class GlueEntityNotFoundError extends DataError {
  readonly entity: GlueMissingEntity;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.entity = missingEntityOf(message);
  }
}

/** Glue refused the request's input (`InvalidInputException`, `ValidationException`). */
export class GlueRequestError extends DataError {}

/** The schema exists already (`AlreadyExistsException`: another producer created it first). */
export class GlueAlreadyExistsError extends DataError {}

/** Which entity Glue's `EntityNotFoundException` message names. */
export function missingEntityOf(message: string): GlueMissingEntity {
  if (message.includes('Schema version is not found')) return 'schema-version';
  if (message.includes('Schema is not found')) return 'schema';
  return 'other';
}
