#!/usr/bin/env bash
# Starts the pinned single-node KRaft broker (combined broker + controller) on loopback and
# waits until it serves requests. Running it while the broker is up is harmless.
# Settings: KAFKA_PORT (default 9092), KAFKA_CONTROLLER_PORT (KAFKA_PORT+1), KAFKA_HEAP (1G),
# KAFKA_START_TIMEOUT seconds (120). With KAFKA_SASL_PORT set, a SASL_PLAINTEXT listener on that
# port takes SCRAM-SHA-256 and SCRAM-SHA-512 logins of KAFKA_SCRAM_USER / KAFKA_SCRAM_PASSWORD
# (credentials are stored when the storage is formatted, so use it with a fresh KAFKA_HOME_DIR).
# With KAFKA_SASL_SSL_PORT set (with or without KAFKA_SASL_PORT), a SASL_SSL listener on that port
# takes the same SCRAM logins over TLS, as MSK's port 9096 does: its certificate (for 127.0.0.1 and
# localhost) is signed by a throwaway CA generated with the JDK's keytool into
# KAFKA_HOME_DIR/tls/ (reused while it exists); clients trust it through
# KAFKA_HOME_DIR/tls/ca.pem, for Node: NODE_EXTRA_CA_CERTS=<that path>.
# `npm run check:auth` starts such a broker beside the test broker.
# With KAFKA_OWNER set, a broker this run starts is recorded as started by that owner (see
# common.sh). Stdout carries one line, the broker's address, also written to
# $KAFKA_HOME_DIR/broker.address (read that file from programs); everything else goes to stderr.
# The broker runs in a session of its own, so a Ctrl-C in the terminal that started it reaches
# only its starter, which decides when to stop it. Exit codes: see common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pid="$(kafka_running_pid)"
if [ -n "$pid" ]; then
  port="$(cat "$KAFKA_HOME_DIR/broker.port" 2>/dev/null || echo "$KAFKA_PORT")"
  kafka_log "already running (pid $pid) on 127.0.0.1:$port"
  kafka_write_address "127.0.0.1:$port"
  echo "127.0.0.1:$port"
  exit 0
fi
rm -f "$KAFKA_ADDRESS_FILE" "$KAFKA_OWNER_FILE"

JAVA="$(kafka_find_java)" || exit "$KAFKA_EXIT_NO_JAVA"
bash "$KAFKA_SCRIPTS_DIR/fetch.sh" >&2 || exit $?

for taken in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
  if kafka_port_open "$taken"; then
    kafka_log "port $taken is taken by another process; set KAFKA_PORT (and KAFKA_CONTROLLER_PORT) to free ports, or KAFKA_BROKERS to use a broker that runs there"
    exit "$KAFKA_EXIT_PORT_TAKEN"
  fi
done

mkdir -p "$KAFKA_DATA_DIR" "$KAFKA_LOG_DIR"
CONFIG="$KAFKA_HOME_DIR/server.properties"
listeners="PLAINTEXT://127.0.0.1:$KAFKA_PORT"
protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
format_scram=()
sasl_listeners=()
if [ -n "${KAFKA_SASL_PORT:-}" ]; then
  listeners="$listeners,SASL_PLAINTEXT://127.0.0.1:$KAFKA_SASL_PORT"
  protocols="$protocols,SASL_PLAINTEXT:SASL_PLAINTEXT"
  sasl_listeners+=(sasl_plaintext)
fi
if [ -n "${KAFKA_SASL_SSL_PORT:-}" ]; then
  listeners="$listeners,SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT"
  protocols="$protocols,SASL_SSL:SASL_SSL"
  sasl_listeners+=(sasl_ssl)
fi
if [ "${#sasl_listeners[@]}" -gt 0 ]; then
  : "${KAFKA_SCRAM_USER:?KAFKA_SCRAM_USER is required with KAFKA_SASL_PORT or KAFKA_SASL_SSL_PORT}"
  : "${KAFKA_SCRAM_PASSWORD:?KAFKA_SCRAM_PASSWORD is required with KAFKA_SASL_PORT or KAFKA_SASL_SSL_PORT}"
  for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
    format_scram+=(--add-scram "$mechanism=[name=$KAFKA_SCRAM_USER,password=$KAFKA_SCRAM_PASSWORD]")
  done
fi
cat >"$CONFIG" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=$listeners,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
log.dirs=$KAFKA_DATA_DIR
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
PROPS
if [ "${#sasl_listeners[@]}" -gt 0 ]; then
  echo "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512" >>"$CONFIG"
  for listener in "${sasl_listeners[@]}"; do
    for mechanism in scram-sha-256 scram-sha-512; do
      echo "listener.name.$listener.$mechanism.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;" >>"$CONFIG"
    done
  done
