#!/usr/bin/env bash
# latency_target in a fleet run, end to end (root only: a loop device and a
# cgroup v1 blkio throttle; skips with 77 otherwise).  A real agent, inside
# a blkio cgroup that holds the loop device to 4000 read IOPS (each queued
# I/O adds about 250 us), searches the deepest queue depth whose p99 of
# latencies within a 200 ms window stays under 2.2 ms; with iodepth=64 it
# settles near 3 or 4 (docs/conformance.md, case latency-target).  Its DONE
# says the depth per job of the step; the controller stores it
# (latency_depths) and reports it:
#  - step 1, one job with a target: the report JSON's agent
#    "latency_target" [{job, target_ns, percentile, window_ns, depth}] with
#    a depth of 1..8 (neither iodepth nor absent), the text report's line,
#    fio-json's "latency_depth" the same depth;
#  - step 2, two jobs together, the second with the target (on the loop
#    device) and the first without (a file in the workdir): the depth is
#    the second job's (job_idx 1); fio-json's entry, named and optioned
#    after the first job, prints that job's iodepth, as fio does for a job
#    without a target;
#  - step 3, no target: no new key anywhere (report, job spec), and
#    fio-json's latency_depth is the iodepth.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs a loop device and a blkio cgroup)"
  exit 77
fi
CGROOT=/sys/fs/cgroup/blkio
if [ ! -f "$CGROOT/blkio.throttle.read_iops_device" ]; then
  echo "skip: no cgroup v1 blkio at $CGROOT to throttle the loop device"
  exit 77
fi
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 is not installed"; exit 77; }
fleet_setup
I="$BIN/iofleet"
DB="$T/iofleet.db"

truncate -s 64M "$T/disk.img"
LOOPDEV=$(losetup --direct-io=on -f --show "$T/disk.img")
AT_EXIT+=("losetup -d $LOOPDEV")
mm=$(printf '%d:%d' "0x$(stat -c %t "$LOOPDEV")" "0x$(stat -c %T "$LOOPDEV")")
CG=$CGROOT/iofleet-test-$$
mkdir "$CG"
# After the agent is gone (cleanup stops PIDS first); the kernel may take
# a moment to let go of an exited task.
AT_EXIT+=("for _ in \$(seq 50); do rmdir $CG 2>/dev/null && break; sleep 0.1; done")
echo "$mm 4000" >"$CG/blkio.throttle.read_iops_device"
grep -q "^$mm 4000\$" "$CG/blkio.throttle.read_iops_device" \
  || fail "blkio.throttle.read_iops_device did not take: $(cat "$CG/blkio.throttle.read_iops_device")"

start_controller
# start_agent's arguments, the process put into the cgroup before exec.
mkdir -p "$T/lt"
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
  "$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --name lt --workdir "$T/lt" \
  --spool-dir "$T/lt.spool" --allow '/dev/loop*' >>"$T/lt.log" 2>&1 &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agents 1
grep -qx "$AGENT_PID" "$CG/cgroup.procs" || fail "agent $AGENT_PID is not in $CG"
ok "agent lt in $CG: $LOOPDEV ($mm) held to 4000 read IOPS"

cat >"$T/lt.fio" <<EOF
[global]
ioengine=libaio
direct=1
rw=randread
bs=4k
time_based
runtime=6

[lt]
iodepth=64
latency_target=2200us
latency_window=200ms
latency_percentile=99
filename=$LOOPDEV

[side]
stonewall
iodepth=2
size=16m
filename=side.dat

[lt2]
iodepth=64
latency_target=2200us
latency_window=200ms
latency_percentile=99
filename=$LOOPDEV

[plain]
stonewall
iodepth=4
runtime=1
filename=$LOOPDEV
EOF
"$I" plan add latdepth "$T/lt.fio" >/dev/null || fail "plan add"
out=$("$I" run latdepth --agents lt --wait --json 2>"$T/run.err") \
  || { cat "$T/run.err" >&2; fail "run --wait exited non-zero"; }
run=$(jq -r '.run' <<<"$out")
[ "$(jq -r '.status' <<<"$out")" = complete ] || fail "run status $(jq -r .status <<<"$out")"
"$I" report "$run" --format json >"$T/r.json"
R="$T/r.json"
jq -e '[.steps[] | .name] == ["lt", "side+lt2", "plain"]
       and ([.steps[].agents[] | .status == "done" and .message == ""] | all)' "$R" >/dev/null \
  || fail "steps: $(jq -c '[.steps[] | [.name, [.agents[] | [.status, .message]]]]' "$R")"

