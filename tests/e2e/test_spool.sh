#!/usr/bin/env bash
# The agents' on-disk spool, on real processes:
#  - the controller is stopped (SIGSTOP: nothing is acknowledged) while the
#    agents measure; one agent is then killed with kill -9 and started
#    again on the same --spool-dir; the controller goes on (SIGCONT): the
#    restarted agent resends what its dead process spooled, its part is
#    marked lost (restarted) and every interval it measured before dying is
#    stored, once; the other agent completes;
#  - a spool of --spool-max 64k overflows while the controller is stopped:
#    the agent lets the oldest unacknowledged snapshots go, logs and counts
#    them, and the report names the count; no interval is missing beyond
#    those (here their first sending sat in the stopped controller's socket
#    buffers, so they still arrive).
. "$(dirname "$0")/lib.sh"
fleet_setup
# 200 ms intervals: a spool of 64 KiB overflows in seconds.
start_controller --interval 200ms --lost-after 30s
declare -A APID
start_agent s1; APID[s1]=${PIDS[-1]}
start_agent s2; APID[s2]=${PIDS[-1]}
wait_agents 2
I="$BIN/iofleet"

# Stored (agent, distinct seqs, duplicate rows, max seq) for one run.
intervals () {
  sqlite3 "$T/iofleet.db" "SELECT a.name, COUNT(DISTINCT s.seq), COUNT(*) - COUNT(DISTINCT s.seq || '/' || s.target), MAX(s.seq)
    FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE s.run_id = $1 GROUP BY a.name ORDER BY a.name"
}


wait_step_running () {
  for _ in $(seq 300); do
    "$I" report "$1" --format json 2>/dev/null | jq -e '.steps[0].status == "running"' >/dev/null && return 0
    sleep 0.1
  done
  fail "run $1 never started running"
}

# --- agent killed while the controller is away -------------------------------
probe_plan p12 9
run=$("$I" run p12) || fail "run p12"
wait_step_running "$run"
sleep 2
kill -STOP "$CTL_PID"
sleep 4
kill -KILL "${APID[s1]}"
wait "${APID[s1]}" 2>/dev/null || true
"$BIN/iofleet-agent" spool "$T/s1.spool" --json >"$T/spool1.json" || fail "iofleet-agent spool"
"$BIN/iofleet-agent" spool "$T/s1.spool" >"$T/spool1.txt" || fail "iofleet-agent spool (text)"
last=$(jq --argjson r "$run" '[.steps[] | select(.run == $r) | .last_seq] | max' "$T/spool1.json")
unacked=$(jq --argjson r "$run" '[.steps[] | select(.run == $r) | .unacked] | add' "$T/spool1.json")
[ "$last" -ge 20 ] 2>/dev/null || fail "s1's spool holds intervals up to '$last' after 6 s at 200 ms: $(cat "$T/spool1.json")"
[ "$unacked" -ge 15 ] || fail "s1's spool holds only $unacked unacknowledged records"
grep -q "run $run step 1: .* record(s), intervals .*no DONE" "$T/spool1.txt" || fail "spool text: $(cat "$T/spool1.txt")"
per=$(jq --argjson r "$run" '[.steps[] | select(.run == $r)][0] | (.bytes / .records) | floor' "$T/spool1.json")
ok "s1 killed with intervals 0-$last measured; its spool holds $unacked unacknowledged ($per bytes per record, 1 target)"
start_agent s1; APID[s1]=${PIDS[-1]}
kill -CONT "$CTL_PID"
[ "$(wait_run "$run")" = partial ] || fail "run with a restarted agent: not partial"
"$I" report "$run" --format json >"$T/r1.json"
intervals "$run" >"$T/i1"
s1=$(awk -F'|' '$1 == "s1"' "$T/i1")
s2=$(awk -F'|' '$1 == "s2"' "$T/i1")
[ "$s1" = "s1|$((last + 1))|0|$last" ] || fail "s1 stored '$s1' (name|distinct|duplicates|max), measured 0-$last"
want2=$(jq '.steps[0].agents[] | select(.agent == "s2") | .snapshots_reported' "$T/r1.json")
[ "$s2" = "s2|$want2|0|$((want2 - 1))" ] || fail "s2 stored '$s2', reported $want2"
jq -e '.steps[0].agents[] | select(.agent == "s1") | .status == "lost" and .restarted == true
       and (.message | test("restarted during the step"))' "$T/r1.json" >/dev/null \
  || fail "s1 not reported as restarted: $(jq -c '.steps[0].agents[] | select(.agent == "s1")' "$T/r1.json")"
