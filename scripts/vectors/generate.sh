#!/usr/bin/env bash
# Regenerates test/fixtures/json-converter-vectors.json by running Apache Kafka Connect's own
# JsonConverter (org.apache.kafka:connect-json, from Maven Central) over the cases in
# JsonConverterVectors.java. Each vector holds the exact bytes Connect writes (`json`) and what
# Connect's own toConnectData + fromConnectData give back (`roundTrip`). Needs Java 17+ and Maven.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lib="$root/.kafka/vectors-lib"
if [ ! -f "$lib/.complete" ]; then
  rm -rf "$lib" && mkdir -p "$lib"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib"
  touch "$lib/.complete"
fi
mkdir -p "$root/test/fixtures"
java -cp "$lib/*" "$here/JsonConverterVectors.java" >"$root/test/fixtures/json-converter-vectors.json"
echo "wrote $(grep -c '"name"' "$root/test/fixtures/json-converter-vectors.json") vectors"
