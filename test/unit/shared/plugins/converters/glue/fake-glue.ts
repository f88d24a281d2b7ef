/**
 * An in-memory Glue Schema Registry behind the Glue port, answering as AWS Glue does (which moto
 * does not in two ways: Glue says "Schema version is not found." for a known schema without that
 * definition, and checks compatibility asynchronously: a registered version may be PENDING, then
 * AVAILABLE or FAILURE). `calls` lists the calls made; `statuses` scripts the statuses a
 * registered version goes through; `down` makes every call fail as an unreachable endpoint does.
 */
import { ConnectError, RetriableError } from '../../../../../../shared/connect/errors.js';
import {
  type CreateSchemaInput,
  GlueAlreadyExistsError,
  GlueEntityNotFoundError,
  type GlueRegistryPort,
  type GlueSchemaId,
  type GlueSchemaVersion,
  type GlueVersionRef,
} from '../../../../../../shared/plugins/converters/glue/glue-registry-port.js';

interface FakeVersion {
  readonly id: string;
  readonly schemaName: string;
  readonly definition: string;
  readonly dataFormat: string;
  readonly number: number;
  /** The statuses registering, then GetSchemaVersion, answer in turn (the last one stays). */
  readonly statuses: string[];
}

export class FakeGlue implements GlueRegistryPort {
  readonly calls: string[] = [];
  readonly created: CreateSchemaInput[] = [];
  /** Statuses of the next registered version (RegisterSchemaVersion answers the first). */
  statuses: string[] = ['AVAILABLE'];
  down = false;
  readonly registries = new Set(['default-registry']);
  readonly #schemas = new Map<string, FakeVersion[]>();
  readonly #byId = new Map<string, FakeVersion>();
  #next = 1;

  async getSchemaByDefinition(schemaId: GlueSchemaId, definition: string): Promise<GlueVersionRef> {
    this.#call(`GetSchemaByDefinition ${schemaId.schemaName}`);
    const versions = this.#schema(schemaId);
    const found = versions.find((v) => v.definition === definition);
    if (found === undefined) {
      throw new GlueEntityNotFoundError(
        `GetSchemaByDefinition failed: EntityNotFoundException: Schema version is not found. SchemaName: ${schemaId.schemaName}`,
      );
    }
    return { schemaVersionId: found.id, status: found.statuses[0] as string };
  }

  async createSchema(input: CreateSchemaInput): Promise<GlueVersionRef> {
    this.#call(`CreateSchema ${input.schemaName}`);
    this.#registry(input.registryName);
    if (this.#schemas.has(this.#key(input))) {
      throw new GlueAlreadyExistsError(
        `CreateSchema failed: AlreadyExistsException: Schema already exists. SchemaName: ${input.schemaName}`,
      );
    }
    this.created.push(input);
    this.#schemas.set(this.#key(input), []);
    return this.#add(input, input.schemaDefinition, input.dataFormat, ['AVAILABLE']);
  }

  async registerSchemaVersion(schemaId: GlueSchemaId, definition: string): Promise<GlueVersionRef> {
    this.#call(`RegisterSchemaVersion ${schemaId.schemaName}`);
    const versions = this.#schema(schemaId);
    const found = versions.find((v) => v.definition === definition);
    if (found !== undefined)
      return { schemaVersionId: found.id, status: found.statuses[0] as string };
    // A version has its schema's data format (RegisterSchemaVersion takes none).
    const dataFormat = versions[0]?.dataFormat ?? 'AVRO';
    return this.#add(schemaId, definition, dataFormat, [...this.statuses]);
  }

  async getSchemaVersion(schemaVersionId: string): Promise<GlueSchemaVersion> {
    this.#call(`GetSchemaVersion ${schemaVersionId}`);
    const found = this.#byId.get(schemaVersionId);
    if (found === undefined) {
      throw new GlueEntityNotFoundError(
        `GetSchemaVersion ${schemaVersionId} failed: EntityNotFoundException: Schema version is not found. SchemaVersionId: ${schemaVersionId}`,
      );
    }
    const status =
      found.statuses.length > 1
        ? (found.statuses.shift() as string)
        : (found.statuses[0] as string);
    return {
      schemaVersionId: found.id,
      schemaDefinition: found.definition,
      dataFormat: found.dataFormat,
      schemaArn: `arn:aws:glue:us-east-1:123456789012:schema/default-registry/${found.schemaName}`,
      versionNumber: found.number,
      status,
    };
  }

  /** Adds a version directly (e.g. a JSON schema another producer registered). */
  put(schemaName: string, definition: string, dataFormat: string): string {
    const id = { registryName: 'default-registry', schemaName };
    if (!this.#schemas.has(this.#key(id))) this.#schemas.set(this.#key(id), []);
    return this.#add(id, definition, dataFormat, ['AVAILABLE']).schemaVersionId;
  }

  #add(
    id: GlueSchemaId,
    definition: string,
    dataFormat: string,
    statuses: string[],
  ): GlueVersionRef {
    const versions = this.#schemas.get(this.#key(id)) as FakeVersion[];
    const n = this.#next++;
    const uuid = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const version = {
      id: uuid,
      schemaName: id.schemaName,
      definition,
      dataFormat,
      number: versions.length + 1,
      statuses,
    };
    versions.push(version);
    this.#byId.set(uuid, version);
    const status = statuses.length > 1 ? statuses.shift() : statuses[0];
    return { schemaVersionId: uuid, status: status as string };
  }

  #schema(id: GlueSchemaId): FakeVersion[] {
    this.#registry(id.registryName);
    const versions = this.#schemas.get(this.#key(id));
    if (versions === undefined) {
      throw new GlueEntityNotFoundError(
        `EntityNotFoundException: Schema is not found. RegistryName: ${id.registryName}, SchemaName: ${id.schemaName}`,
      );
    }
    return versions;
  }

  #registry(name: string): void {
    if (!this.registries.has(name)) {
      throw new ConnectError(
        `EntityNotFoundException: Registry is not found. RegistryName: ${name}`,
      );
    }
  }

  #key(id: GlueSchemaId): string {
    return `${id.registryName}\0${id.schemaName}`;
  }

  #call(what: string): void {
    this.calls.push(what);
    if (this.down)
      throw new RetriableError(`${what} failed: Error: connect ECONNREFUSED 127.0.0.1:1`);
  }
}
