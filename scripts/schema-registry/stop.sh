#!/usr/bin/env bash
# Stops the schema registry started by start.sh: SIGTERM for a clean shutdown (3 to 5 s),
# SIGKILL after a grace period. Its schemas live in memory and go with it. `--clean` also
# deletes the build and the private Maven repository (the next start builds again).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pid="$(sr_running_pid)"
if [ -z "$pid" ]; then
  sr_log "not running"
else
  sr_log "stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    sr_log "still running after 30s; killing"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  sr_log "stopped"
fi
rm -f "$SR_PID_FILE" "$SR_PORT_FILE" "$SR_URL_FILE" "$SR_TLS_URL_FILE"
if [ "${1:-}" = "--clean" ]; then
  rm -rf "$SR_BUILD_DIR" "$SR_MAVEN_REPO"
  sr_log "build and Maven repository deleted"
fi
