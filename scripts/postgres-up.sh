#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the test suite; prints the database URL.
set -euo pipefail
PORT=${ASSAY_PG_PORT:-54329}
DATA=${ASSAY_PG_DATA:-/tmp/assay-pg-data}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$BIN" ] || { echo "postgres-up: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  rm -rf "$DATA"; mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >/dev/null
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
    -o "-h 127.0.0.1 -p $PORT -k /tmp -c fsync=off -c synchronous_commit=off -c max_connections=200" start >/dev/null
fi
as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='assay_test'" \
  | grep -q 1 || as_pg "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres assay_test
echo "postgresql+psycopg://postgres@127.0.0.1:$PORT/assay_test"
