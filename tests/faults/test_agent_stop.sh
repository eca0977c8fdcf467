#!/usr/bin/env bash
# An agent stopped and continued mid-step (moved from tests/e2e/test_faults.sh
# as it was; its kill -9 part is now test_agent_kill.sh, its garbage part
# test_garbage.sh): SIGSTOP an agent past --lost-after, then SIGCONT:
# marked lost, then taken back in the same step; every interval of every
# agent stored exactly once.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --lost-after 3s
# Our own agents' pids (as started here; never looked up by name, which
# could match another test's agents).
declare -A APID
for k in 1 2 3; do start_agent "agent-$k"; APID[agent-$k]=${PIDS[-1]}; done
wait_agents 3
I="$BIN/iofleet"
pid_of () { echo "${APID[$1]}"; }

# Stored (agent, seq) rows per agent and the duplicates, for one run.
intervals () {
  sqlite3 "$T/iofleet.db" "SELECT a.name, COUNT(DISTINCT s.seq), COUNT(*) - COUNT(DISTINCT s.seq || '/' || s.target)
    FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE s.run_id = $1 GROUP BY a.name ORDER BY a.name"
}


# --- SIGSTOP past --lost-after, then SIGCONT --------------------------------
probe_plan p10 10
run=$("$I" run p10) || fail "run p10"
sleep 2
pid=$(pid_of agent-3)
kill -STOP "$pid"
for _ in $(seq 100); do
  grep -q "agent 'agent-3' lost during step" "$T/controller.log" && break; sleep 0.1
done
grep -q "agent 'agent-3' lost during step" "$T/controller.log" || { kill -CONT "$pid"; fail "a stopped agent was not marked lost"; }
kill -CONT "$pid"
[ "$(wait_run "$run")" = complete ] || fail "run with a stopped agent: $("$I" report "$run" --format json | jq -c "[.steps[0].agents[] | {agent, status, message, snapshots, snapshots_reported, missing_intervals}]")"
grep -q "agent 'agent-3' came back during step 1" "$T/controller.log" || fail "agent-3 was not taken back"
"$I" report "$run" --format json >"$T/r2.json"
jq -e '.steps[0].agents | all(.status == "done" and .incomplete == false)' "$T/r2.json" >/dev/null \
  || fail "after SIGCONT: $(jq -c '[.steps[0].agents[] | {agent, status, message, snapshots, missing_intervals}]' "$T/r2.json")"
intervals "$run" >"$T/i2"
awk -F'|' '$3 != 0 { exit 1 }' "$T/i2" || fail "duplicate rows: $(cat "$T/i2")"
for a in agent-1 agent-2 agent-3; do
  want=$(jq --arg a "$a" '.steps[0].agents[] | select(.agent == $a) | .snapshots_reported' "$T/r2.json")
  got=$(awk -F'|' -v a="$a" '$1 == a { print $2 }' "$T/i2")
  [ "$got" = "$want" ] && [ "$got" -ge 9 ] || fail "$a: $got intervals stored, it reported $want"
done
ok "SIGSTOP agent-3 past --lost-after 3s, then SIGCONT: lost, taken back, run complete; intervals stored $(awk -F'|' '{printf "%s %s, ", $1, $2}' "$T/i2")0 lost, 0 duplicates"
