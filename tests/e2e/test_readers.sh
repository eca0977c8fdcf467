#!/usr/bin/env bash
# Reads off the event loop (issue 21): with both reader threads held busy
# (the test-only test_hold command, which waits while a file exists), the
# loop still answers stats, agents and status; a read asked meanwhile
# waits for a reader and is answered once they are free; a client that
# asks again before its answer (DEALER) gets its answers in the order it
# asked, the loop's one behind the reader's; a write is seen by the read
# that follows it; and the CLI's REQ socket works against the ROUTER.
# Nothing here is timed: the holds end when the test removes their file.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --test-clock 1800000000
start_agent agent-1
wait_agents 1
I="$BIN/iofleet"
P="$TOOLS/admin_peer"
probe_plan probe 1
run=$("$I" run probe --json | jq -r .run) || fail "run probe"
[ "$(wait_run "$run")" = complete ] || fail "run $run did not complete"
"$I" report "$run" --format json | jq -e '.steps | length == 1' >/dev/null \
  || fail "report through a reader"
ok "the CLI (REQ) is answered by the ROUTER: run $run and its report"

# A write, then the read that follows it, from one CLI: the read sees it.
probe_plan second 1
"$I" plan list --json | jq -e 'map(.name) | index("second") != null' >/dev/null \
  || fail "plan list after plan add does not show the new plan"
ok "a read sees the write before it"

# Hold both readers.
H="$T/hold"
touch "$H"
"$P" "$IOFLEET_CONTROLLER" "{\"cmd\":\"test_hold\",\"file\":\"$H\"}" >"$T/hold1.out" 2>&1 &
H1=$!
"$P" "$IOFLEET_CONTROLLER" "{\"cmd\":\"test_hold\",\"file\":\"$H\"}" >"$T/hold2.out" 2>&1 &
H2=$!
PIDS+=("$H1" "$H2")
for _ in $(seq 300); do
  [ "$(cat "$H.held" 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.1
done
[ "$(wc -l <"$H.held")" -eq 2 ] || fail "the two readers were not both held"

# The loop answers while every reader is busy.
"$I" stats --json | jq -e '.agents.connected == 1' >/dev/null || fail "stats while the readers are held"
"$I" agents --json | jq -e 'length == 1' >/dev/null || fail "agents while the readers are held"
"$P" "$IOFLEET_CONTROLLER" "{\"cmd\":\"status\",\"run\":$run}" | jq -e '.ok' >/dev/null \
  || fail "status while the readers are held"
ok "stats, agents and status answered with both readers held"

# A read waits for a reader; a pipelining client's stats waits behind
# its own read (its answers come in the order it asked).
"$I" runs --json >"$T/runs.out" 2>&1 &
RUNS=$!
PIDS+=("$RUNS")
"$P" --dealer "$IOFLEET_CONTROLLER" '{"cmd":"runs"}' '{"cmd":"stats"}' >"$T/pipe.out" 2>"$T/pipe.err" &
PIPE=$!
PIDS+=("$PIPE")
for _ in $(seq 100); do grep -q sent "$T/pipe.err" 2>/dev/null && break; sleep 0.1; done
"$I" stats --json >/dev/null || fail "stats with reads queued"
[ ! -s "$T/runs.out" ] || fail "a read was answered while both readers were held: $(cat "$T/runs.out")"
[ ! -s "$T/pipe.out" ] || fail "the pipelining client got an answer before its read: $(cat "$T/pipe.out")"
kill -0 "$H1" 2>/dev/null && kill -0 "$H2" 2>/dev/null || fail "a hold ended before its file went"

rm -f "$H"
wait "$H1" || fail "hold 1: $(cat "$T/hold1.out")"
wait "$H2" || fail "hold 2: $(cat "$T/hold2.out")"
for f in hold1 hold2; do
  jq -e '.ok and .result.released' "$T/$f.out" >/dev/null || fail "$f: $(cat "$T/$f.out")"
done
wait "$RUNS" || fail "runs after the holds: $(cat "$T/runs.out")"
jq -e --argjson r "$run" 'map(.id) | index($r) != null' "$T/runs.out" >/dev/null \
  || fail "runs after the holds: $(cat "$T/runs.out")"
wait "$PIPE" || fail "pipelining client: $(cat "$T/pipe.err")"
[ "$(wc -l <"$T/pipe.out")" -eq 2 ] || fail "pipelining client: $(cat "$T/pipe.out")"
sed -n 1p "$T/pipe.out" | jq -e '.ok and (.result | type == "array")' >/dev/null \
  || fail "the pipelining client's first answer is not its runs: $(cat "$T/pipe.out")"
sed -n 2p "$T/pipe.out" | jq -e '.ok and (.result.version | type == "string")' >/dev/null \
  || fail "the pipelining client's second answer is not its stats: $(cat "$T/pipe.out")"
ok "the queued read answered once a reader was free; one client's answers in its order"

# Test-only commands need --test-clock; unknown and bad requests still
# get their error from the loop.
"$P" "$IOFLEET_CONTROLLER" '{"cmd":"nope"}' | jq -e '.ok == false and (.error | test("unknown command"))' \
  >/dev/null || fail "unknown command"
"$P" "$IOFLEET_CONTROLLER" 'not json' | jq -e '.ok == false and (.error | test("not a JSON object"))' \
  >/dev/null || fail "a request that is not JSON"
stop_controller
rm -f "$T/agent-endpoint"
start_controller
"$P" "$IOFLEET_CONTROLLER" "{\"cmd\":\"test_hold\",\"file\":\"$H\"}" \
  | jq -e '.ok == false and (.error | test("--test-clock"))' >/dev/null \
  || fail "test_hold without --test-clock"
"$I" report "$run" --format json >/dev/null || fail "report after a restart"
ok "errors answered; test_hold refused without --test-clock"
