# Shared settings for the local PostgreSQL scripts. Sourced, not run.
# A throwaway cluster for tests and `npm start`, made with initdb under .postgres/ in the project
# root (git-ignored), on loopback only, with logical decoding on (wal_level=logical):
#   .postgres/data/      the cluster (initdb)
#   .postgres/server.log the server's log
#   .postgres/url        postgres://USER:PASSWORD@127.0.0.1:PORT/DB of the running server,
#                        written once it accepts connections (read this, not start.sh's stdout)
# PostgreSQL refuses to run as root: as root, the server runs as the system user PG_OS_USER
# (created when missing); otherwise as the calling user. When that user cannot reach the
# project's folder (a checkout under /root, mode 700), the cluster and its log live in
# $TMPDIR/sc-postgres-<checksum of the project path> (TMPDIR defaults to /tmp) instead; .postgres/run-dir names the folder
# in use, and .postgres/url stays where it is.
# Settings: PG_PORT (default 55432), PG_HOME_DIR (.postgres), PG_USER (postgres), PG_PASSWORD
# (connect-test: a throwaway loopback server), PG_DATABASE (postgres), PG_OS_USER
# (sc-postgres), PG_START_TIMEOUT seconds (60).
# Exit codes: 20 PostgreSQL could not be installed, 21 the port is taken, 22 the server did not
# start, 23 the data folder is out of the server user's reach.
set -euo pipefail

PG_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT_ROOT="$(cd "$PG_SCRIPTS_DIR/../.." && pwd)"
PG_HOME_DIR="${PG_HOME_DIR:-$PROJECT_ROOT/.postgres}"
PG_URL_FILE="$PG_HOME_DIR/url"
PG_RUN_DIR_FILE="$PG_HOME_DIR/run-dir"
# Where the cluster lives: the folder a previous start chose, else PG_HOME_DIR (start.sh may
# move it to a fallback the server user can reach: pg_use_run_dir).
PG_RUN_DIR="$(cat "$PG_RUN_DIR_FILE" 2>/dev/null || echo "$PG_HOME_DIR")"
pg_use_run_dir() {
  PG_RUN_DIR="$1"
  PG_DATA_DIR="$PG_RUN_DIR/data"
  PG_LOG_FILE="$PG_RUN_DIR/server.log"
}
pg_use_run_dir "$PG_RUN_DIR"
PG_PORT="${PG_PORT:-55432}"
PG_USER="${PG_USER:-postgres}"
PG_PASSWORD="${PG_PASSWORD:-connect-test}"
PG_DATABASE="${PG_DATABASE:-postgres}"
PG_OS_USER="${PG_OS_USER:-sc-postgres}"
PG_START_TIMEOUT="${PG_START_TIMEOUT:-60}"
PG_EXIT_NOT_INSTALLED=20
PG_EXIT_PORT_TAKEN=21
PG_EXIT_NOT_STARTED=22
PG_EXIT_NO_ACCESS=23

pg_log() { printf '[postgres] %s\n' "$*" >&2; }

# The newest installed server's bin folder (Debian keeps it off PATH), or nothing.
pg_bin_dir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; fi
}

# Runs a command as the server's user (root cannot run PostgreSQL).
pg_as_owner() {
  if [ "$(id -u)" = "0" ]; then
    (cd / && runuser -u "$PG_OS_USER" -- "$@")
  else
    "$@"
  fi
}

pg_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pg_url() {
  printf 'postgres://%s:%s@127.0.0.1:%s/%s' "$PG_USER" "$PG_PASSWORD" "$PG_PORT" "$PG_DATABASE"
}