# Step 1: the one job's depth, beside the target it searched under.
d1=$(jq -r '.steps[0].agents[0].latency_target[0].depth' "$R")
jq -e '.steps[0].agents[0].latency_target | length == 1
       and (.[0] | .job == "lt" and .target_ns == 2200000 and .percentile == 99
            and .window_ns == 200000000 and (.depth | type) == "number"
            and .depth >= 1 and .depth <= 8)
       and ($r.steps[0].job | .latency_target_ns == 2200000 and .latency_window_ns == 200000000
            and .latency_percentile == 99 and .latency_run == false)' \
    --argjson r "$(cat "$R")" "$R" >/dev/null \
  || fail "step 1 latency_target: $(jq -c '.steps[0].agents[0].latency_target' "$R") (iodepth 64)"
[ "$(sqlite3 "$DB" "SELECT group_concat(step_idx || ':' || job_idx || ':' || depth, ' ') FROM (SELECT * FROM latency_depths WHERE run_id = $run ORDER BY step_idx, job_idx)" | cut -d' ' -f1)" = "0:0:$d1" ] \
  || fail "latency_depths rows: $(sqlite3 "$DB" "SELECT * FROM latency_depths")"
ok "step 1: the search settled at depth $d1 (iodepth 64), stored and in the report"

# Step 2: two jobs together; the target is the second job's.
d2=$(jq -r '.steps[1].agents[0].latency_target[0].depth' "$R")
jq -e '.steps[1].agents[0].latency_target | length == 1
       and (.[0] | .job == "lt2" and .target_ns == 2200000 and (.depth | type) == "number"
            and .depth >= 1 and .depth <= 8)' "$R" >/dev/null \
  || fail "step 2 latency_target: $(jq -c '.steps[1].agents[0].latency_target' "$R")"
[ "$(sqlite3 "$DB" "SELECT job_idx || ':' || depth FROM latency_depths WHERE run_id = $run AND step_idx = 1")" = "1:$d2" ] \
  || fail "step 2 latency_depths rows: $(sqlite3 "$DB" "SELECT * FROM latency_depths WHERE step_idx = 1")"
ok "step 2: job lt2 (the step's second job) settled at depth $d2, job_idx 1"

# Step 3: no target, no trace.
jq -e '.steps[2] | (.agents | all(has("latency_target") | not))
       and (.job | keys | any(startswith("latency")) | not)' "$R" >/dev/null \
  || fail "step 3 has latency keys: $(jq -c '.steps[2] | {job, a: [.agents[] | keys]}' "$R")"
ok "step 3 (no target): no latency key in its job or agents"

# Text: one line per agent of the steps with a target.
"$I" report "$run" >"$T/r.txt"
grep -qE "^ +lt +latency_target 2\.2ms p99 window 200ms: depth $d1\$" "$T/r.txt" \
  || fail "text: no latency_target line for step 1: $(cat "$T/r.txt")"
grep -qE "^ +lt +latency_target 2\.2ms p99 window 200ms \(job lt2\): depth $d2\$" "$T/r.txt" \
  || fail "text: no latency_target line for step 2: $(cat "$T/r.txt")"
[ "$(grep -c 'latency_target' "$T/r.txt")" = 2 ] || fail "text: $(grep latency_target "$T/r.txt")"
ok "text: $(grep -m1 'latency_target' "$T/r.txt" | sed 's/^ *//')"

# fio-json: the entry of step 1 has the depth found; the others, whose
# first job has no target, their iodepth.
"$I" report "$run" --format fio-json >"$T/f.json"
jq -e --argjson d "$d1" '[.jobs[] | [.jobname, .hostname, .latency_depth, .latency_target, .latency_percentile, .latency_window]]
       == [["lt", "lt", $d, 2200000, 99.0, 200000], ["side", "lt", 2, 0, 100.0, 0], ["plain", "lt", 4, 0, 100.0, 0]]' \
    "$T/f.json" >/dev/null \
  || fail "fio-json: $(jq -c '[.jobs[] | [.jobname, .latency_depth, .latency_target, .latency_percentile, .latency_window]]' "$T/f.json") (depth $d1)"
ok "fio-json: latency_depth $d1 for lt; the iodepth (2, 4) for entries without a target"