fi
if [ -n "${KAFKA_SASL_SSL_PORT:-}" ]; then
  source "$KAFKA_SCRIPTS_DIR/tls.sh"
  kafka_tls_material "$JAVA"
  cat >>"$CONFIG" <<PROPS
listener.name.sasl_ssl.ssl.keystore.type=PKCS12
listener.name.sasl_ssl.ssl.keystore.location=$KAFKA_TLS_DIR/broker.p12
listener.name.sasl_ssl.ssl.keystore.password=$KAFKA_TLS_PASSWORD
listener.name.sasl_ssl.ssl.key.password=$KAFKA_TLS_PASSWORD
PROPS
fi

CLASSPATH_ARG="$KAFKA_LIB_DIR/*"
if [ ! -f "$KAFKA_DATA_DIR/meta.properties" ]; then
  cluster_id="$("$JAVA" -cp "$CLASSPATH_ARG" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
  kafka_log "formatting KRaft storage (cluster $cluster_id)"
  "$JAVA" -Dlog4j2.configurationFile="$KAFKA_SCRIPTS_DIR/log4j2.properties" -Dkafka.logs.dir="$KAFKA_LOG_DIR" \
    -cp "$CLASSPATH_ARG" kafka.tools.StorageTool format -t "$cluster_id" -c "$CONFIG" "${format_scram[@]}" \
    >"$KAFKA_LOG_DIR/format.log" 2>&1 || {
    kafka_log "formatting the KRaft storage failed:"
    cat "$KAFKA_LOG_DIR/format.log" >&2
    exit "$KAFKA_EXIT_BROKER_EXITED"
  }
fi

kafka_log "starting Apache Kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT"
: >"$KAFKA_LOG_DIR/stdout.log"
start_mark="$(wc -l <"$KAFKA_LOG_DIR/server.log" 2>/dev/null || echo 0)"
# setsid: a session of its own (see above); without setsid the broker shares its starter's.
detach=()
if command -v setsid >/dev/null 2>&1; then detach=(setsid); fi
"${detach[@]}" nohup "$JAVA" -Xms256m -Xmx"$KAFKA_HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$KAFKA_SCRIPTS_DIR/log4j2.properties" -Dkafka.logs.dir="$KAFKA_LOG_DIR" \
  -cp "$CLASSPATH_ARG" kafka.Kafka "$CONFIG" >"$KAFKA_LOG_DIR/stdout.log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$KAFKA_PID_FILE"
echo "$KAFKA_PORT" >"$KAFKA_HOME_DIR/broker.port"
if [ -n "${KAFKA_OWNER:-}" ]; then printf '%s\n' "$KAFKA_OWNER" >"$KAFKA_OWNER_FILE"; fi

# Stops the broker this run started (start-up failed): nothing is left behind.
abandon() {
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$KAFKA_PID_FILE" "$KAFKA_OWNER_FILE"
}
# Stopped by its caller before the broker is ready: stop the broker too.
trap 'kafka_log "interrupted during start-up; stopping the broker"; abandon; exit 143' TERM INT HUP

deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-120}))
while :; do
  if ! kill -0 "$pid" 2>/dev/null; then
    kafka_log "the broker exited during start-up; last lines of its logs:"
    tail -n 30 "$KAFKA_LOG_DIR/stdout.log" "$KAFKA_LOG_DIR/server.log" >&2 2>/dev/null || true
    rm -f "$KAFKA_PID_FILE" "$KAFKA_OWNER_FILE"
    exit "$KAFKA_EXIT_BROKER_EXITED"
  fi
  # awk reads the whole log: `tail | grep -q` fails under pipefail once the log since the start
  # outgrows a pipe's buffer (grep quits, tail dies of SIGPIPE), as it does with many topics.
  if kafka_port_open "$KAFKA_PORT" &&
    awk -v from="$start_mark" 'NR > from && /Kafka Server started/ { found = 1 } END { exit !found }' \
      "$KAFKA_LOG_DIR/server.log" 2>/dev/null; then
    break
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    kafka_log "the broker did not become ready in ${KAFKA_START_TIMEOUT:-120}s (see $KAFKA_LOG_DIR/server.log); stopping it." \
      "A broker with many topics in $KAFKA_DATA_DIR loads them first: raise KAFKA_START_TIMEOUT, or start empty after npm run kafka:stop -- --wipe"
    abandon
    exit "$KAFKA_EXIT_NOT_READY"
  fi
  sleep 0.5
done
trap - TERM INT HUP
kafka_log "ready (pid $pid) on 127.0.0.1:$KAFKA_PORT"
kafka_write_address "127.0.0.1:$KAFKA_PORT"
echo "127.0.0.1:$KAFKA_PORT"
