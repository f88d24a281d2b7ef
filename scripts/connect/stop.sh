#!/usr/bin/env bash
# Stops the Connect worker whose folder is CONNECT_WORK_DIR (started by start.sh): SIGTERM for
# a clean shutdown (it leaves its group), SIGKILL after 30 s.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
: "${CONNECT_WORK_DIR:?CONNECT_WORK_DIR is required: the folder of the worker}"

pid="$(cat "$CONNECT_WORK_DIR/worker.pid" 2>/dev/null || true)"
if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || ! grep -q 'ConnectDistributed' "/proc/$pid/cmdline" 2>/dev/null; then
  connect_log "not running"
else
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    connect_log "still running after 30s; killing"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  connect_log "stopped (pid $pid)"
fi
rm -f "$CONNECT_WORK_DIR/worker.pid"
