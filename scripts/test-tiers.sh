#!/usr/bin/env bash
# The test tiers at the same time (`make tiers`): end-to-end beside unit and API.
# End-to-end mostly waits (processes starting, leases running out, agents' delays, Chromium) and unit and API
# mostly compute, so run one after the other they leave the cores idle for most of end-to-end. Unit and API
# run at a lower priority (nice): end-to-end's processes get a core as soon as they wake, so its heartbeats,
# leases and browser waits see the machine they would see alone, and unit and API take what is left.
# End-to-end's output is kept in a file and shown after unit and API's (two streams of progress dots
# interleaved would be unreadable); the status is 1 when either tier failed.
# Usage: scripts/test-tiers.sh [BIN]   (BIN: the folder of the venv's pytest, .venv/bin by default)
set -uo pipefail
BIN=${1:-.venv/bin}
E2E_WORKERS=${E2E_WORKERS:-3}
UNIT_WORKERS=${UNIT_WORKERS:-2}
log=$(mktemp)

"$BIN/pytest" -q -n "$E2E_WORKERS" --dist loadgroup tests/e2e >"$log" 2>&1 &
e2e=$!
# Stopped (Ctrl-C, a CI timeout): stop end-to-end too; a background job of a script ignores SIGINT.
trap 'kill -TERM "$e2e" 2>/dev/null; rm -f "$log"; exit 130' INT TERM

tiers=(tests/unit tests/api)
echo "${tiers[*]} ($UNIT_WORKERS processes, nice), end-to-end ($E2E_WORKERS processes) beside them"
nice -n 10 "$BIN/pytest" -q -n "$UNIT_WORKERS" "${tiers[@]}"
unit_api=$?
echo "${tiers[*]}: exit $unit_api after ${SECONDS} s; waiting for end-to-end"
wait "$e2e"
e2e_status=$?
trap - INT TERM
echo "end-to-end tier:"
cat "$log"
rm -f "$log"
echo "end-to-end: exit $e2e_status, both done after ${SECONDS} s"
[ "$unit_api" -eq 0 ] && [ "$e2e_status" -eq 0 ]
