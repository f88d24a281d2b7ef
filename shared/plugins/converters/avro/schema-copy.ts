/** A copy of a Connect schema with some of its properties changed. */
import { ConnectSchema, type Schema, type SchemaInit } from 'serverless-connect/connect';

export function copySchema(schema: Schema, changes: Partial<SchemaInit>): Schema {
  return new ConnectSchema({
    type: schema.type,
    optional: schema.optional,
    defaultValue: schema.defaultValue,
    name: schema.name,
    version: schema.version,
    doc: schema.doc,
    parameters: schema.parameters,
    keySchema: schema.keySchema,
    valueSchema: schema.valueSchema,
    fields: schema.fields,
    ...changes,
  });
}
