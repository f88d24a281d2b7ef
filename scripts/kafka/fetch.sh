#!/usr/bin/env bash
# Resolves the pinned Apache Kafka broker (kafka_2.13 and its runtime dependencies, plus a
# log4j2 backend) from Maven Central into .kafka/lib-<version>/. Reuses the cache when present.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ -f "$KAFKA_LIB_DIR/.complete" ]; then
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
  kafka_log "Maven (mvn) is required to fetch the Kafka broker $KAFKA_VERSION from Maven Central."
  kafka_log "Install it (for example: apt-get install maven), or set KAFKA_BROKERS=host:port to use an existing broker."
  exit 1
fi
kafka_log "resolving org.apache.kafka:kafka_2.13:$KAFKA_VERSION from Maven Central into $KAFKA_LIB_DIR"
rm -rf "$KAFKA_LIB_DIR.tmp"
mkdir -p "$KAFKA_LIB_DIR.tmp"
mvn -q -B -f "$KAFKA_SCRIPTS_DIR/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIB_DIR.tmp"
if ! ls "$KAFKA_LIB_DIR.tmp"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null 2>&1; then
  kafka_log "Maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing from the classpath folder"
  exit 1
fi
touch "$KAFKA_LIB_DIR.tmp/.complete"
rm -rf "$KAFKA_LIB_DIR"
mv "$KAFKA_LIB_DIR.tmp" "$KAFKA_LIB_DIR"
kafka_log "fetched $(find "$KAFKA_LIB_DIR" -name '*.jar' | wc -l) jars"
