#!/usr/bin/env bash
# Resolves the pinned Apache Kafka Connect worker (connect-runtime, connect-json, and the
# connectors the peer benchmark runs: connect-test-plugins' VerifiableSourceConnector and
# connect-mirror's MirrorSourceConnector) with a log4j2 backend from Maven Central into
# .kafka/connect-<version>/. Reuses the cache when present. Prints nothing on stdout: Maven's
# output goes to $KAFKA_HOME_DIR/connect-fetch.log, and its last lines to stderr on failure.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ -f "$CONNECT_LIB_DIR/.complete" ]; then
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
  connect_log "Maven (mvn) is required to fetch the Kafka Connect worker $CONNECT_VERSION from Maven Central."
  connect_log "Install it (for example: apt-get install maven)."
  exit "$KAFKA_EXIT_NO_MAVEN"
fi
connect_log "resolving org.apache.kafka:connect-runtime:$CONNECT_VERSION (with connect-json, connect-test-plugins, connect-mirror) from Maven Central into $CONNECT_LIB_DIR (first run only; about 40 MB)"
mkdir -p "$KAFKA_HOME_DIR"
fetch_log="$KAFKA_HOME_DIR/connect-fetch.log"
rm -rf "$CONNECT_LIB_DIR.tmp"
mkdir -p "$CONNECT_LIB_DIR.tmp"
if ! mvn -q -B -Dstyle.color=never -f "$CONNECT_SCRIPTS_DIR/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$CONNECT_LIB_DIR.tmp" >"$fetch_log" 2>&1 </dev/null; then
  rm -rf "$CONNECT_LIB_DIR.tmp"
  connect_log "Maven could not fetch org.apache.kafka:connect-runtime:$CONNECT_VERSION from Maven Central; its last lines ($fetch_log):"
  # Maven's output without terminal escapes, indented under the message.
  sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e '/^[[:space:]]*$/d' "$fetch_log" | tail -n 15 | sed 's/^/    /' >&2
  connect_log "Is Maven Central reachable from here (a proxy or mirror in ~/.m2/settings.xml)?"
  exit "$KAFKA_EXIT_FETCH_FAILED"
fi
for jar in connect-runtime connect-json connect-test-plugins connect-mirror; do
  if ! ls "$CONNECT_LIB_DIR.tmp/$jar-$CONNECT_VERSION.jar" >/dev/null 2>&1; then
    connect_log "Maven finished but $jar-$CONNECT_VERSION.jar is missing from the classpath folder (see $fetch_log)"
    exit "$KAFKA_EXIT_FETCH_FAILED"
  fi
done
touch "$CONNECT_LIB_DIR.tmp/.complete"
rm -rf "$CONNECT_LIB_DIR"
mv "$CONNECT_LIB_DIR.tmp" "$CONNECT_LIB_DIR"
connect_log "fetched $(find "$CONNECT_LIB_DIR" -name '*.jar' | wc -l) jars"
