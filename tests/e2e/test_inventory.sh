#!/usr/bin/env bash
# Inventory end to end: an agent reads a fixture /sys (SAS drives behind an
# HBA and an expander); the controller stores what it reported; after a
# "firmware upgrade" of the HBA a second run stores a second inventory, and
# the two runs are told apart by firmware.
. "$(dirname "$0")/lib.sh"
fleet_setup
FX="$FIXTURES/sysfs/sas-expander"
[ -d "$FX/sys" ] || fail "fixture $FX missing"
cp -a "$FX" "$T/hw"
start_controller
start_agent agent-1 --sysfs-root "$T/hw/sys" --procfs-root "$T/hw/proc" --etc-root "$T/hw/etc" \
  --label rack=r12
wait_agents 1

"$BIN/iofleet" inventory agent-1 --json >"$T/inv.json" || fail "iofleet inventory"
jq -e '.inventory | (.drives | map(select(.transport == "sas")) | length) == 2
       and (.controllers | map(select(.driver == "mpt3sas")) | length) == 1' "$T/inv.json" >/dev/null \
  || fail "inventory: $(jq -c '.inventory | {d: [.drives[] | [.name, .transport]], c: [.controllers[] | [.pci_address, .driver, .firmware]]}' "$T/inv.json")"
fw1=$(jq -r '.inventory.controllers[] | select(.driver == "mpt3sas") | .firmware' "$T/inv.json")
"$BIN/iofleet" inventory agent-1 >"$T/inv.txt" || fail "iofleet inventory (text)"
grep -q "mpt3sas" "$T/inv.txt" || fail "text inventory lacks the HBA"
"$BIN/iofleet" agents --json | jq -e '.[0].inventory_hash | length == 16' >/dev/null || fail "agents --json lacks inventory_hash"
ok "inventory of the fixture: 2 SAS drives behind mpt3sas firmware $fw1"

cat >"$T/plan.fio" <<'PLAN'
[probe]
ioengine=libaio
direct=1
rw=randread
bs=4k
size=4m
filename=probe.dat
runtime=1
time_based
PLAN
"$BIN/iofleet" plan add inv "$T/plan.fio" >/dev/null
run1=$("$BIN/iofleet" run inv --wait --json 2>/dev/null | jq -r .run) || fail "run 1"

# The HBA firmware is upgraded between the runs.
fwfile=$(grep -rlx --include=version_fw "$fw1" "$T/hw/sys" | head -1)
[ -n "$fwfile" ] || fail "cannot find the HBA firmware attribute in the fixture"
echo "16.00.12.00" >"$fwfile"
run2=$("$BIN/iofleet" run inv --wait --json 2>/dev/null | jq -r .run) || fail "run 2"

h1=$("$BIN/iofleet" report "$run1" --format json | jq -r '.steps[0].agents[0].inventory_hash')
h2=$("$BIN/iofleet" report "$run2" --format json | jq -r '.steps[0].agents[0].inventory_hash')
[ -n "$h1" ] && [ "$h1" != null ] && [ "$h1" != "$h2" ] || fail "inventory hashes of the runs: $h1 / $h2"
n=$(sqlite3 "$T/iofleet.db" "SELECT COUNT(*) FROM inventories")
[ "$n" = 2 ] || fail "$n inventories stored, want 2 (deduplicated by hash)"
fws=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(fw, ',') FROM (
  SELECT json_extract(c.value, '\$.firmware') fw FROM run_inventory ri
  JOIN inventories i ON i.id = ri.inventory_id, json_each(json_extract(i.json, '\$.controllers')) c
  WHERE json_extract(c.value, '\$.driver') = 'mpt3sas' ORDER BY ri.run_id)")
[ "$fws" = "$fw1,16.00.12.00" ] || fail "firmware per run from the database: $fws"
ok "runs $run1 and $run2 told apart by HBA firmware ($fws); 2 inventories stored"

# A reboot (a new boot_id, the same hardware) is the same inventory: no
# third row, and run 3 has run 2's.
bootfile="$T/hw/proc/sys/kernel/random/boot_id"
[ -f "$bootfile" ] || fail "the fixture has no boot_id"
echo "99999999-8888-7777-6666-555555555555" >"$bootfile"
run3=$("$BIN/iofleet" run inv --wait --json 2>/dev/null | jq -r .run) || fail "run 3"
h3=$("$BIN/iofleet" report "$run3" --format json | jq -r '.steps[0].agents[0].inventory_hash')
n=$(sqlite3 "$T/iofleet.db" "SELECT COUNT(*) FROM inventories")
[ "$n" = 2 ] && [ "$h3" = "$h2" ] || fail "after a reboot: $n inventories stored (want 2), run $run3's hash $h3 (run $run2's $h2)"
ok "a reboot alone (new boot_id) stores no new inventory: run $run3 has run $run2's ($h3)"

