#!/usr/bin/env bash
# A flood of garbage on the agent port during a run (moved from
# tests/e2e/test_faults.sh as it was): the run completes and the counter
# shows the drops; no interval stored twice.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --lost-after 3s
for k in 1 2 3; do start_agent "agent-$k"; done
wait_agents 3
I="$BIN/iofleet"

# --- garbage on the agent port during a run ---------------------------------
before=$(sqlite3 "$T/iofleet.db" "SELECT COALESCE((SELECT value FROM counters WHERE name = 'bad_agent_messages'), 0)")
probe_plan p4b 4
run=$("$I" run p4b) || fail "run p4b"
sleep 1
"$TOOLS/hostile_peer" agent "$AGENT_EP" >/dev/null || fail "controller misbehaved against the flood"
[ "$(wait_run "$run")" = complete ] || fail "the run under a garbage flood did not complete"
after=$(sqlite3 "$T/iofleet.db" "SELECT value FROM counters WHERE name = 'bad_agent_messages'")
[ $((after - before)) -ge 200 ] || fail "bad messages counted during the flood: $((after - before))"
intervals "$run" >"$T/i3"
awk -F'|' '$3 != 0 { exit 1 }' "$T/i3" || fail "duplicate rows: $(cat "$T/i3")"
ok "garbage flood during run $run: complete, $((after - before)) bad messages dropped and counted"
