#!/usr/bin/env bash
# [iofleet] precondition=COUNT end to end (root only: a loop device).  A
# plan of one 2 s random-read job on a 64 MiB loop device, preconditioned
# twice, runs on a real agent:
#  - without --allow-write the agent refuses the precondition step with
#    its write guard's rule, the plan's step is not run on it (it would
#    measure a drive not preconditioned), and the device is not written
#    (its write counter in /sys/block/loopN/stat does not move);
#  - with it, the device is written exactly twice its size (the kernel's
#    counter, 2 x 131072 sectors), the report's first step is
#    "precondition" with those bytes written, 128 KiB each, and the plan's
#    own step follows with reads only;
#  - iofleet-agent run (local mode) leaves the plan's step unrun too when
#    the guard refuses the precondition (the device formatted ext4).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs a loop device)"
  exit 77
fi
fleet_setup
I="$BIN/iofleet"
truncate -s 64M "$T/disk.img"
LOOPDEV=$(losetup --direct-io=on -f --show "$T/disk.img")
AT_EXIT+=("losetup -d $LOOPDEV")
STAT=/sys/block/$(basename "$LOOPDEV")/stat
written () { awk '{print $7}' "$STAT"; }     # sectors written, the kernel's count
start_controller
start_agent ro --allow '/dev/loop*'
start_agent rw --allow '/dev/loop*' --allow-write '/dev/loop*'
wait_agents 2

cat >"$T/pre.fio" <<EOF2
[iofleet]
precondition=2

[global]
ioengine=libaio
direct=1
filename=$LOOPDEV

[reads]
rw=randread
bs=4k
iodepth=4
runtime=2
time_based
EOF2
"$I" plan add pre "$T/pre.fio" >/dev/null || fail "plan add"
"$I" plan show pre --json | jq -e '.steps == [["precondition"], ["reads"]]' >/dev/null \
  || fail "plan show: steps $("$I" plan show pre --json | jq -c .steps)"
ok "plan show: steps precondition, then reads"

w0=$(written)
out=$("$I" run pre --agents ro --wait --json 2>"$T/run1.err") && fail "run on ro exited 0"
run=$(jq -r '.run' <<<"$out")
"$I" report "$run" --format json >"$T/r1.json" || true
jq -e '.status == "failed" and .steps[0].name == "precondition"
       and .steps[0].agents[0].status == "refused" and .steps[1].agents[0].status == "refused"
       and (.steps[1].agents[0].message | test("precondition step ended refused"))' "$T/r1.json" >/dev/null \
  || fail "run on ro: $(jq -c '{status, steps: [.steps[] | {name, status, agents: [.agents[] | {status, message}]}]}' "$T/r1.json")"
msg=$(jq -r '.steps[0].agents[0].message' "$T/r1.json")
grep -q -- "--allow-write" <<<"$msg" || fail "the refusal does not name --allow-write: $msg"
[ "$(written)" = "$w0" ] || fail "the device was written without --allow-write: $((($(written) - w0))) sectors"
ok "without --allow-write: refused ($msg); the plan's step not run on a drive not preconditioned; nothing written"

w0=$(written)
out=$("$I" run pre --agents rw --wait --json 2>"$T/run2.err") \
  || { cat "$T/run2.err" >&2; fail "run on rw exited non-zero"; }
run=$(jq -r '.run' <<<"$out")
[ "$(jq -r '.status' <<<"$out")" = complete ] || fail "run status $(jq -r .status <<<"$out")"
delta=$(($(written) - w0))
[ "$delta" = $((2 * 64 * 2048)) ] || fail "the device got $delta sectors written, want $((2 * 64 * 2048)) (twice 64 MiB)"
ok "precondition=2 wrote $delta sectors: twice the 64 MiB device (the kernel's count)"

"$I" report "$run" --format json >"$T/r2.json"
jq -e --argjson b $((2 * 64 << 20)) '.steps[0] | .name == "precondition"
       and .fleet.write.bytes == $b and .fleet.write.ops == $b / 131072 and .fleet.read.ops == 0
       and (.agents[0].status == "done")' "$T/r2.json" >/dev/null \
  || fail "step 1: $(jq -c '.steps[0] | {name, w: .fleet.write | {bytes, ops}, r: .fleet.read.ops}' "$T/r2.json")"
jq -e '.steps[1] | .name == "reads" and .fleet.read.ops > 0 and .fleet.write.ops == 0' "$T/r2.json" >/dev/null \
  || fail "step 2: $(jq -c '.steps[1] | {name, r: .fleet.read.ops, w: .fleet.write.ops}' "$T/r2.json")"
ok "report: step 1 precondition $(jq .steps[0].fleet.write.ops "$T/r2.json") writes of 128 KiB, step 2 reads only"

