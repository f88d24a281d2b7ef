#!/usr/bin/env bash
# Stops the project's PostgreSQL server (fast shutdown). `--wipe` also deletes its cluster.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BIN="$(pg_bin_dir)"
if [ -n "$BIN" ] && [ -f "$PG_DATA_DIR/postmaster.pid" ]; then
  pg_as_owner "$BIN/pg_ctl" -D "$PG_DATA_DIR" -m fast -w stop >&2 || pg_log "not running"
else
  pg_log "not running"
fi
rm -f "$PG_URL_FILE"
if [ "${1:-}" = "--wipe" ]; then
  rm -rf "$PG_DATA_DIR"
  if [ "$PG_RUN_DIR" != "$PG_HOME_DIR" ]; then rm -rf "$PG_RUN_DIR"; fi
  rm -f "$PG_RUN_DIR_FILE"
  pg_log "data wiped"
fi