# Drive selectors on a real loop device (root only: losetup).
if [ "$(id -u)" = 0 ]; then
  truncate -s 64M "$T/disk.img"
  LOOPDEV=$(losetup --direct-io=on -f --show "$T/disk.img")
  # lib.sh's cleanup does not know loop devices: detach on exit here.
  trap 'rc=$?; losetup -d "$LOOPDEV" 2>/dev/null; (exit $rc); cleanup' EXIT
  start_agent agent-2 --allow '/dev/loop*'
  wait_agents 2
  cat >"$T/sel.fio" <<'PLAN'
[by-transport]
ioengine=libaio
direct=1
rw=randread
bs=4k
size=16m
filename=@loop
runtime=1
time_based
PLAN
  "$BIN/iofleet" plan add sel "$T/sel.fio" >/dev/null
  out=$("$BIN/iofleet" run sel --agents agent-2 --wait --json 2>/dev/null) || fail "@loop run"
  jq -e --arg dev "$LOOPDEV" '.report.steps[0].agents[0].targets | any(.target == $dev
        and .drive.transport == "loop" and .read.ops > 0)' <<<"$out" >/dev/null \
    || fail "@loop targets: $(jq -c '[.report.steps[0].agents[0].targets[] | [.target, .drive]]' <<<"$out")"
  sed -i 's/filename=@loop/filename=@nvme/' "$T/sel.fio"
  "$BIN/iofleet" plan add sel "$T/sel.fio" >/dev/null
  if out=$("$BIN/iofleet" run sel --agents agent-2 --wait --json 2>/dev/null); then fail "@nvme ran on a host without NVMe"; fi
  jq -e '.report.steps[0].agents[0] | .status == "refused"
         and (.message | test("selector .@nvme. matched no data drive"))' <<<"$out" >/dev/null \
    || fail "@nvme refusal: $(jq -c '.report.steps[0].agents[0] | {status, message}' <<<"$out")"
  ok "filename=@loop resolved to $LOOPDEV (drive transport loop in the report); @nvme refused with the reason"
  # The tuning lint: a depth beyond the loop device's nr_requests is named.
  nr=$(cat "/sys/block/$(basename "$LOOPDEV")/queue/nr_requests")
  sed -i "s/filename=@nvme/filename=@loop\niodepth=$((nr * 2))/" "$T/sel.fio"
  "$BIN/iofleet" plan add sel "$T/sel.fio" >/dev/null
  run=$("$BIN/iofleet" run sel --agents agent-2 --wait --json 2>/dev/null | jq -r .run) || fail "lint run"
  "$BIN/iofleet" report "$run" --format json | jq -e --arg nr "$nr" '.steps[0].lint
      | any(test("agent-2: loop[0-9]+: nr_requests " + $nr + " is below"))' >/dev/null \
    || fail "lint: $("$BIN/iofleet" report "$run" --format json | jq -c '.steps[0].lint')"
  "$BIN/iofleet" report "$run" >"$T/lint.txt" || fail "text report"
  grep -q "lint: agent-2: loop" "$T/lint.txt" || fail "text report lacks the lint line"
  ok "tuning lint in the report: iodepth $((nr * 2)) over nr_requests $nr"
else
  echo "note: not root: drive selectors on a loop device skipped"
fi

# Selecting agents by label or by what their inventory holds.
sel () { "$BIN/iofleet" run inv --agents "$1" --json 2>"$T/sel.err" | jq -c '.agents'; }
[ "$(sel 'rack=r12')" = '["agent-1"]' ] || fail "--agents rack=r12: $(sel 'rack=r12') $(cat "$T/sel.err")"
[ "$(sel 'hba.firmware=16.*,drive.transport=sas')" = '["agent-1"]' ] || fail "--agents by hba firmware and drive transport"
[ "$(sel 'label.rack=r1*')" = '["agent-1"]' ] || fail "--agents label.rack=r1*"
if "$BIN/iofleet" run inv --agents 'drive.transport=nvme' 2>"$T/sel.err"; then fail "an nvme selection matched"; fi
grep -q "no connected agent matches --agents 'drive.transport=nvme'" "$T/sel.err" || fail "selection error: $(cat "$T/sel.err")"
if "$BIN/iofleet" run inv --agents 'agent-1,rack=r12' 2>"$T/sel.err"; then fail "a mixed selection ran"; fi
grep -q "mix of names and KEY=GLOB" "$T/sel.err" || fail "mixed selection error: $(cat "$T/sel.err")"
ok "--agents by label (rack=r12) and by inventory (hba.firmware=16.*, drive.transport=sas)"
