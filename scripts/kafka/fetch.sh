#!/usr/bin/env bash
# Resolves the pinned Apache Kafka broker (kafka_2.13 and its runtime dependencies, plus a
# log4j2 backend) from Maven Central into .kafka/lib-<version>/. Reuses the cache when present.
# Prints nothing on stdout: Maven's own output (Debian's Maven writes colour codes to stdout even
# in batch mode) goes to $KAFKA_HOME_DIR/fetch.log, and its last lines to stderr on failure.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ -f "$KAFKA_LIB_DIR/.complete" ]; then
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
  kafka_log "Maven (mvn) is required to fetch the Kafka broker $KAFKA_VERSION from Maven Central."
  kafka_log "Install it (for example: apt-get install maven), or set KAFKA_BROKERS=host:port to use an existing broker."
  exit "$KAFKA_EXIT_NO_MAVEN"
fi
kafka_log "resolving org.apache.kafka:kafka_2.13:$KAFKA_VERSION from Maven Central into $KAFKA_LIB_DIR (first run only; about 50 MB)"
mkdir -p "$KAFKA_HOME_DIR"
fetch_log="$KAFKA_HOME_DIR/fetch.log"
rm -rf "$KAFKA_LIB_DIR.tmp"
mkdir -p "$KAFKA_LIB_DIR.tmp"
if ! mvn -q -B -Dstyle.color=never -f "$KAFKA_SCRIPTS_DIR/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIB_DIR.tmp" >"$fetch_log" 2>&1 </dev/null; then
  rm -rf "$KAFKA_LIB_DIR.tmp"
  kafka_log "Maven could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION from Maven Central; its last lines ($fetch_log):"
  # Maven's output without terminal escapes, indented under the message.
  sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e '/^[[:space:]]*$/d' "$fetch_log" | tail -n 15 | sed 's/^/    /' >&2
  kafka_log "Is Maven Central reachable from here (a proxy or mirror in ~/.m2/settings.xml)? Or set KAFKA_BROKERS=host:port to use an existing broker."
  exit "$KAFKA_EXIT_FETCH_FAILED"
fi
if ! ls "$KAFKA_LIB_DIR.tmp"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null 2>&1; then
  kafka_log "Maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing from the classpath folder (see $fetch_log)"
  exit "$KAFKA_EXIT_FETCH_FAILED"
fi
touch "$KAFKA_LIB_DIR.tmp/.complete"
rm -rf "$KAFKA_LIB_DIR"
mv "$KAFKA_LIB_DIR.tmp" "$KAFKA_LIB_DIR"
kafka_log "fetched $(find "$KAFKA_LIB_DIR" -name '*.jar' | wc -l) jars"
