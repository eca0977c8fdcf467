#!/usr/bin/env bash
# A full disk under the controller's database, mid-step (root: a small
# tmpfs holds the database; skipped with 77 otherwise):
#  - the controller says plainly that it cannot write and why;
#  - reads keep answering (runs, report);
#  - the step holds past its planned end while the disk is full;
#  - once space is freed the run completes with every interval every agent
#    reported stored exactly once: nothing acknowledged was lost, nothing
#    unacknowledged was dropped (the agents kept it in their spools).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (mounts a small tmpfs)"; exit 77; fi
fleet_setup
mkdir "$T/dbfs"
mount -t tmpfs -o size=4m,mode=0700 iofleet-test-dbfs "$T/dbfs"
AT_EXIT+=("umount '$T/dbfs'")
DB="$T/dbfs/iofleet.db"
start_controller --interval 200ms
for k in 1 2; do start_agent "f$k"; done
wait_agents 2
I="$BIN/iofleet"

probe_plan p8 8
run=$("$I" run p8) || fail "run p8"
for _ in $(seq 300); do
  "$I" report "$run" --format json 2>/dev/null | jq -e '.steps[0].status == "running"' >/dev/null && break
  sleep 0.1
done
sleep 2
# Fill the file system: dd stops at ENOSPC.
dd if=/dev/zero of="$T/dbfs/fill" bs=64k status=none 2>/dev/null || true
[ "$(df --output=avail -B1 "$T/dbfs" | tail -1 | tr -d ' ')" -lt 65536 ] || fail "could not fill the tmpfs"
for _ in $(seq 100); do grep -q "cannot write" "$T/controller.log" && break; sleep 0.1; done
grep -q "cannot write (.*): the disk is full" "$T/controller.log" \
  || fail "no clear disk-full error: $(grep -i database "$T/controller.log" | tail -3)"
ok "disk full: $(grep -m1 -o 'database .*cannot write ([^)]*)' "$T/controller.log")"

# Reads answer while full; the step holds past its planned end (8 s).
sleep 8
"$I" runs --json >"$T/runs.json" || fail "iofleet runs failed while the disk was full"
jq -e --argjson r "$run" '.[] | select(.id == $r) | .status == "running"' "$T/runs.json" >/dev/null \
  || fail "run not held while the disk was full: $(jq -c --argjson r "$run" '.[] | select(.id == $r)' "$T/runs.json")"
"$I" report "$run" --format json >"$T/held.json" || fail "report failed while the disk was full"
"$I" plan list >/dev/null || fail "plan list failed while the disk was full"
ok "reads answer while full; run $run held at $(jq -r '.steps[0].status' "$T/held.json") past its planned end"

rm -f "$T/dbfs/fill"
st=""
for _ in $(seq 600); do
  st=$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')
  [ "$st" = running ] || break
  sleep 0.1
done
[ "$st" = complete ] || fail "run after freeing space: $st"
grep -q "writable again" "$T/controller.log" || fail "controller did not say it can write again"
"$I" report "$run" --format json >"$T/r.json"
rows=$(sqlite3 "$DB" "SELECT a.name, COUNT(DISTINCT s.seq), COUNT(*) - COUNT(DISTINCT s.seq || '/' || s.target)
  FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE s.run_id = $run GROUP BY a.name ORDER BY a.name")
for k in 1 2; do
  want=$(jq --arg a "f$k" '.steps[0].agents[] | select(.agent == $a) | .snapshots_reported' "$T/r.json")
  got=$(echo "$rows" | awk -F'|' -v a="f$k" '$1 == a { print $2 "|" $3 }')
  [ "$got" = "$want|0" ] || fail "f$k: stored|duplicates $got, reported $want"
  echo "ok: f$k: $want of $want intervals stored, 0 duplicates"
done
jq -e '.steps[0].agents | all(.status == "done" and .incomplete == false)' "$T/r.json" >/dev/null \
  || fail "agents not complete: $(jq -c '.steps[0].agents[] | {agent, status, message}' "$T/r.json")"
held=$(grep -o "writable again after [0-9]* s" "$T/controller.log" | head -1)
ok "space freed: run complete; database $held; nothing lost"
