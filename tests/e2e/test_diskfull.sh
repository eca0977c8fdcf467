#!/usr/bin/env bash
# A full disk under the controller's database, mid-step (root: a small
# tmpfs holds the database; skipped with 77 otherwise):
#  - the controller says plainly that it cannot write and why;
#  - reads keep answering (runs, report);
#  - the step holds past its planned end while the disk is full;
#  - the held run says why, with figures, wherever a person looks:
#    `run --wait`, `watch`, `stats`, the status JSON and the web's live
#    page show "held: the database's disk is full (N MiB needed, M MiB
#    free)" while it lasts, and nothing of it once the disk has room;
#  - once space is freed the run completes with every interval every agent
#    reported stored exactly once: nothing acknowledged was lost, nothing
#    unacknowledged was dropped (the agents kept it in their spools).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (mounts a small tmpfs)"; exit 77; fi
command -v curl >/dev/null || { echo "skip: no curl (scripts/install-deps installs it)"; exit 77; }
fleet_setup
mkdir "$T/dbfs"
mount -t tmpfs -o size=4m,mode=0700 iofleet-test-dbfs "$T/dbfs"
AT_EXIT+=("umount '$T/dbfs'")
DB="$T/dbfs/iofleet.db"
start_controller --interval 200ms --http 127.0.0.1:0
for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
W="http://127.0.0.1:$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+' "$T/controller.log" | grep -oE '[0-9]+$')"
for k in 1 2; do start_agent "f$k"; done
wait_agents 2
I="$BIN/iofleet"

# The run is followed as a person would: run --wait and watch, their
# progress lines (not a terminal: a line at each change and every 5 s)
# kept.
probe_plan p8 8
"$I" run p8 --wait >"$T/runwait.out" 2>"$T/runwait.log" &
RUNWAIT=$!
PIDS+=("$RUNWAIT")
for _ in $(seq 100); do grep -q "^run [0-9]* queued" "$T/runwait.log" && break; sleep 0.1; done
run=$(grep -m1 -oE '^run [0-9]+ queued' "$T/runwait.log" | grep -oE '[0-9]+') || fail "run p8 --wait: $(cat "$T/runwait.log")"
"$I" watch "$run" >"$T/watch.out" 2>"$T/watch.log" &
WATCH=$!
PIDS+=("$WATCH")
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

# Held, and why, with figures: the status JSON (what run --wait and watch
# poll, and the live page's /api), run --wait, watch, stats, the live page.
HELD_RE="held: the database's disk is full \([0-9]+\.[0-9] MiB needed, [0-9]+\.[0-9] MiB free\)"
# A commit that finds room (the WAL's space written again after a
# checkpoint) ends the held state until the next one fails: each check is
# given 5 s to find it held.
retry () { for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }
held_json () {
  curl -sf "$W/api/runs/$run/live" >"$T/live.json" && jq -e --arg re "^$HELD_RE\$" \
    '.held.reason == "disk_full" and .held.needed_bytes > 0 and (.held.free_bytes | type) == "number"
     and (.held.message | test($re))' "$T/live.json" >/dev/null
}
held_stats () { "$I" stats >"$T/stats.txt" && grep -qxE "$HELD_RE" "$T/stats.txt"; }
held_page () {
  curl -sf "$W/runs/$run/live" | sed "s/&#39;/'/g" >"$T/live.html" \
    && grep -qE "<dd id=\"held\">$HELD_RE</dd>" "$T/live.html"
}
held_gauge () { curl -sf "$W/metrics" | grep -qx "iofleet_store_held $1"; }
retry held_json || fail "status JSON has no held figures: $(jq -c .held "$T/live.json")"
need=$(jq .held.needed_bytes "$T/live.json")
free=$(jq .held.free_bytes "$T/live.json")
df_free=$(df --output=avail -B1 "$T/dbfs" | tail -1 | tr -d ' ')
# Free space as df tells it (a tick may have written between the two).
[ $((free - df_free)) -le 65536 ] && [ $((df_free - free)) -le 65536 ] \
  || fail "held free_bytes $free, df says $df_free"
for f in runwait watch; do
  grep -qE "$HELD_RE" "$T/$f.log" || fail "iofleet $f does not say the run is held: $(tail -2 "$T/$f.log")"
done
retry held_stats || fail "iofleet stats does not say why: $(grep -i database "$T/stats.txt")"
retry held_page \
  || fail "the live page does not say why: $(grep -o '<dl class="kv" id="live">.*</dl>' "$T/live.html")"
retry held_gauge 1 || fail "/metrics: iofleet_store_held is not 1 while full"
ok "held, said by run --wait, watch, stats and the live page: $(jq -r .held.message "$T/live.json") (needed_bytes $need, free_bytes $free, df $df_free)"

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

# Once it can write again, nothing says held: run --wait and watch end
# with the run complete (the step ends within a poll of the database's
# return, so their last progress line may be a held one: the summary
# that follows it is not), stats and the live page say nothing of it.
for p in "$RUNWAIT" "$WATCH"; do
  for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
done
wait "$RUNWAIT" || fail "run --wait exited $? for a complete run: $(tail -3 "$T/runwait.log")"
wait "$WATCH" || fail "watch exited $? for a complete run: $(tail -3 "$T/watch.log")"
for f in runwait watch; do
  grep -q "held:" "$T/$f.out" && fail "iofleet $f's summary says held: $(grep held: "$T/$f.out")"
  grep -q "^run $run step.*held:" "$T/$f.log" || fail "iofleet $f never said held"
done
"$I" stats >"$T/stats.txt"
grep -q "held:" "$T/stats.txt" && fail "iofleet stats still says held: $(grep held: "$T/stats.txt")"
curl -sf "$W/runs/$run/live" >"$T/live-end.html" || fail "GET /runs/$run/live after"
grep -q 'id="held"' "$T/live-end.html" && fail "the live page still says held"
retry held_gauge 0 || fail "/metrics: iofleet_store_held is not 0 once writable: $(grep -E 'cannot write|writable again' "$T/controller.log" | tail -2; df -h "$T/dbfs" | tail -1)"
ok "held said no more once writable: run --wait and watch exit 0; stats, the live page and /metrics without it"
