# Shared settings for the local Kafka broker scripts. Sourced, not run.
# Everything lives under .kafka/ in the project root (git-ignored):
#   .kafka/lib-<version>/   the broker's classpath, resolved from Maven Central
#   .kafka/data/            KRaft metadata and topic data
#   .kafka/logs/            server.log and the JVM's stdout
#   .kafka/broker.pid       the running broker's pid
#   .kafka/broker.address   host:port of the running broker, written by start.sh once it serves
#                           requests (read this, not start.sh's stdout)
#   .kafka/broker.owner     who started it, when the starter said so (KAFKA_OWNER): `npm start`
#                           writes `npm-start <pid> <start time>` so a later run of its own can
#                           tell a broker it left behind from one the user started
#   .kafka/fetch.log        Maven's output of the last fetch
# Exit codes of fetch.sh and start.sh, for callers that explain a failure:
#   10 no Java 17+, 11 no Maven, 12 Maven could not fetch the broker, 13 the port is taken,
#   14 the broker exited during start-up, 15 the broker did not become ready in time
set -euo pipefail

KAFKA_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT_ROOT="$(cd "$KAFKA_SCRIPTS_DIR/../.." && pwd)"
KAFKA_HOME_DIR="${KAFKA_HOME_DIR:-$PROJECT_ROOT/.kafka}"
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_SCRIPTS_DIR/pom.xml")"
KAFKA_LIB_DIR="${KAFKA_LIB_DIR:-$KAFKA_HOME_DIR/lib-$KAFKA_VERSION}"
KAFKA_DATA_DIR="$KAFKA_HOME_DIR/data"
KAFKA_LOG_DIR="$KAFKA_HOME_DIR/logs"
KAFKA_PID_FILE="$KAFKA_HOME_DIR/broker.pid"
KAFKA_ADDRESS_FILE="$KAFKA_HOME_DIR/broker.address"
KAFKA_OWNER_FILE="$KAFKA_HOME_DIR/broker.owner"
KAFKA_EXIT_NO_JAVA=10
KAFKA_EXIT_NO_MAVEN=11
KAFKA_EXIT_FETCH_FAILED=12
KAFKA_EXIT_PORT_TAKEN=13
KAFKA_EXIT_BROKER_EXITED=14
KAFKA_EXIT_NOT_READY=15
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_HEAP="${KAFKA_HEAP:-1G}"

kafka_log() { printf '[kafka] %s\n' "$*" >&2; }

# Prints the pid of the running broker, or nothing.
kafka_running_pid() {
  [ -f "$KAFKA_PID_FILE" ] || return 0
  local pid
  pid="$(cat "$KAFKA_PID_FILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q 'kafka.Kafka' "/proc/$pid/cmdline" 2>/dev/null; then
    echo "$pid"
  fi
}

# Writes the running broker's address where callers read it (atomically: never half a line).
kafka_write_address() {
  printf '%s\n' "$1" >"$KAFKA_ADDRESS_FILE.tmp"
  mv -f "$KAFKA_ADDRESS_FILE.tmp" "$KAFKA_ADDRESS_FILE"
}

kafka_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Java 17 or newer: JAVA_HOME first, then java on PATH.
kafka_find_java() {
  local candidate version
  for candidate in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    version="$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    if [ -n "$version" ] && [ "${version%%.*}" -ge 17 ]; then
      echo "$candidate"
      return 0
    fi
  done
  kafka_log "Java 17 or newer is required to run the local Kafka broker (found: ${version:-none})."
  kafka_log "Install a JDK 17+ (for example: apt-get install openjdk-17-jre-headless),"
  kafka_log "or point the project at an existing broker with KAFKA_BROKERS=host:port."
  return "$KAFKA_EXIT_NO_JAVA"
}
