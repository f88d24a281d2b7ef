# Shared settings for the Apache Kafka Connect worker scripts (the peer benchmark's worker).
# Sourced, not run. Java is found as the broker's scripts find it (../kafka/common.sh).
#   .kafka/connect-<version>/   the worker's classpath, resolved from Maven Central
#   .kafka/connect-fetch.log    Maven's output of the last fetch
# A running worker keeps its files in its own work folder (CONNECT_WORK_DIR, see start.sh).
# Exit codes of fetch.sh and start.sh: those of ../kafka/common.sh (10 no Java 17+, 11 no Maven,
# 12 Maven could not fetch, 13 the port is taken, 14 the worker exited during start-up,
# 15 the worker did not become ready in time).
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../kafka" && pwd)/common.sh"

CONNECT_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONNECT_VERSION="$(sed -n 's:.*<connect.version>\(.*\)</connect.version>.*:\1:p' "$CONNECT_SCRIPTS_DIR/pom.xml")"
CONNECT_LIB_DIR="${CONNECT_LIB_DIR:-$KAFKA_HOME_DIR/connect-$CONNECT_VERSION}"
CONNECT_HEAP="${CONNECT_HEAP:-768m}"

connect_log() { printf '[connect] %s\n' "$*" >&2; }
