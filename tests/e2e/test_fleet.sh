#!/usr/bin/env bash
# End to end on loopback: a controller and 3 agents run a 2-step plan of
# 2 s per step on file targets; the JSON report must add up, and must
# survive a controller restart.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
# agent-3's clock is 40 ms off: its offset estimate must absorb that.
start_agent agent-1 --label rack=r1
start_agent agent-2 --label rack=r1
start_agent agent-3 --label rack=r1 --clock-shift-ms 40
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

# Synchronized start: offsets per agent, skew per step, aligned intervals.
for s in 0 1; do
  jq -e ".steps[$s] | .start_skew_ns >= 0 and .start_skew_ns < 20000000" "$R" >/dev/null \
    || fail "step $s: start skew $(jq ".steps[$s].start_skew_ns" "$R") ns, bound 20 ms (agent-3's clock is 40 ms off)"
  jq -e ".steps[$s].agents | all(.start_ns > 0 and (.clock_uncertainty_ns | type) == \"number\")" "$R" >/dev/null \
    || fail "step $s: agents lack start_ns / clock fields"
  # Every interval: the fleet count is the sum of the agents' counts, exactly.
  jq -e ".steps[$s].intervals | length >= 1 and all(.agents == 3 and .read.histogram_count == .read.ops
         and .write.histogram_count == .write.ops)" "$R" >/dev/null \
    || fail "step $s: interval sums: $(jq -c "[.steps[$s].intervals[] | [.seq, .agents, .read.ops, .read.histogram_count]]" "$R")"
  jq -e ".steps[$s] | .window.start_ns < .window.end_ns and (.outside_window | length) == 0" "$R" >/dev/null \
    || fail "step $s: common window $(jq -c ".steps[$s] | {window, outside_window}" "$R")"
done
# Interval sums checked against the database itself.
for s in 0 1; do
  want=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(n) FROM (SELECT SUM(read_ops + write_ops) n FROM snapshots WHERE run_id = $run AND step_idx = $s GROUP BY seq ORDER BY seq)")
  got=$(jq -r "[.steps[$s].intervals[] | .read.ops + .write.ops] | map(tostring) | join(\",\")" "$R")
  [ "$want" = "$got" ] || fail "step $s: interval ops $got, database says $want"
done
off=$(jq '.steps[0].agents[] | select(.agent == "agent-3") | .clock_offset_ns' "$R")
awk -v o="$off" 'BEGIN { exit !(o < -35000000 && o > -45000000) }' \
  || fail "agent-3 (clock +40 ms) estimated offset $off ns, want about -40 ms"
ok "start skew $(jq -c '[.steps[].start_skew_ns]' "$R") ns with one clock 40 ms off (its offset: $off ns); interval sums exact"

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

# numjobs without filename=, on agents: each job copy writes a file of its
# own (fio's NAME.N.0) of size= each, in the agent's workdir.
printf '[own]\nioengine=libaio\ndirect=1\nrw=write\nbs=64k\nsize=2m\nnumjobs=2\n' >"$T/own.fio"
"$BIN/iofleet" plan add own "$T/own.fio" >/dev/null || fail "plan add own"
orun=$("$BIN/iofleet" run own --agents agent-1 --wait --json 2>/dev/null | jq -r .run) || fail "run own"
"$BIN/iofleet" report "$orun" --format json >"$T/own.json"
jq -e '.steps[0].agents[0].targets | length == 2
       and (map(.target | split("/") | last) | sort) == ["own.0.0", "own.1.0"]
       and all(.[]; .write.ops == 32 and .read.ops == 0)' "$T/own.json" >/dev/null \
  || fail "numjobs=2 without filename: $(jq -c '[.steps[0].agents[0].targets[] | {target, w: .write.ops}]' "$T/own.json")"
for n in 0 1; do
  [ "$(stat -c %s "$T/agent-1/own.$n.0")" = 2097152 ] || fail "own.$n.0 is not 2 MiB"
done
[ ! -e "$T/agent-1/own" ] || fail "a shared file 'own' was made"
ok "numjobs=2 without filename=: own.0.0 and own.1.0, 32 writes of 64k each (fio's layout)"

