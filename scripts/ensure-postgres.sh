#!/usr/bin/env bash
# A throw-away PostgreSQL for the store contract tests and the several-servers tests, the way
# ensure-chromium.sh provides the browser: Debian's postgresql package (installed with apt when
# missing, as root), a cluster in a fresh /tmp folder (never inside the clone: initdb needs every
# folder above it traversable by the postgres user), trust auth on 127.0.0.1 and a private socket.
# Why Debian's package and not embedded-postgres from npm: docs/decisions/database.md.
#
#   eval "$(bash scripts/ensure-postgres.sh start)"   # exports LOADOUT_TEST_DATABASE_URL, LOADOUT_TEST_PG_DIR
#   bash scripts/ensure-postgres.sh stop "$LOADOUT_TEST_PG_DIR"
set -euo pipefail
binaries() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
# initdb and the server refuse to run as root: run them as the postgres user then.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "${1:-start}" in
start)
  BIN=$(binaries || true)
  if [ -z "$BIN" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "ensure-postgres: PostgreSQL is missing; install Debian's postgresql package (needs root)" >&2
      exit 1
    fi
    echo "ensure-postgres: installing Debian's postgresql" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
    BIN=$(binaries)
  fi
  DIR=$(mktemp -d /tmp/loadout-pg.XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$DIR"; fi
  PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  # C.UTF-8 exists everywhere; the caller's LANG may name a locale this machine lacks.
  as_owner "$BIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync --no-instructions >/dev/null
  # -l: the server must not keep the caller's stdout open. fsync off: the data is thrown away.
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
    -o "-k $DIR -p $PORT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
  echo "export LOADOUT_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$PORT/postgres LOADOUT_TEST_PG_DIR=$DIR"
  ;;
stop)
  DIR=${2:?usage: ensure-postgres.sh stop DIR}
  case "$DIR" in /tmp/loadout-pg.*) ;; *) echo "ensure-postgres: $DIR is not a folder this script made" >&2; exit 2 ;; esac
  BIN=$(binaries)
  if [ -f "$DIR/data/postmaster.pid" ]; then as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null || true; fi
  rm -rf "$DIR"
  ;;
*) echo "usage: ensure-postgres.sh start | stop DIR" >&2; exit 2 ;;
esac