# Per-drive progress of the size-bound precondition step: the agent in a
# cgroup that lets it write its device at 16 MiB/s, the 128 MiB take about
# 8 s; the controller's status (what watch shows) reports the drive's
# planned bytes (twice 64 MiB) and the bytes moved, growing, and watch
# prints them with the slowest drive; a controller killed and started
# again part way shows them still.
read_throttle_cgroup iofleet-pre "$LOOPDEV"
set_throttle wbps $((16 << 20))
echo "${PIDS[-1]}" >"$CG/cgroup.procs"       # agent rw
run=$("$I" run pre --agents rw) || fail "run 3"
"$I" watch "$run" >"$T/watch.out" 2>"$T/watch.err" &
W=$!
PIDS+=("$W")
# Part way (a quarter moved, watch has shown it), the controller is killed
# (kill -9) and started again: the drive's progress goes on from what the
# database holds (018_planned: the planned bytes; the snapshots: the bytes
# moved), never back to nothing.
restarted=0 before=0
for _ in $(seq 300); do
  s=$("$TOOLS/admin_peer" "$IOFLEET_CONTROLLER" "{\"cmd\":\"status\",\"run\":$run}" 2>/dev/null || true)
  line=$(jq -r '.result | select(.step == 0) | .drives_progress // empty
         | "\(.drives) \(.done) \(.planned_bytes) \(.moved_bytes) \(.slowest.agent) \(.slowest.target)"' \
    <<<"$s" 2>/dev/null || true)
  if [ -n "$line" ]; then
    echo "$line" >>"$T/progress"
    [ "$restarted" = 1 ] && echo "$line" >>"$T/progress-after"
  fi
  read -r _ _ planned moved _ <<<"${line:-x x 0 0}"
  if [ "$restarted" = 0 ] && [ "$planned" -gt 0 ] && [ $((moved * 4)) -ge "$planned" ] \
     && grep -q "drives 0/1 done" "$T/watch.err"; then
    kill -TERM "$W"; wait "$W" 2>/dev/null || true
    kill -KILL "$CTL_PID"; wait "$CTL_PID" 2>/dev/null || true
    LISTEN=$AGENT_EP start_controller
    restarted=1 before=$moved
    continue
  fi
  st=$(jq -r '.result.status // empty' <<<"$s" 2>/dev/null || true)
  case "$st" in complete|partial|failed|cancelled) break ;; esac
  sleep 0.2
done
[ "$st" = complete ] || fail "run 3: $st"
[ "$restarted" = 1 ] || fail "the controller was never restarted mid-step: $(cat "$T/progress")"
[ -s "$T/progress-after" ] || fail "no per-drive progress after the restart"
awk -v p=$((2 * 64 << 20)) -v b="$before" '$3 != p || $4 < b { bad = 1 } END { exit bad }' "$T/progress-after" \
  || fail "after the restart (moved $before before it): $(cat "$T/progress-after")"
n=$(awk -v p=$((2 * 64 << 20)) -v dev="$LOOPDEV" '$1 == 1 && $3 == p && $5 == "rw" && $6 == dev' "$T/progress" | wc -l)
[ "$n" -ge 3 ] || fail "progress samples: $(cat "$T/progress")"
sort -n -k4 -c "$T/progress" 2>/dev/null || awk '{ if (NR > 1 && $4 < last) exit 1; last = $4 }' "$T/progress" \
  || fail "the bytes moved went down: $(cat "$T/progress")"
distinct=$(awk '$4 > 0 && $4 < $3 { print $4 }' "$T/progress" | sort -u | wc -l)
[ "$distinct" -ge 2 ] || fail "no progress between 0 and the end: $(cat "$T/progress")"
grep -qE "drives 0/1 done, .* of 128\.0 MiB, slowest rw $LOOPDEV [0-9]+%" "$T/watch.err" \
  || fail "watch: $(grep -m3 precondition "$T/watch.err")"
ok "precondition progress per drive: $(wc -l <"$T/progress") samples of 128 MiB planned, $distinct in between; watch: $(grep -m1 -oE 'drives 0/1 done[^|]*' "$T/watch.err"); across a controller killed at $before bytes moved: $(wc -l <"$T/progress-after") samples after, from $(head -1 "$T/progress-after" | cut -d' ' -f4) bytes"

# Local mode (iofleet-agent run) the same: a precondition step the write
# guard refuses (the device now carries ext4) leaves the plan's step unrun.
if command -v mkfs.ext4 >/dev/null; then
  mkfs.ext4 -q "$LOOPDEV" || fail "mkfs.ext4 $LOOPDEV"
  "$BIN/iofleet-agent" run "$T/pre.fio" --output-format json >"$T/local.json" 2>"$T/local.err" \
    && fail "local run exited 0"
  grep -q "the precondition step failed: the plan's steps not run" "$T/local.err" \
    || fail "local run: $(tail -2 "$T/local.err")"
  jq -e '[.jobs[] | [.jobname, .read.total_ios, .write.total_ios]] == [["precondition", 0, 0], ["reads", 0, 0]]' \
    "$T/local.json" >/dev/null || fail "local run jobs: $(jq -c '[.jobs[] | [.jobname, .read.total_ios, .write.total_ios]]' "$T/local.json")"
  ok "local run: the refused precondition step (ext4 on the device) leaves the plan's step unrun"
fi
