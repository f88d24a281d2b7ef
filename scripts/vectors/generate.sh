#!/usr/bin/env bash
# Regenerates the converter test vectors with Apache Kafka Connect's own classes (from Maven
# Central, see pom.xml). Needs Java 17+ and Maven.
#
# - test/fixtures/json-converter-vectors.json: JsonConverter (org.apache.kafka:connect-json)
#   over the cases in JsonConverterVectors.java. Each vector holds the exact bytes Connect
#   writes (`json`) and what Connect's own toConnectData + fromConnectData give back (`roundTrip`).
# - test/fixtures/primitive-converter-vectors.json: Long/Integer/Short/Float/Double/
#   BooleanConverter (org.apache.kafka:connect-runtime) over the cases in
#   PrimitiveConverterVectors.java, both directions, errors included.
# - test/fixtures/avro-vectors.json: Apache Avro 1.12.2's Java library (org.apache.avro:avro)
#   over the cases in test/unit/shared/plugins/converters/avro/avro-vector-cases.ts, which
#   avro-cases.ts writes as our schema text plus the datum in Avro's JSON encoding; Java writes
#   back the schema, its Parsing Canonical Form and the binary encoding (AvroVectors.java).
# - test/fixtures/protobuf-vectors.json: protobuf's Java library and protoc 4.36.2 over the cases in
#   test/unit/shared/plugins/converters/protobuf/protobuf-vector-cases.ts, which protobuf-cases.ts
#   writes as our .proto text, the value in protobuf's JSON form and our bytes; Java writes back its
#   bytes and whether it reads ours as the same message (ProtobufVectors.java).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lib="$root/.kafka/vectors-lib"
# The jars are cached per version of pom.xml.
stamp="$lib/.complete-$(sha256sum "$here/pom.xml" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  rm -rf "$lib" && mkdir -p "$lib"
  # Debian's Maven colours its output even in batch mode; keep stdout for the vectors alone.
  mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$lib" >&2
  touch "$stamp"
fi
mkdir -p "$root/test/fixtures"
for generator in JsonConverterVectors:json-converter-vectors PrimitiveConverterVectors:primitive-converter-vectors; do
  class="${generator%%:*}"
  fixture="$root/test/fixtures/${generator#*:}.json"
  # Written beside the fixture first, so a failed run leaves the committed one intact.
  java -cp "$lib/*" "$here/$class.java" >"$fixture.tmp"
  mv "$fixture.tmp" "$fixture"
  echo "wrote $(grep -c '"name"' "$fixture") vectors to ${fixture#"$root/"}"
done
fixture="$root/test/fixtures/avro-vectors.json"
(cd "$root" && npx tsx scripts/vectors/avro-cases.ts) | java -cp "$lib/*" "$here/AvroVectors.java" >"$fixture.tmp"
mv "$fixture.tmp" "$fixture"
echo "wrote $(grep -c '"name"' "$fixture") vectors to ${fixture#"$root/"}"
fixture="$root/test/fixtures/protobuf-vectors.json"
(cd "$root" && npx tsx scripts/vectors/protobuf-cases.ts) | java -cp "$lib/*" "$here/ProtobufVectors.java" "$lib" >"$fixture.tmp"
mv "$fixture.tmp" "$fixture"
echo "wrote $(grep -c '"name"' "$fixture") vectors to ${fixture#"$root/"}"
