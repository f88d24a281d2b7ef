# Shared settings for the local schema registry scripts. Sourced, not run.
# A Confluent-compatible Schema Registry for tests and development: Apicurio Registry 3.0.9,
# built from Maven Central artifacts with a few re-versioned ones (see README.md beside this
# file), in-memory storage, serving Confluent's REST API at /apis/ccompat/v7 on loopback.
# Everything lives under .schema-registry/ in the project root (git-ignored):
#   .schema-registry/m2/           the private Maven repository of the build (it holds
#                                  re-versioned artifacts, so never ~/.m2)
#   .schema-registry/build/        the Maven project the build runs in; target/ holds the runner
#   .schema-registry/build.log     Maven's output of the last build
#   .schema-registry/registry.log  the running registry's log
#   .schema-registry/registry.pid  the running registry's pid; registry.port its port
#   .schema-registry/url           http://127.0.0.1:PORT/apis/ccompat/v7 of the running
#                                  registry, written once it answers (read this, not stdout)
#   .schema-registry/tls/          the HTTPS port's certificates, made by tls.sh at start:
#                                  ca.pem (a private CA), server.pem/.key, and a client
#                                  certificate (client.pem/.key, client.p12 with its password in
#                                  client.p12.password) for clients' key store settings
#   .schema-registry/tls-url       https://127.0.0.1:TLS_PORT/apis/ccompat/v7, written with url
# Settings: SCHEMA_REGISTRY_PORT (default 18081), SCHEMA_REGISTRY_TLS_PORT (the port after it;
# `off` opens no HTTPS port), SCHEMA_REGISTRY_HOME_DIR (.schema-registry),
# SCHEMA_REGISTRY_HEAP (256m), SCHEMA_REGISTRY_START_TIMEOUT seconds (90).
# Exit codes of build.sh and start.sh, for callers that explain a failure:
#   30 no Java 17+, 31 no Maven, 32 the build failed, 33 the port is taken,
#   34 the registry exited during start-up, 35 the registry did not answer in time
set -euo pipefail

SR_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT_ROOT="$(cd "$SR_SCRIPTS_DIR/../.." && pwd)"
SR_HOME_DIR="${SCHEMA_REGISTRY_HOME_DIR:-$PROJECT_ROOT/.schema-registry}"
SR_MAVEN_REPO="$SR_HOME_DIR/m2"
SR_BUILD_DIR="$SR_HOME_DIR/build"
SR_RUNNER="$SR_BUILD_DIR/target/apicurio-registry-runner-1.0.0-runner.jar"
# A class-data-sharing archive of one start-up, made by build.sh: starts take half the time.
SR_CDS_ARCHIVE="$SR_BUILD_DIR/target/app-cds.jsa"
SR_BUILD_LOG="$SR_HOME_DIR/build.log"
SR_LOG_FILE="$SR_HOME_DIR/registry.log"
SR_PID_FILE="$SR_HOME_DIR/registry.pid"
SR_PORT_FILE="$SR_HOME_DIR/registry.port"
SR_URL_FILE="$SR_HOME_DIR/url"
SR_PORT="${SCHEMA_REGISTRY_PORT:-18081}"
SR_HEAP="${SCHEMA_REGISTRY_HEAP:-256m}"
SR_START_TIMEOUT="${SCHEMA_REGISTRY_START_TIMEOUT:-90}"
SR_TLS_PORT="${SCHEMA_REGISTRY_TLS_PORT:-$((SR_PORT + 1))}"
SR_TLS_DIR="$SR_HOME_DIR/tls"
SR_TLS_URL_FILE="$SR_HOME_DIR/tls-url"
# The JVM's options: a small heap, and the quick client compiler alone with the serial
# collector, which start a test service sooner on two busy cores (9 s instead of 13 to 23 s).
SR_JAVA_OPTS=(-Xmx"$SR_HEAP" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true)
# The path of Confluent's API inside Apicurio.
SR_API_PATH="/apis/ccompat/v7"
SR_EXIT_NO_JAVA=30
SR_EXIT_NO_MAVEN=31
SR_EXIT_BUILD_FAILED=32
SR_EXIT_PORT_TAKEN=33
SR_EXIT_EXITED=34
SR_EXIT_NOT_READY=35

sr_log() { printf '[schema-registry] %s\n' "$*" >&2; }

# A fingerprint of the build's inputs: a change to any of them rebuilds the runner.
sr_build_stamp() {
  cat "$SR_SCRIPTS_DIR/pom.xml" "$SR_SCRIPTS_DIR/overrides.properties" \
    "$SR_SCRIPTS_DIR/ConfigPropertyCategory.java" "$SR_SCRIPTS_DIR/Info.java" \
    "$SR_SCRIPTS_DIR/build.sh" | sha256sum | cut -c1-16
}

# Prints the pid of the running registry, or nothing.
sr_running_pid() {
  [ -f "$SR_PID_FILE" ] || return 0
  local pid
  pid="$(cat "$SR_PID_FILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    grep -q 'apicurio-registry-runner' "/proc/$pid/cmdline" 2>/dev/null; then
    echo "$pid"
  fi
}

sr_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# True when GET <api>/subjects on the port answers 200 (bash's /dev/tcp: no curl needed).
sr_answers() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET %s/subjects HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$SR_API_PATH" >&3
    read -r -t 5 status <&3 || exit 1
    [[ "$status" == HTTP/1.?" 200"* ]]
  ) 2>/dev/null
}

sr_url() {
  printf 'http://127.0.0.1:%s%s' "$1" "$SR_API_PATH"
}

sr_tls_url() {
  printf 'https://127.0.0.1:%s%s' "$1" "$SR_API_PATH"
}

# Java 17 or newer: JAVA_HOME first, then java on PATH.
sr_find_java() {
  local candidate version
  for candidate in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    version="$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    if [ -n "$version" ] && [ "${version%%.*}" -ge 17 ]; then
      echo "$candidate"
      return 0
    fi
  done
  sr_log "Java 17 or newer is required to build and run the schema registry (found: ${version:-none})."
  sr_log "Install a JDK 17+ (for example: apt-get install openjdk-17-jdk-headless),"
  sr_log "or point the tests at an existing registry with SCHEMA_REGISTRY_URL=http://host:port/..."
  return "$SR_EXIT_NO_JAVA"
}
