#!/usr/bin/env bash
# Starts one Apache Kafka Connect distributed worker (org.apache.kafka.connect.cli.ConnectDistributed)
# against an existing broker and waits until its REST API answers.
#   usage: start.sh <worker.properties>
#   KAFKA_BROKERS      bootstrap servers (required: the worker never starts a broker)
#   CONNECT_WORK_DIR   the worker's own folder: effective properties, logs, pid (required)
#   CONNECT_REST_PORT  REST port (default 8084)
#   CONNECT_GROUP_ID   group.id, also naming its config/offset/status topics
#                      (<group>-configs, -offsets, -status; default peer-connect)
#   CONNECT_HEAP       -Xmx (default 768m); CONNECT_START_TIMEOUT seconds (default 120)
# The properties file holds the worker's settings; this script adds bootstrap.servers, group.id,
# the three topics, listeners and plugin.path-free classpath loading. Stdout carries one line,
# the REST URL; the JVM's pid is in $CONNECT_WORK_DIR/worker.pid. The worker's stdout (Apache's
# VerifiableSourceTask prints a JSON line per record there) goes to /dev/null; its log4j log to
# $CONNECT_WORK_DIR/connect.log. Stop it with stop.sh. Exit codes: see common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

props="${1:?usage: start.sh <worker.properties>}"
: "${KAFKA_BROKERS:?KAFKA_BROKERS is required: the Connect worker runs against an existing broker}"
: "${CONNECT_WORK_DIR:?CONNECT_WORK_DIR is required: the folder of the worker}"
rest_port="${CONNECT_REST_PORT:-8084}"
group="${CONNECT_GROUP_ID:-peer-connect}"

JAVA="$(kafka_find_java)" || exit "$KAFKA_EXIT_NO_JAVA"
bash "$CONNECT_SCRIPTS_DIR/fetch.sh" >&2 || exit $?
if kafka_port_open "$rest_port"; then
  connect_log "port $rest_port is taken by another process; set CONNECT_REST_PORT to a free port"
  exit "$KAFKA_EXIT_PORT_TAKEN"
fi

mkdir -p "$CONNECT_WORK_DIR"
config="$CONNECT_WORK_DIR/worker.properties"
{
  cat "$props"
  echo
  echo "# Added by scripts/connect/start.sh"
  echo "bootstrap.servers=$KAFKA_BROKERS"
  echo "group.id=$group"
  echo "config.storage.topic=$group-configs"
  echo "offset.storage.topic=$group-offsets"
  echo "status.storage.topic=$group-status"
  echo "listeners=http://127.0.0.1:$rest_port"
} >"$config"

log_config="$CONNECT_WORK_DIR/log4j2.properties"
cat >"$log_config" <<PROPS
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $CONNECT_WORK_DIR/connect.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ${CONNECT_LOG_LEVEL:-INFO}
rootLogger.appenderRef.file.ref = FILE
PROPS

detach=()
if command -v setsid >/dev/null 2>&1; then detach=(setsid); fi
"${detach[@]}" nohup "$JAVA" -Xms256m -Xmx"$CONNECT_HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$log_config" \
  -cp "$CONNECT_LIB_DIR/*" org.apache.kafka.connect.cli.ConnectDistributed "$config" \
  >/dev/null 2>"$CONNECT_WORK_DIR/stderr.log" </dev/null &
pid=$!
echo "$pid" >"$CONNECT_WORK_DIR/worker.pid"

abandon() {
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$CONNECT_WORK_DIR/worker.pid"
}
trap 'connect_log "interrupted during start-up; stopping the worker"; abandon; exit 143' TERM INT HUP

url="http://127.0.0.1:$rest_port"
deadline=$((SECONDS + ${CONNECT_START_TIMEOUT:-120}))
while :; do
  if ! kill -0 "$pid" 2>/dev/null; then
    connect_log "the worker exited during start-up; last lines of its logs:"
    tail -n 30 "$CONNECT_WORK_DIR/stderr.log" "$CONNECT_WORK_DIR/connect.log" >&2 2>/dev/null || true
    rm -f "$CONNECT_WORK_DIR/worker.pid"
    exit "$KAFKA_EXIT_BROKER_EXITED"
  fi
  # Ready once it has joined its group and read its config topic: GET /connectors answers 200.
  if curl -fsS -o /dev/null "$url/connectors" 2>/dev/null; then
    break
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    connect_log "the worker did not become ready in ${CONNECT_START_TIMEOUT:-120}s (see $CONNECT_WORK_DIR/connect.log); stopping it."
    abandon
    exit "$KAFKA_EXIT_NOT_READY"
  fi
  sleep 0.5
done
trap - TERM INT HUP
connect_log "Kafka Connect $CONNECT_VERSION worker ready (pid $pid) on $url"
echo "$url"
