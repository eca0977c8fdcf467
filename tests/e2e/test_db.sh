#!/usr/bin/env bash
# iofleet db check / db backup: the integrity check passes on a live
# database; an online backup taken while a run writes snapshots is a
# consistent, checked copy holding every run finished before it; the
# backup never overwrites and needs a path the controller can write.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
start_agent agent-2
wait_agents 2
I="$BIN/iofleet"
probe_plan probe 1
"$I" run probe --wait >/dev/null 2>&1 || fail "first run"

"$I" db check >"$T/check.txt" || fail "db check: $(cat "$T/check.txt")"
grep -q "^database ok: " "$T/check.txt" || fail "db check output: $(cat "$T/check.txt")"
"$I" db check --json | jq -e '.ok == true and .problems == [] and .pages > 0' >/dev/null \
  || fail "db check --json"
ok "db check: $(cat "$T/check.txt")"

# Online: back up while a 3-second run is writing its snapshots.
probe_plan long 3
run=$("$I" run long) || fail "run long"
sleep 1.5
"$I" db backup "$T/backup.db" --json >"$T/backup.json" || fail "db backup during a run"
"$I" report "$run" --format json >/dev/null   # still answering
for _ in $(seq 100); do
  s=$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')
  [ "$s" = running ] || [ "$s" = queued ] || break
  sleep 0.1
done
[ "$s" = complete ] || fail "the run during the backup ended $s"
[ "$(sqlite3 "$T/backup.db" 'PRAGMA integrity_check')" = ok ] || fail "the backup fails integrity_check"
n=$(sqlite3 "$T/backup.db" "SELECT COUNT(*) FROM runs WHERE status = 'complete'")
[ "$n" -ge 1 ] || fail "the backup lacks the finished run"
want=$(sqlite3 "$T/iofleet.db" "SELECT COUNT(*) FROM snapshots WHERE run_id = 1")
got=$(sqlite3 "$T/backup.db" "SELECT COUNT(*) FROM snapshots WHERE run_id = 1")
[ "$got" = "$want" ] || fail "run 1 snapshots: backup $got, live $want"
[ "$(stat -c %a "$T/backup.db")" = 600 ] || fail "backup mode $(stat -c %a "$T/backup.db")"
ok "db backup during run $run: $(jq -c '{bytes, pages, ms: (.ms | round)}' "$T/backup.json"), integrity ok, run 1's $got snapshots all there, run $run completed"

if "$I" db backup "$T/backup.db" 2>"$T/again.err"; then fail "a backup overwrote a file"; fi
grep -q "exists; not overwriting" "$T/again.err" || fail "overwrite message: $(cat "$T/again.err")"
if "$I" db backup /proc/nope/x.db 2>"$T/bad.err"; then fail "a backup to /proc/nope succeeded"; fi
grep -q "backup path '/proc/nope/x.db'" "$T/bad.err" || fail "bad path message: $(cat "$T/bad.err")"
[ ! -e /proc/nope/x.db ] || true
"$I" db check >/dev/null || fail "db check after the failed backups"
ok "backups refuse to overwrite and name a path they cannot write; the controller goes on"
