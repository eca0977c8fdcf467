#!/usr/bin/env bash
# Sweeps on a fleet: a 3x2 sweep (3 block sizes x 2 depths) runs and stores
# 6 steps, named and ordered as documented, all on one file per agent.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
start_agent agent-2
wait_agents 2
cat >"$T/sweep.fio" <<'PLAN'
[qd-bs]
ioengine=libaio
direct=1
rw=randread
bs=4k,8k,16k
iodepth=1,8
size=8m
runtime=1
time_based
PLAN
"$BIN/iofleet" plan add sweep "$T/sweep.fio" | grep -q "6 step" || fail "plan add did not count 6 steps"
out=$("$BIN/iofleet" run sweep --wait --json 2>/dev/null) || fail "sweep run exited non-zero"
run=$(jq -r .run <<<"$out")
want='qd-bs-4k-qd1,qd-bs-4k-qd8,qd-bs-8k-qd1,qd-bs-8k-qd8,qd-bs-16k-qd1,qd-bs-16k-qd8'
got=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(name) FROM (SELECT name FROM steps WHERE run_id = $run ORDER BY idx)")
[ "$got" = "$want" ] || fail "stored steps: $got, want $want"
jq -e '.report.steps | length == 6 and all(.status == "complete" and .fleet.read.ops > 0)' <<<"$out" >/dev/null \
  || fail "sweep steps: $(jq -c '[.report.steps[] | [.name, .status, .fleet.read.ops]]' <<<"$out")"
# The block size of each step is what its name says: bytes / ops.
jq -e '.report.steps | all((.fleet.read.bytes / .fleet.read.ops) == (.job.bs))
       and map(.job.bs) == [4096, 4096, 8192, 8192, 16384, 16384]
       and map(.job.iodepth) == [1, 8, 1, 8, 1, 8]' <<<"$out" >/dev/null \
  || fail "sweep step parameters: $(jq -c '[.report.steps[] | [.job.bs, .job.iodepth]]' <<<"$out")"
for a in agent-1 agent-2; do
  files=$(ls "$T/$a")
  [ "$files" = "qd-bs.0.0" ] || fail "$a: sweep steps did not share one file (fio's name qd-bs.0.0): $files"
done
ok "3x2 sweep: 6 steps stored in order ($got), one file per agent"

# The queue-depth curves: one per block size, points in depth order, and
# the knee as documented (the depth after which doubling gains < 10%).
jq -e '.report.sweeps | length == 3 and all(.[]; (.points | map(.iodepth)) == [1, 8]
       and ((.points[1].iops / .points[0].iops) as $r | ($r | log2 / 3 | exp2) - 1 < 0.10) as $flat
       | (if $flat then .knee_iodepth == 1 else .knee_iodepth == null end))' <<<"$out" >/dev/null \
  || fail "sweep curves: $(jq -c '[.report.sweeps[] | {curve, knee_iodepth, p: [.points[] | [.iodepth, (.iops | round)]]}]' <<<"$out")"
ok "sweep curves: $(jq -c '[.report.sweeps[] | [.bs, [.points[] | .iops | round], .knee_iodepth]]' <<<"$out")"

# The SLA capacity of a sweep: the highest IOPS among the depths whose p99
# meets the plan's [iofleet] sla, recomputed here from the points, for the
# fleet and for each group (--by agent).
cat >"$T/cap.fio" <<'PLAN'
[iofleet]
sla=p99<300us
[cap]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=1,4,16
size=8m
runtime=1
time_based
PLAN
"$BIN/iofleet" plan add cap "$T/cap.fio" >/dev/null || fail "plan add cap"
run=$("$BIN/iofleet" run cap --wait --json 2>/dev/null | jq -r .run) || true
[ -n "$run" ] && [ "$run" != null ] || fail "cap run did not start"
"$BIN/iofleet" report "$run" --by agent --format json >"$T/cap.json" || true
jq -e '.sweeps | length == 3 and all(.[];
  .points as $p
  | ($p | map(.p99 < 300000)) as $ok
  | ([$p | to_entries[] | select(.value.sla_latency_pass != $ok[.key])] | length == 0)
  and ([$p[] | select(.p99 < 300000)] | max_by(.iops)) as $best
  | if $best == null then .sla_capacity.iops == null and (.sla_capacity.note | test("no depth"))
    else .sla_capacity.iops == $best.iops and .sla_capacity.iodepth == $best.iodepth
         and ((.sla_capacity.p99_headroom_pct - 100 * (300000 - $best.p99) / 300000) | fabs) < 1e-6
    end)
  and (map(.group) | sort) == [null, "agent-1", "agent-2"]' "$T/cap.json" >/dev/null \
  || fail "SLA capacity: $(jq -c '[.sweeps[] | {group, cap: .sla_capacity, p: [.points[] | [.iodepth, (.iops | round), .p99, .sla_latency_pass]]}]' "$T/cap.json")"
"$BIN/iofleet" report "$run" >"$T/cap.txt" || true
grep -q "SLA capacity" "$T/cap.txt" || fail "text report lacks the SLA capacity: $(grep -A5 sweep "$T/cap.txt")"
ok "SLA capacity (p99<300us): $(jq -c '[.sweeps[] | [.group, ((.sla_capacity.iops // "none") | if type == "number" then round else . end), .sla_capacity.iodepth]]' "$T/cap.json")"
