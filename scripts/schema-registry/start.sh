#!/usr/bin/env bash
# Starts the project's schema registry (see common.sh), building it on first use, and waits
# until Confluent's API answers (GET /apis/ccompat/v7/subjects). Running it while the registry
# is up is harmless. Stdout carries one line, the base URL of Confluent's API
# (http://127.0.0.1:PORT/apis/ccompat/v7), also written to .schema-registry/url; everything
# else goes to stderr. The registry runs in a session of its own (a Ctrl-C in the terminal
# reaches only its starter) and keeps its schemas in memory: a restart starts empty.
# Exit codes: see common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pid="$(sr_running_pid)"
if [ -n "$pid" ]; then
  # The port it runs on, whatever SCHEMA_REGISTRY_PORT says now.
  port="$(cat "$SR_PORT_FILE" 2>/dev/null || echo "$SR_PORT")"
  if [ "$port" != "$SR_PORT" ]; then
    sr_log "this project's registry already runs on port $port (SCHEMA_REGISTRY_PORT=$SR_PORT is ignored; stop it first to move it)"
  fi
  sr_log "already running (pid $pid) on 127.0.0.1:$port"
  sr_url "$port" >"$SR_URL_FILE"
  sr_url "$port"
  echo
  exit 0
fi
rm -f "$SR_URL_FILE" "$SR_TLS_URL_FILE"

JAVA="$(sr_find_java)" || exit "$SR_EXIT_NO_JAVA"
bash "$SR_SCRIPTS_DIR/build.sh" || exit $?

if sr_port_open "$SR_PORT"; then
  sr_log "port $SR_PORT is taken by another process; set SCHEMA_REGISTRY_PORT to a free port, or SCHEMA_REGISTRY_URL to use a registry that runs there"
  exit "$SR_EXIT_PORT_TAKEN"
fi

# The HTTPS port (unless SCHEMA_REGISTRY_TLS_PORT=off): tls.sh's server certificate, served
# through Quarkus's TLS registry. No client authentication: Quarkus fixes ssl.client-auth at
# build time, and Apicurio built with it asks every request (plain HTTP too) for credentials.
tls=()
if [ "$SR_TLS_PORT" != off ]; then
  if sr_port_open "$SR_TLS_PORT"; then
    sr_log "port $SR_TLS_PORT (HTTPS) is taken by another process; set SCHEMA_REGISTRY_TLS_PORT to a free port, or to off"
    exit "$SR_EXIT_PORT_TAKEN"
  fi
  bash "$SR_SCRIPTS_DIR/tls.sh"
  tls=(-Dquarkus.http.ssl-port="$SR_TLS_PORT"
    -Dquarkus.tls.key-store.pem.0.cert="$SR_TLS_DIR/server.pem"
    -Dquarkus.tls.key-store.pem.0.key="$SR_TLS_DIR/server.key"
    -Dquarkus.http.insecure-requests=enabled)
fi

sr_log "starting Apicurio Registry 3.0.9 on 127.0.0.1:$SR_PORT${tls:+ (HTTPS on $SR_TLS_PORT)}"
detach=()
if command -v setsid >/dev/null 2>&1; then detach=(setsid); fi
cds=()
if [ -s "$SR_CDS_ARCHIVE" ]; then cds=(-XX:SharedArchiveFile="$SR_CDS_ARCHIVE"); fi
# The host and port override the build-time settings; the runner reads its libraries from
# target/lib beside it. A stale archive (another JVM) is ignored by the JVM with a warning.
"${detach[@]}" nohup "$JAVA" "${SR_JAVA_OPTS[@]}" "${cds[@]}" \
  -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SR_PORT" "${tls[@]}" \
  -jar "$SR_RUNNER" >"$SR_LOG_FILE" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$SR_PID_FILE"
echo "$SR_PORT" >"$SR_PORT_FILE"

# Stops the registry this run started (start-up failed): nothing is left behind.
abandon() {
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$SR_PID_FILE" "$SR_PORT_FILE"
}
trap 'sr_log "interrupted during start-up; stopping the registry"; abandon; exit 143' TERM INT HUP

deadline=$((SECONDS + SR_START_TIMEOUT))
until sr_answers "$SR_PORT"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    sr_log "the registry exited during start-up; last lines of $SR_LOG_FILE:"
    tail -n 30 "$SR_LOG_FILE" >&2 || true
    rm -f "$SR_PID_FILE" "$SR_PORT_FILE"
    exit "$SR_EXIT_EXITED"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    sr_log "the registry did not answer in ${SR_START_TIMEOUT}s (see $SR_LOG_FILE); stopping it"
    abandon
    exit "$SR_EXIT_NOT_READY"
  fi
  sleep 0.3
done
trap - TERM INT HUP
sr_log "ready (pid $pid) on 127.0.0.1:$SR_PORT"
if [ "${#tls[@]}" -gt 0 ]; then sr_tls_url "$SR_TLS_PORT" >"$SR_TLS_URL_FILE"; fi
sr_url "$SR_PORT" >"$SR_URL_FILE.tmp" && mv -f "$SR_URL_FILE.tmp" "$SR_URL_FILE"
sr_url "$SR_PORT"
echo
