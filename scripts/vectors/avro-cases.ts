/**
 * Writes the Avro vector cases (test/unit/shared/plugins/converters/avro/avro-vector-cases.ts)
 * for scripts/vectors/AvroVectors.java: each case's Avro schema as this project maps it and its
 * value in Avro's JSON encoding, one JSON array on stdout. The JSON datum is written from the
 * values avsc would encode, walking avsc's type tree, never through avsc's binary encoder, so
 * Java's encoding of it is an independent check of ours.
 * Run by scripts/vectors/generate.sh.
 */
import { AvroData } from '../../shared/plugins/converters/avro/avro-codec.js';
import { compileToAvro } from '../../shared/plugins/converters/avro/avro-values.js';
import { avroJsonDatum as datum } from '../../test/support/avro-json-datum.js';
import { AVRO_CASES } from '../../test/unit/shared/plugins/converters/avro/avro-vector-cases.js';

const out = AVRO_CASES.map((c) => {
  const codec = new AvroData({ cacheSize: 10, ...c.options }).forConnectSchema(c.schema);
  const type = codec.avroType;
  const value = compileToAvro(c.schema, type)(c.value);
  return `  {"name": ${JSON.stringify(c.name)}, "schema": ${JSON.stringify(codec.schemaText)}, "datum": ${JSON.stringify(datum(type, value))}}`;
});
process.stdout.write(`[\n${out.join(',\n')}\n]\n`);
