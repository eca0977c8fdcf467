#!/usr/bin/env bash
# Faults on real processes during runs:
#  - kill -9 one of three agents mid-step: the run ends partial, the others
#    complete with every interval, and the report names the lost agent and
#    the intervals it is missing;
#  - SIGSTOP an agent past --lost-after, then SIGCONT: marked lost, then
#    taken back in the same step; every interval of every agent stored
#    exactly once;
#  - a flood of garbage on the agent port during a run: the run completes
#    and the counter shows the drops.
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


# --- kill -9 one agent mid-step ---------------------------------------------
probe_plan p4 4
run=$("$I" run p4) || fail "run p4"
sleep 2
kill -KILL "$(pid_of agent-2)"
[ "$(wait_run "$run")" = partial ] || fail "run with a killed agent: not partial"
"$I" report "$run" --format json >"$T/r1.json"
jq -e '.steps[0] as $s | $s.status == "partial"
  | . and ($s.agents | map(select(.agent != "agent-2")) | all(.status == "done" and .incomplete == false
                                                            and .missing_intervals == []))
  and ($s.agents[] | select(.agent == "agent-2") | .status == "lost" and .incomplete == true
       and (.missing_intervals | length) >= 1
       and .snapshots + (.missing_intervals | length) == .intervals_expected)
  and $s.incomplete_agents == ["agent-2"]' "$T/r1.json" >/dev/null \
  || fail "killed agent: $(jq -c '.steps[0] | {status, a: [.agents[] | {agent, status, snapshots, incomplete, missing_intervals}], inc: .incomplete_agents}' "$T/r1.json")"
"$I" report "$run" >"$T/r1.txt"
grep -Eq "agent-2 .*INCOMPLETE: missing intervals? " "$T/r1.txt" || fail "text report lacks the INCOMPLETE line"
intervals "$run" >"$T/i1"
awk -F'|' '$3 != 0 { exit 1 }' "$T/i1" || fail "duplicate rows: $(cat "$T/i1")"
for a in agent-1 agent-3; do
  want=$(jq --arg a "$a" '.steps[0].agents[] | select(.agent == $a) | .snapshots_reported' "$T/r1.json")
  got=$(awk -F'|' -v a="$a" '$1 == a { print $2 }' "$T/i1")
  [ "$got" = "$want" ] || fail "$a: $got intervals stored, it reported $want"
done
ok "kill -9 agent-2 mid-step: run partial; agent-1 and agent-3 complete ($(awk -F'|' '{printf "%s %s; ", $1, $2}' "$T/i1")0 duplicates); report names agent-2 missing $(jq -c '.steps[0].agents[] | select(.agent == "agent-2") | .missing_intervals' "$T/r1.json")"

# --- SIGSTOP past --lost-after, then SIGCONT --------------------------------
start_agent agent-2
APID[agent-2]=${PIDS[-1]}
wait_agents 3
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
