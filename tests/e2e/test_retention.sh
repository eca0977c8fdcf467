#!/usr/bin/env bash
# The retention policy, applied by the controller on its own:
# --retain-interval-runs N keeps per-interval snapshots for the newest N
# ended runs and a schedule's baseline, drops the others' (every row, no
# other run's), keeps their results, merged histograms and fleet series,
# and says what it freed in the log and in iofleet stats;
# --retain-intervals AGE waits for a run's end: a run past the age keeps
# its snapshots while another run writes.  iofleet db usage counts each
# table's rows as SQLite does.  Bad values are refused before anything
# starts.
. "$(dirname "$0")/lib.sh"
fleet_setup
I="$BIN/iofleet"
q () { sqlite3 "$T/iofleet.db" "$1"; }
snaps () { q "SELECT COUNT(*) FROM snapshots WHERE run_id = $1"; }

# --- bad values: refused, nothing written ----------------------------------
for bad in "--retain-intervals 3x" "--retain-intervals -1d" "--retain-interval-runs many" \
           "--retain-interval-runs -2"; do
  # shellcheck disable=SC2086
  if "$BIN/iofleet-controller" --no-config --db "$T/bad.db" $bad >"$T/bad.out" 2>&1; then
    fail "controller started with $bad"
  fi
  grep -qE "retain-interval(s|-runs) '[^']*': (an age|a number of runs)" "$T/bad.out" \
    || fail "message for $bad: $(cat "$T/bad.out")"
done
[ ! -e "$T/bad.db" ] || fail "a refused configuration created the database"
"$BIN/iofleet-controller" --no-config --db "$T/x.db" --listen "tcp://127.0.0.1:*" --admin "ipc://$T/x.sock" --retain-intervals 2w \
    --retain-interval-runs 20 --check-config >"$T/cc.out" 2>&1 || fail "check-config: $(cat "$T/cc.out")"
grep -qE "^retain-intervals = 2w +# --retain-intervals" "$T/cc.out" \
  && grep -qE "^retain-interval-runs = 20 +# --retain-interval-runs" "$T/cc.out" || fail "check-config: $(cat "$T/cc.out")"
ok "bad retention values refused before start; --check-config shows 2w and 20 runs"

# --- newest N runs, baselines kept ------------------------------------------
# A scheduler clock far from the schedule's 02:00: it never fires here.
CLOCK=$(date -ud '2026-12-01 10:00:00' +%s)
start_controller --interval 100ms --retain-interval-runs 1 --test-clock "$CLOCK"
start_agent agent-1
start_agent agent-2
wait_agents 2
probe_plan probe 2
"$I" run probe --wait >/dev/null 2>&1 || fail "run 1"
"$I" schedule add nightly --cron '0 2 * * *' --plan probe --baseline 1 >/dev/null \
  || fail "schedule with baseline 1"
for r in 2 3 4; do
  "$I" run probe --wait >/dev/null 2>&1 || fail "run $r"
done
for _ in $(seq 100); do
  [ "$(snaps 2)" = 0 ] && [ "$(snaps 3)" = 0 ] && break
  sleep 0.1
done
[ "$(snaps 2)" = 0 ] && [ "$(snaps 3)" = 0 ] || fail "runs 2 and 3 kept $(snaps 2) and $(snaps 3) rows"
[ "$(snaps 1)" -gt 0 ] || fail "the baseline, run 1, lost its snapshots"
[ "$(snaps 4)" -gt 0 ] || fail "the newest run, 4, lost its snapshots"
[ "$(q "SELECT group_concat(id) FROM runs WHERE intervals_dropped_at IS NOT NULL")" = "2,3" ] \
  || fail "runs marked: $(q "SELECT group_concat(id) FROM runs WHERE intervals_dropped_at IS NOT NULL")"
for r in 2 3; do
  [ "$(q "SELECT COUNT(*) FROM results WHERE run_id = $r")" -gt 0 ] || fail "run $r lost its results"
  [ "$(q "SELECT COUNT(*) FROM fleet_intervals WHERE run_id = $r")" -gt 0 ] || fail "run $r lost its fleet series"
  "$I" report "$r" --format json | jq -e '.steps[0].fleet.read.iops > 0 and .intervals_dropped_at > 0' \
    >/dev/null || fail "run $r's report after retention"
