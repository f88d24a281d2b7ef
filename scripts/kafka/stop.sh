#!/usr/bin/env bash
# Stops the local broker started by start.sh: SIGTERM for a clean shutdown, SIGKILL after a
# grace period. `--wipe` also deletes its data folder (topics, offsets, KRaft metadata).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pid="$(kafka_running_pid)"
if [ -z "$pid" ]; then
  kafka_log "not running"
else
  kafka_log "stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    kafka_log "still running after 30s; killing"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  kafka_log "stopped"
fi
rm -f "$KAFKA_PID_FILE" "$KAFKA_ADDRESS_FILE" "$KAFKA_OWNER_FILE"
if [ "${1:-}" = "--wipe" ]; then
  rm -rf "$KAFKA_DATA_DIR"
  kafka_log "data wiped"
fi
