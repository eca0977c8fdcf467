#!/usr/bin/env bash
# An agent killed mid-step (moved from tests/e2e/test_faults.sh as it was),
# then an agent killed and restarted mid-step:
#  - kill -9 one of three agents mid-step: the run ends partial, the others
#    complete with every interval, and the report names the lost agent and
#    the intervals it is missing;
#  - kill -9 one of three agents mid-step and start it again at once (same
#    name, same spool): the controller sees a new process without the
#    step's workload, marks the agent lost ("agent restarted during the
#    step (pid A, then B): its workload stopped there"), still takes what
#    the old process spooled, and the run ends partial.  Nothing measured
#    is lost: the restarted agent's stored intervals run without a hole
#    from its first to the kill, the others have every interval, no row is
#    stored twice; the report names the restart and the intervals missing
#    after it.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --lost-after 3s
# Our own agents' pids (as started here; never looked up by name, which
# could match another test's agents).
for k in 1 2 3; do start_agent "agent-$k"; APID[agent-$k]=${PIDS[-1]}; done
wait_agents 3
I="$BIN/iofleet"
# others_stored RUN K: no row stored twice, and agent-1 and agent-3 (not
# the one killed) stored every interval they reported (report rK.json);
# the rows per agent in iK.
others_stored () {
  local a want got
  intervals "$1" >"$T/i$2"
  awk -F'|' '$3 != 0 { exit 1 }' "$T/i$2" || fail "duplicate rows: $(cat "$T/i$2")"
  for a in agent-1 agent-3; do
    want=$(jq --arg a "$a" '.steps[0].agents[] | select(.agent == $a) | .snapshots_reported' "$T/r$2.json")
    got=$(awk -F'|' -v a="$a" '$1 == a { print $2 }' "$T/i$2")
    [ "$got" = "$want" ] || fail "$a: $got intervals stored, it reported $want"
  done
}
pid_of () { echo "${APID[$1]}"; }

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
# The gap: agent-2 lost from its first missing interval to the step's end.
jq -e '.steps[0] as $s | ($s.agents[] | select(.agent == "agent-2")) as $a
  | $s.gaps | length == 1 and (.[0] | .agent == "agent-2" and .cause == "lost" and .partial
                               and .from_interval == ($a.missing_intervals | min)
                               and .to_interval == $a.intervals_expected - 1)' "$T/r1.json" >/dev/null \
  || fail "killed agent's gap: $(jq -c '.steps[0] | {gaps, m: (.agents[] | select(.agent == "agent-2") | .missing_intervals)}' "$T/r1.json")"
"$I" report "$run" >"$T/r1.txt"
grep -Eq "agent-2 .*INCOMPLETE: missing intervals? " "$T/r1.txt" || fail "text report lacks the INCOMPLETE line"
grep -q "agent-2 .*GAP lost, intervals" "$T/r1.txt" || fail "text report lacks the GAP line"
others_stored "$run" 1
ok "kill -9 agent-2 mid-step: run partial; agent-1 and agent-3 complete ($(awk -F'|' '{printf "%s %s; ", $1, $2}' "$T/i1")0 duplicates); report names agent-2 missing $(jq -c '.steps[0].agents[] | select(.agent == "agent-2") | .missing_intervals' "$T/r1.json")"


# --- kill -9 one agent mid-step and start it again --------------------------
start_agent agent-2
APID[agent-2]=${PIDS[-1]}
wait_agents 3
probe_plan p8 8
run=$("$I" run p8) || fail "run p8"
wait_step_running "$run"
sleep 3
old=$(pid_of agent-2)
kill -KILL "$old"
wait "$old" 2>/dev/null || true
start_agent agent-2
APID[agent-2]=${PIDS[-1]}
new=$(pid_of agent-2)
st=$(wait_run "$run")
"$I" report "$run" --format json >"$T/r2.json"
"$I" report "$run" >"$T/r2.txt"
[ "$st" = partial ] || fail "run with an agent restarted mid-step: $st; $(jq -c '[.steps[0].agents[] | {agent, status, message, snapshots, snapshots_reported, missing_intervals}]' "$T/r2.json")"
grep -q "agent 'agent-2' came back without this step's workload (restarted (pid $old, then $new))" "$T/controller.log" \
  || fail "the controller's log does not name the restart: $(grep agent-2 "$T/controller.log" | tail -3)"
jq -e --arg m "agent restarted during the step (pid $old, then $new): its workload stopped there" '.steps[0] as $s
  | $s.status == "partial" and $s.incomplete_agents == ["agent-2"]
  and ($s.agents | map(select(.agent != "agent-2")) | all(.status == "done" and .incomplete == false
                                                            and .missing_intervals == []))
  and ($s.agents[] | select(.agent == "agent-2") | .status == "lost" and .message == $m and .incomplete == true
       and (.missing_intervals | length) >= 1 and .snapshots >= 2
       and .snapshots + (.missing_intervals | length) == .intervals_expected)' "$T/r2.json" >/dev/null \
  || fail "restarted agent: $(jq -c '.steps[0] | {status, inc: .incomplete_agents, a: [.agents[] | {agent, status, message, snapshots, intervals_expected, incomplete, missing_intervals}]}' "$T/r2.json")"
grep -qF "agent restarted during the step (pid $old, then $new)" "$T/r2.txt" || fail "the text report does not name the restart: $(grep agent-2 "$T/r2.txt")"
grep -Eq "agent-2 .*INCOMPLETE: missing intervals? " "$T/r2.txt" || fail "text report lacks the INCOMPLETE line"
others_stored "$run" 2
# What the old process measured, its spool resent: no hole before the kill.
seqs=$(sqlite3 "$T/iofleet.db" "SELECT MIN(s.seq), MAX(s.seq), COUNT(DISTINCT s.seq) FROM snapshots s JOIN agents a ON a.id = s.agent_id
  WHERE s.run_id = $run AND a.name = 'agent-2'")
IFS='|' read -r lo hi n <<<"$seqs"
[ "$lo" = 0 ] && [ "$n" -ge 2 ] && [ $((hi - lo + 1)) = "$n" ] || fail "agent-2's stored intervals before the kill have holes: seq $lo..$hi, $n stored"
missing=$(jq -c '.steps[0].agents[] | select(.agent == "agent-2") | .missing_intervals' "$T/r2.json")
jq -e --argjson hi "$hi" 'all(.steps[0].agents[] | select(.agent == "agent-2") | .missing_intervals[]; . > $hi)' "$T/r2.json" >/dev/null \
  || fail "agent-2's missing intervals $missing are not all after its last stored one ($hi)"
jq -e --argjson hi "$hi" '.steps[0] as $s | ($s.agents[] | select(.agent == "agent-2")) as $a
  | $s.gaps | length == 1 and (.[0] | .agent == "agent-2" and .cause == "restarted" and .partial
                               and .from_interval == $hi + 1 and .to_interval == $a.intervals_expected - 1)' "$T/r2.json" >/dev/null \
  || fail "restarted agent's gap (stored up to $hi): $(jq -c '.steps[0].gaps' "$T/r2.json")"
grep -q "agent-2 .*GAP restarted, intervals" "$T/r2.txt" || fail "text report lacks the GAP line"
ok "kill -9 agent-2 3 s into an 8 s step, restarted: run partial; agent-2 lost 'restarted (pid $old, then $new)', seq $lo..$hi stored without a hole, missing $missing; others complete ($(awk -F'|' '{printf "%s %s; ", $1, $2}' "$T/i2")0 duplicates)"
