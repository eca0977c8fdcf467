#!/usr/bin/env bash
# [iofleet] purge=discard end to end (root only: a loop device).  A plan
# of one 1 s random-read job on a 128 MiB loop device full of data, with a
# purge step before it:
#  - an agent without --allow-purge refuses the purge step naming the rule,
#    runs none of the plan's steps, and nothing is discarded (the kernel's
#    discard counter in /sys/block/loopN/stat does not move);
#  - with --allow-purge, the write guard still refuses a mounted device;
#  - on the blank device, the purge discards exactly its 262,144 sectors
#    (the kernel's count), the backing file's blocks are freed (the loop
#    driver punches holes), the report's first step is "purge" with 128 MiB
#    trimmed, and the plan's reads follow;
#  - iofleet-agent run refuses the purge without --allow-purge too.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs a loop device)"
  exit 77
fi
fleet_setup
I="$BIN/iofleet"
truncate -s 128M "$T/disk.img"
LOOPDEV=$(losetup --direct-io=on -f --show "$T/disk.img")
AT_EXIT+=("umount $T/mnt 2>/dev/null; losetup -d $LOOPDEV")
STAT=/sys/block/$(basename "$LOOPDEV")/stat
discarded () { awk '{print $14}' "$STAT"; }      # sectors discarded, the kernel's count
allocated () { stat -c %b "$T/disk.img"; }       # 512-byte blocks the backing file holds
fill () { dd if=/dev/urandom of="$LOOPDEV" bs=1M count=128 oflag=direct status=none; }
[ -n "$(awk '{print $14}' "$STAT")" ] || { echo "skip: this kernel's block stat has no discard fields"; exit 77; }
fill
start_controller
start_agent nopurge --allow "$LOOPDEV" --allow-write "$LOOPDEV"
start_agent purger --allow "$LOOPDEV" --allow-write "$LOOPDEV" --allow-purge "$LOOPDEV"
wait_agents 2

cat >"$T/purge.fio" <<EOF2
[iofleet]
purge=discard

[reads]
ioengine=libaio
direct=1
filename=$LOOPDEV
rw=randread
bs=4k
runtime=1
time_based
EOF2
"$I" plan add purge "$T/purge.fio" >/dev/null || fail "plan add"
"$I" plan show purge --json | jq -e '.steps == [["purge"], ["reads"]]' >/dev/null \
  || fail "plan show: steps $("$I" plan show purge --json | jq -c .steps)"

d0=$(discarded)
out=$("$I" run purge --agents nopurge --wait --json 2>"$T/run1.err") && fail "run on nopurge exited 0"
run=$(jq -r '.run' <<<"$out")
"$I" report "$run" --format json >"$T/r1.json" || true
jq -e '.status == "failed" and .steps[0].name == "purge"
       and .steps[0].agents[0].status == "refused" and .steps[1].agents[0].status == "refused"
       and (.steps[0].agents[0].message | test("no --allow-purge glob matches it \\(rule: allow-purge\\)"))
       and (.steps[1].agents[0].message | test("purge step ended refused"))' "$T/r1.json" >/dev/null \
  || fail "run on nopurge: $(jq -c '{status, steps: [.steps[] | {name, agents: [.agents[] | {status, message}]}]}' "$T/r1.json")"
[ "$(discarded)" = "$d0" ] || fail "discarded without --allow-purge: $(($(discarded) - d0)) sectors"
ok "without --allow-purge: refused ($(jq -r '.steps[0].agents[0].message' "$T/r1.json" | head -c 90)...); nothing discarded"

if command -v mkfs.ext4 >/dev/null; then
  mkfs.ext4 -q "$LOOPDEV" && mkdir -p "$T/mnt" && mount "$LOOPDEV" "$T/mnt" || fail "mkfs and mount"
  d0=$(discarded)
  out=$("$I" run purge --agents purger --wait --json 2>"$T/run2.err") && fail "run on a mounted device exited 0"
  run=$(jq -r '.run' <<<"$out")
  "$I" report "$run" --format json >"$T/r2.json" || true
  msg=$(jq -r '.steps[0].agents[0].message' "$T/r2.json")
  grep -q "mounted" <<<"$msg" || fail "the guard did not refuse the mounted device: $msg"
  [ "$(discarded)" = "$d0" ] || fail "a mounted device was discarded"
  umount "$T/mnt"
  wipefs -q -a "$LOOPDEV"
  fill
  ok "with --allow-purge, a mounted device: refused by the guard ($(head -c 100 <<<"$msg")...)"
fi

d0=$(discarded); a0=$(allocated)
out=$("$I" run purge --agents purger --wait --json 2>"$T/run3.err") \
  || fail "run on purger exited non-zero: $(jq -c '[.report.steps[] | {name, agents: [.agents[] | {status, message}]}]' <<<"$out")"
run=$(jq -r '.run' <<<"$out")
delta=$(($(discarded) - d0))
[ "$delta" = 262144 ] || fail "the purge discarded $delta sectors, want 262144 (128 MiB)"
a1=$(allocated)
[ "$a1" -lt $((a0 / 8)) ] || fail "the backing file still holds $a1 blocks of $a0 after the purge"
"$I" report "$run" --format json >"$T/r3.json"
jq -e --argjson b $((128 << 20)) '.steps[0] | .name == "purge" and .fleet.trim.bytes == $b
       and .fleet.read.ops == 0 and .fleet.write.ops == 0' "$T/r3.json" >/dev/null \
  || fail "step 1: $(jq -c '.steps[0] | {name, trim: .fleet.trim | {bytes, ops}}' "$T/r3.json")"
jq -e '.steps[1] | .name == "reads" and .fleet.read.ops > 0' "$T/r3.json" >/dev/null \
  || fail "step 2: $(jq -c '.steps[1] | {name, r: .fleet.read.ops}' "$T/r3.json")"
ok "purge: $delta sectors discarded (the kernel's count) in $(jq .steps[0].fleet.trim.ops "$T/r3.json") discards; the backing file went from $a0 to $a1 blocks; then the reads"

"$BIN/iofleet-agent" run "$T/purge.fio" --output-format json >"$T/local.json" 2>"$T/local.err" \
  && fail "local run without --allow-purge exited 0"
grep -q "the purge step failed: the plan's steps not run" "$T/local.err" \
  || fail "local run: $(tail -2 "$T/local.err")"
ok "iofleet-agent run without --allow-purge: the purge refused, the plan's steps not run"

# purge=format on a loop device: the agent asks it NVME_IOCTL_ID and
# SG_IO, a loop device answers neither, and the step fails saying so and
# what to use; nothing is discarded or written.  (The format itself runs
# on an NVMe namespace in tests/vm/test_format.sh.)
sed 's/^purge=discard$/purge=format/' "$T/purge.fio" >"$T/format.fio"
d0=$(discarded)
w0=$(awk '{print $7}' "$STAT")
"$BIN/iofleet-agent" run "$T/format.fio" \
    --allow-purge "$LOOPDEV" >"$T/format.out" 2>"$T/format.err" && fail "purge=format on a loop device exited 0"
grep -q "neither an NVMe namespace nor a SCSI disk (it answers neither NVME_IOCTL_ID nor SG_IO): purge=format cannot format it; use purge=discard" "$T/format.err" \
  || fail "purge=format on a loop device: $(tail -3 "$T/format.err")"
[ "$(discarded)" = "$d0" ] && [ "$(awk '{print $7}' "$STAT")" = "$w0" ] || fail "purge=format on a loop device discarded or wrote"
ok "purge=format on a loop device: refused by the device check, naming it and purge=discard; nothing discarded or written"
