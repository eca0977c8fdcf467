#!/usr/bin/env bash
# End to end on loopback: a controller and 3 agents run a 2-step plan of
# 2 s per step on file targets; the JSON report must add up, and must
# survive a controller restart.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
for i in 1 2 3; do start_agent "agent-$i" --label rack=r1; done
wait_agents 3
ok "3 agents connected"

"$BIN/iofleet" plan add e2e "$FIXTURES/jobs/e2e-two-steps.fio" | grep -q "2 step" \
  || fail "plan add did not report 2 steps"
"$BIN/iofleet" plan list --json | jq -e '.[] | select(.name == "e2e" and .steps == 2)' >/dev/null \
  || fail "plan list lacks e2e"

out=$("$BIN/iofleet" run e2e --agents all --wait --json 2>"$T/run.err") \
  || { cat "$T/run.err" >&2; fail "run --wait exited non-zero"; }
run=$(jq -r '.run' <<<"$out")
[ "$(jq -r '.status' <<<"$out")" = complete ] || fail "run status $(jq -r .status <<<"$out")"
grep -q "step 2/2" "$T/run.err" || fail "--wait showed no progress"
ok "run $run complete"

"$BIN/iofleet" report "$run" --format json >"$T/report.json"
R="$T/report.json"
jq -e --argjson run "$run" '.run == $run and .plan == "e2e" and .status == "complete"' "$R" >/dev/null \
  || fail "report header"
[ "$(jq '.steps | length' "$R")" = 2 ] || fail "report has $(jq '.steps|length' "$R") steps"

for s in 0 1; do
  [ "$(jq ".steps[$s].agents | length" "$R")" = 3 ] || fail "step $s: not 3 agents"
  # Every agent finished cleanly: its DONE totals equal its stored snapshots.
  jq -e ".steps[$s].agents | all(.status == \"done\" and .message == \"\")" "$R" >/dev/null \
    || fail "step $s: agent status $(jq -c "[.steps[$s].agents[] | [.status, .message]]" "$R")"
  # Every agent did I/O.
  jq -e ".steps[$s].agents | all(.targets | map(.read.ops + .write.ops) | add > 0)" "$R" >/dev/null \
    || fail "step $s: an agent has no ops"
  # Snapshots per agent = runtime / interval (2 s / 1 s), +-1, all stored.
  jq -e ".steps[$s].agents | all(.snapshots >= 1 and .snapshots <= 3 and .snapshots == .snapshots_reported)" "$R" >/dev/null \
    || fail "step $s: snapshot counts $(jq -c "[.steps[$s].agents[] | [.snapshots, .snapshots_reported]]" "$R")"
  for d in read write; do
    # Fleet IOPS = sum of agent IOPS; merged count = sum of agents' counts = total ops.
    jq -e --arg d "$d" "
      .steps[$s] as \$st
      | ([\$st.agents[].targets[][\$d].iops] | add) as \$sum
      | ([\$st.agents[].targets[][\$d].histogram_count] | add) as \$cnt
      | ([\$st.agents[].targets[][\$d].ops] | add) as \$ops
      | (\$st.fleet[\$d].iops - \$sum | fabs) <= 1e-6 * (\$sum + 1)
        and \$st.fleet[\$d].histogram_count == \$cnt
        and \$cnt == \$ops and \$st.fleet[\$d].ops == \$ops" "$R" >/dev/null \
      || fail "step $s $d: fleet totals do not add up: $(jq -c ".steps[$s].fleet.$d | {iops, ops, histogram_count}" "$R")"
  done
  # Percentiles are ordered and inside [min, max].
  jq -e ".steps[$s].fleet.read | .lat_ns.min <= .percentiles.p50 and .percentiles.p50 <= .percentiles.p99
         and .percentiles.p99 <= .percentiles[\"p99.99\"] and .percentiles[\"p99.99\"] <= .lat_ns.max" "$R" >/dev/null \
    || fail "step $s: percentiles out of order"
done
# The first step is pure random read: no writes anywhere.
jq -e '.steps[0].fleet.write.ops == 0' "$R" >/dev/null || fail "randread step wrote"
# The mixed step is ~70% reads (numjobs=2 x 8 deep over 3 agents: thousands of I/Os).
jq -e '.steps[1].fleet | (.read.ops / (.read.ops + .write.ops)) as $r | $r > 0.6 and $r < 0.8' "$R" >/dev/null \
  || fail "randrw 70/30 read share off: $(jq '.steps[1].fleet | .read.ops / (.read.ops + .write.ops)' "$R")"
ok "report adds up"

"$BIN/iofleet" runs --json | jq -e --argjson run "$run" '.[] | select(.id == $run and .status == "complete" and .plan == "e2e")' >/dev/null \
  || fail "runs --json"
"$BIN/iofleet" report "$run" >"$T/report.txt"
grep -q "FLEET (3)" "$T/report.txt" || fail "text report lacks the fleet rows"

# slat + clat = lat, in the means (each I/O's lat is its slat + clat).
jq -e '.steps[0].fleet.read.latency | (.slat.mean + .clat.mean - .lat.mean | fabs) < 1 + .lat.mean * 1e-6
       and .slat.N == .clat.N and .clat.N == .lat.N' "$R" >/dev/null \
  || fail "slat + clat != lat: $(jq -c '.steps[0].fleet.read.latency | map_values(.mean)' "$R")"
ok "slat, clat and lat histograms add up"

# fio's JSON for the fleet: one job per step and agent, with a hostname.
"$BIN/iofleet" report "$run" --format fio-json >"$T/fio.json"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/fio.json" || fail "fio-json is not JSON"
jq -e '(.jobs | length) == 6 and (.jobs | map(.hostname) | unique | length) == 3
       and (.jobs | map(.jobname) | unique) == ["randread-4k-qd4", "randrw-8k-qd8"]
       and all(.jobs[]; .read.total_ios > 0 and .read.clat_ns.percentile["99.000000"] > 0)' \
  "$T/fio.json" >/dev/null || fail "fio-json jobs: $(jq -c '[.jobs[] | [.jobname, .hostname, .read.total_ios]]' "$T/fio.json")"
# Its I/O counts are the report's.
[ "$(jq '[.jobs[].read.total_ios] | add' "$T/fio.json")" = "$(jq '[.steps[].fleet.read.ops] | add' "$R")" ] \
  || fail "fio-json read I/Os differ from the report's"
ok "report --format fio-json: 2 steps x 3 agents, counts match"

# Restart the controller: the report is still there, unchanged.
stop_controller
LISTEN=$AGENT_EP start_controller
"$BIN/iofleet" report "$run" --format json >"$T/report2.json"
cmp -s <(jq -S . "$R") <(jq -S . "$T/report2.json") || fail "report changed across a restart"
ok "report survives a controller restart"

# The agents find the new controller by themselves.
wait_agents 3
ok "agents reconnected to the restarted controller"