jq -e '.steps[0].agents[] | select(.agent == "s2") | .status == "done" and .incomplete == false' \
  "$T/r1.json" >/dev/null || fail "s2 not complete"
grep -q "agent 's1' came back without this step's workload (restarted (pid" "$T/controller.log" || fail "controller did not log the restart"
grep -q "an earlier run of this agent had not delivered" "$T/s1.log" || fail "s1 did not say what it recovered"
# The resent intervals arrived long after their seconds (out of the
# controller's ring of recent intervals): the series still adds up.
check_fleet_intervals "$run"
ok "controller stopped, s1 killed and restarted: s1 $((last + 1)) of $((last + 1)) measured intervals stored, s2 $want2 of $want2, 0 duplicates; fleet_intervals add up"

# The spools are empty again once everything is acknowledged (the DONE too).
for _ in $(seq 100); do
  n=$("$BIN/iofleet-agent" spool "$T/s2.spool" --json | jq '[.steps[].unacked] | add // 0')
  [ "$n" = 0 ] && break
  sleep 0.1
done
[ "$n" = 0 ] || fail "s2's spool still holds $n unacknowledged records after the run"

# --- the same with the agent alone in its run: the step must wait for the
# restarted agent's spool to drain before it ends ------------------------------
probe_plan p6 6
run1=$("$I" run p6 --agents s2) || fail "run p6"
wait_step_running "$run1"
sleep 1
kill -STOP "$CTL_PID"
sleep 2
kill -KILL "${APID[s2]}"
wait "${APID[s2]}" 2>/dev/null || true
last1=$("$BIN/iofleet-agent" spool "$T/s2.spool" --json | jq --argjson r "$run1" '[.steps[] | select(.run == $r) | .last_seq] | max')
start_agent s2; APID[s2]=${PIDS[-1]}
kill -CONT "$CTL_PID"
[ "$(wait_run "$run1")" = failed ] || fail "run of one restarted agent: not failed"
got=$(intervals "$run1")
[ "$got" = "s2|$((last1 + 1))|0|$last1" ] || fail "lone s2 stored '$got', measured 0-$last1"
ok "lone agent killed and restarted: $((last1 + 1)) of $((last1 + 1)) measured intervals stored (run failed: its only agent was lost)"

# --- spool overflow -------------------------------------------------------------
start_agent s3 --spool-max 64k; APID[s3]=${PIDS[-1]}
wait_agents 3
kill -STOP "${APID[s1]}"; kill -STOP "${APID[s2]}"    # only s3 in this run
# Eight targets: a snapshot is eight times the size.
probe_plan p10 10 'filename=o1.dat:o2.dat:o3.dat:o4.dat:o5.dat:o6.dat:o7.dat:o8.dat' 'size=4m'
kill -CONT "${APID[s1]}"; kill -CONT "${APID[s2]}"
run2=$("$I" run p10 --agents s3) || fail "run p10"
wait_step_running "$run2"
sleep 1
kill -STOP "$CTL_PID"
sleep 7
"$BIN/iofleet-agent" spool "$T/s3.spool" >"$T/spool3.txt"
kill -CONT "$CTL_PID"
st=$(wait_run "$run2")
"$I" report "$run2" --format json >"$T/r2.json"
"$I" report "$run2" >"$T/r2.txt"
dropped=$(jq '.steps[0].agents[0].spool_dropped' "$T/r2.json")
missing=$(jq '.steps[0].agents[0].missing_intervals | length' "$T/r2.json")
grep -q "spool .* is full" "$T/s3.log" || fail "s3 did not log the overflow; its spool held: $(cat "$T/spool3.txt")"
[ "$dropped" -ge 1 ] || fail "no drops counted with a 64k spool and the controller away 7 s: $(jq -c '.steps[0].agents[0]' "$T/r2.json")"
[ "$missing" -le "$dropped" ] || fail "missing $missing intervals, more than the $dropped the spool let go: $(jq -c '.steps[0].agents[0] | {missing_intervals, spool_dropped}' "$T/r2.json")"
grep -Eq "s3 .*spool overflowed: $dropped snapshots? let go" "$T/r2.txt" || fail "text report does not name the drops: $(grep s3 "$T/r2.txt")"
intervals "$run2" >"$T/i2"
awk -F'|' '$3 != 0 { exit 1 }' "$T/i2" || fail "duplicate rows: $(cat "$T/i2")"
stored=$(jq '.steps[0].agents[0].snapshots' "$T/r2.json")
ok "spool of 64k overflowed (run $st): $dropped snapshot(s) let go and counted; $stored intervals stored, $missing missing"