done
"$I" report 2 | grep -q "removed by the retention policy" || fail "text report of run 2 does not say why"
# What the log and stats say is what was there: each run's rows, as stored.
for r in 2 3; do
  grep -qE "retention: run $r's per-interval snapshots dropped: [0-9]+ rows" "$T/controller.log" \
    || fail "no log line for run $r: $(grep retention "$T/controller.log")"
done
logged=$(grep -oE "retention: run [23]'s per-interval snapshots dropped: [0-9]+" "$T/controller.log" \
  | awk '{ s += $NF } END { print s }')
"$I" stats --json >"$T/stats.json"
jq -e --argjson n "$logged" '.retention.policy and .retention.keep_runs == 1
    and .retention.keep_intervals_s == null and .retention.runs == 2
    and .retention.snapshot_rows == $n and .retention.bytes_freed > 0
    and .database.free_bytes >= 0' "$T/stats.json" >/dev/null \
  || fail "stats: $(jq -c .retention "$T/stats.json") (log says $logged rows)"
# Each run of the probe at 100 ms stores about 20 intervals x 2 agents.
[ "$logged" -ge 60 ] || fail "only $logged rows dropped for two runs"
"$I" stats | grep -qE "^retention: newest 1 run\(s\); 2 runs? dropped, $logged snapshot rows, [0-9.]+ MiB freed" \
  || fail "stats text: $("$I" stats | grep -i retention)"
ok "newest 1 run kept: runs 2 and 3 lost $logged snapshot rows (log = stats), the baseline run 1 and the newest run 4 kept theirs; results, fleet series and reports of 2 and 3 stay"

# iofleet db usage counts rows as COUNT(*) does.
"$I" db usage --json >"$T/usage.json" 2>/dev/null || fail "db usage"
for t in snapshots results fleet_intervals runs; do
  got=$(jq --arg t "$t" '.tables[] | select(.table == $t) | .rows' "$T/usage.json")
  [ "$got" = "$(q "SELECT COUNT(*) FROM $t")" ] || fail "db usage: $t $got rows, COUNT(*) $(q "SELECT COUNT(*) FROM $t")"
done
jq -e '(.tables | map(.bytes) | add) + .free_bytes == .bytes and .free_bytes > 0' "$T/usage.json" >/dev/null \
  || fail "db usage: the tables' bytes and the free ones do not add up to the file's: $(jq -c '{bytes, free_bytes, t: (.tables | map(.bytes) | add)}' "$T/usage.json")"
"$I" db usage 2>/dev/null | grep -qE "^snapshots +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%$" || fail "db usage text: $("$I" db usage 2>&1)"
ok "db usage: rows of snapshots, results, fleet_intervals and runs as COUNT(*); the tables and the free pages retention left add up to the file"

# --- an age: never while a run writes ---------------------------------------
stop_controller
start_controller --interval 100ms --retain-intervals 2s --test-clock "$CLOCK"
wait_agents 2
before4=$(snaps 4)
probe_plan long 5
run5=$("$I" run long) || fail "run long"
sleep 4        # run 4 ended more than 2 s ago; run 5 is writing
during=$(snaps 4)
wait_run "$run5" >/dev/null
[ "$during" = "$before4" ] || fail "run 4 had $during of its $before4 rows while run 5 wrote"
s=$("$I" runs --json | jq -r --argjson r "$run5" '.[] | select(.id == $r) | .status')
[ "$s" = complete ] || fail "run 5 ended $s"
# The drop of run 4 started only after run 5 ended.
end5=$(q "SELECT finished_at FROM runs WHERE id = $run5")
for _ in $(seq 100); do [ "$(snaps 4)" = 0 ] && break; sleep 0.1; done
[ "$(snaps 4)" = 0 ] || fail "run 4 (older than 2 s) kept its $(snaps 4) rows after run 5 ended"
marked=$(q "SELECT intervals_dropped_at FROM runs WHERE id = 4")
[ "$marked" -ge "$end5" ] || fail "run 4 was marked at $marked, before run 5 ended at $end5"
[ "$(snaps "$run5")" -gt 0 ] || fail "run 5, under 2 s old, lost its snapshots"
[ "$(snaps 1)" -gt 0 ] || fail "the baseline lost its snapshots to the age policy"
ok "2 s age: run 4's $before4 rows stayed while run 5 wrote, and went after it ended; run 5 and the baseline kept theirs"
