#!/usr/bin/env bash
# Starts the project's throwaway PostgreSQL server (see common.sh) and waits until it accepts
# connections; installs PostgreSQL from Debian's packages with apt-get when no server is
# installed (as root). Running it while the server is up is harmless. Stdout carries one line,
# the server's URL, also written to $PG_HOME_DIR/url; everything else goes to stderr.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BIN="$(pg_bin_dir)"
if [ -z "$BIN" ]; then
  if [ "$(id -u)" != "0" ]; then
    pg_log "no PostgreSQL server is installed; install Debian's postgresql package (apt-get install postgresql) or run this as root"
    exit "$PG_EXIT_NOT_INSTALLED"
  fi
  pg_log "installing PostgreSQL from Debian's packages (apt-get)"
  # The package would create and start a cluster of its own on 5432: it is not wanted here.
  mkdir -p /etc/postgresql-common
  grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf ||
    echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2; }; }; then
    pg_log "apt-get could not install postgresql"
    exit "$PG_EXIT_NOT_INSTALLED"
  fi
  BIN="$(pg_bin_dir)"
  [ -n "$BIN" ] || { pg_log "postgresql installed but no server binaries found"; exit "$PG_EXIT_NOT_INSTALLED"; }
fi

if [ -f "$PG_DATA_DIR/postmaster.pid" ] && pg_as_owner "$BIN/pg_ctl" -D "$PG_DATA_DIR" status >/dev/null 2>&1; then
  # The port it runs on (line 4 of postmaster.pid), whatever PG_PORT says now.
  running_port="$(sed -n 4p "$PG_DATA_DIR/postmaster.pid" 2>/dev/null)"
  if [[ "$running_port" =~ ^[0-9]+$ ]] && [ "$running_port" != "$PG_PORT" ]; then
    pg_log "this project's server already runs on port $running_port (PG_PORT=$PG_PORT is ignored; stop it first to move it)"
    PG_PORT="$running_port"
  fi
  pg_log "already running on 127.0.0.1:$PG_PORT"
  pg_url >"$PG_URL_FILE"
  pg_url
  echo
  exit 0
fi
rm -f "$PG_URL_FILE"
if pg_port_open "$PG_PORT"; then
  pg_log "port $PG_PORT is taken by another process; set PG_PORT to a free port"
  exit "$PG_EXIT_PORT_TAKEN"
fi

if [ "$(id -u)" = "0" ] && ! id -u "$PG_OS_USER" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_OS_USER"
fi
mkdir -p "$PG_HOME_DIR"
# The server's folder: the project's, else (its parents closed to the server user) one in /tmp.
prepare_run_dir() {
  mkdir -p "$1"
  if [ "$(id -u)" = "0" ]; then chown "$PG_OS_USER" "$1"; fi
  chmod 700 "$1"
  pg_as_owner test -w "$1"
}
if ! prepare_run_dir "$PG_RUN_DIR"; then
  fallback="${TMPDIR:-/tmp}/sc-postgres-$(printf '%s' "$PROJECT_ROOT" | cksum | cut -d' ' -f1)"
  pg_log "$PG_OS_USER cannot reach $PG_RUN_DIR (a parent folder is closed to other users); using $fallback"
  pg_use_run_dir "$fallback"
  if ! prepare_run_dir "$PG_RUN_DIR"; then
    pg_log "$PG_OS_USER cannot write $PG_RUN_DIR either; set PG_HOME_DIR to a folder it can reach"
    exit "$PG_EXIT_NO_ACCESS"
  fi
fi
printf '%s\n' "$PG_RUN_DIR" >"$PG_RUN_DIR_FILE"

if [ ! -f "$PG_DATA_DIR/PG_VERSION" ]; then
  pg_log "creating the cluster in $PG_DATA_DIR"
  pwfile="$PG_RUN_DIR/.pw"
  (umask 077 && printf '%s\n' "$PG_PASSWORD" >"$pwfile")
  if [ "$(id -u)" = "0" ]; then chown "$PG_OS_USER" "$pwfile"; fi
  pg_as_owner "$BIN/initdb" -D "$PG_DATA_DIR" -U "$PG_USER" --pwfile="$pwfile" -E UTF8 --locale=C \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 >&2
  rm -f "$pwfile"
fi

# Loopback only, logical decoding on, a socket in the home folder (not /var/run). fsync off: a
# throwaway test server that is never killed under load; the crash tests kill our code, not it.
pg_as_owner "$BIN/pg_ctl" -D "$PG_DATA_DIR" -l "$PG_LOG_FILE" -w -t "$PG_START_TIMEOUT" \
  -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$PG_RUN_DIR -c wal_level=logical -c max_replication_slots=64 -c max_wal_senders=64 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >&2 || {
  pg_log "the server did not start; its log: $PG_LOG_FILE"
  tail -n 20 "$PG_LOG_FILE" >&2 || true
  exit "$PG_EXIT_NOT_STARTED"
}
pg_url >"$PG_URL_FILE.tmp" && mv -f "$PG_URL_FILE.tmp" "$PG_URL_FILE"
pg_log "running on 127.0.0.1:$PG_PORT (wal_level=logical)"
pg_url
echo