# verify= on agents: a write pass read back clean; then the data is damaged
# on one agent's disk between a writing run and a verify_only run, and that
# run names the place and what differs, counts it, and fails the agent.
printf '[vw]\nioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nsize=1m\niodepth=4\nverify=crc32c\nfilename=v.dat\n' >"$T/vw.fio"
sed 's/verify=crc32c/verify=crc32c\nverify_only=1/' "$T/vw.fio" >"$T/vo.fio"
"$BIN/iofleet" plan add vw "$T/vw.fio" >/dev/null || fail "plan add vw"
"$BIN/iofleet" plan add vo "$T/vo.fio" >/dev/null || fail "plan add vo"
vrun=$("$BIN/iofleet" run vw --agents agent-1,agent-2 --wait --json 2>/dev/null | jq -r .run) || fail "run vw"
"$BIN/iofleet" report "$vrun" --format json >"$T/vw.json"
jq -e '.status == "complete" and (.steps[0].agents | length == 2 and all(.targets[0] | .write.ops == 256
       and .read.ops == 256 and .read.errors == 0 and .write.errors == 0))' "$T/vw.json" >/dev/null \
  || fail "verify run: $(jq -c '{status, a: [.steps[0].agents[] | {status, message, t: [.targets[] | {r: .read.ops, w: .write.ops, re: .read.errors}]}]}' "$T/vw.json")"
# Two blocks of agent-1's file damaged: a flipped byte, and another block's data.
printf 'X' | dd of="$T/agent-1/v.dat" bs=1 seek=$((37 * 4096 + 1000)) conv=notrunc 2>/dev/null
dd if="$T/agent-1/v.dat" of="$T/agent-1/v.dat" bs=4096 skip=3 seek=200 count=1 conv=notrunc 2>/dev/null
orun=$("$BIN/iofleet" run vo --agents agent-1,agent-2 --wait --json 2>/dev/null | jq -r .run) || true
"$BIN/iofleet" report "$orun" --format json >"$T/vo.json"
jq -e '.steps[0].agents[] | select(.agent == "agent-2") | .status == "done" and .targets[0].read.errors == 0
       and .targets[0].read.ops == 256 and .targets[0].write.ops == 0' "$T/vo.json" >/dev/null \
  || fail "verify_only on the undamaged agent: $(jq -c '.steps[0].agents' "$T/vo.json")"
jq -e '.steps[0].agents[] | select(.agent == "agent-1") | .targets[0].read.errors == 2
       and (.message | test("^I/O error: verify: 4096 bytes at offset (151552|819200) of .*v.dat"))
       and (.message | test("the first of 2 mismatches"))' "$T/vo.json" >/dev/null \
  || fail "verify_only on the damaged agent: $(jq -c '.steps[0].agents[] | select(.agent == "agent-1") | {status, message, e: .targets[0].read.errors}' "$T/vo.json")"
[ "$(jq -r .status "$T/vo.json")" = partial ] || fail "a run with verify mismatches on one of two agents is $(jq -r .status "$T/vo.json"), not partial"
ok "verify on agents: 256 writes read back clean; damaged blocks found by verify_only: $(jq -r '.steps[0].agents[] | select(.agent == "agent-1") | .message' "$T/vo.json" | head -c 200)"

# An agent of an older release would skip the JobSpec fields it does not
# know (verify=, ...) and run another job without a word: the controller
# leaves it out of such a step, naming why; a plan without them runs there.
start_agent old-1 --test-release 0.2.0
wait_agents 4
"$BIN/iofleet" agents --json | jq -e '.[] | select(.name == "old-1") | .version == "0.2.0"' >/dev/null \
  || fail "old-1's release: $("$BIN/iofleet" agents --json | jq -c '.[] | select(.name == "old-1")')"
orun=$("$BIN/iofleet" run vw --agents agent-1,old-1 --wait --json 2>/dev/null | jq -r .run) || true
"$BIN/iofleet" report "$orun" --format json >"$T/old.json"
jq -e '.steps[0].agents[] | select(.agent == "old-1") | .status == "refused"
       and (.message | test("the agent runs iofleet 0.2.0, which would ignore verify= of job .vw. \\(iofleet 0.3.0 runs it\\); upgrade the agent"))' \
  "$T/old.json" >/dev/null || fail "old agent with verify=: $(jq -c '.steps[0].agents' "$T/old.json")"
jq -e '.steps[0].agents[] | select(.agent == "agent-1") | .status == "done"' "$T/old.json" >/dev/null \
  || fail "agent-1 beside the old agent: $(jq -c '.steps[0].agents' "$T/old.json")"
printf '[plain]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nfilename=p.dat\nruntime=1\ntime_based\n' >"$T/plain.fio"
"$BIN/iofleet" plan add plain "$T/plain.fio" >/dev/null || fail "plan add plain"
prun=$("$BIN/iofleet" run plain --agents old-1 --wait --json 2>/dev/null | jq -r .status) || fail "plain run on old-1"
[ "$prun" = complete ] || fail "a plan without 0.3 options on a 0.2.0 agent: $prun"
ok "an agent saying it runs 0.2.0 is left out of a verify= step (refused, naming why) and runs a plain plan"
