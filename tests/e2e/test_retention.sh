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
# Agents on a socket of this test's own: the controller restarts below
# take the same endpoint again (a TCP port picked at each start differed,
# and another test's controller could take the old one: the agents then
# talked to it).
LISTEN="ipc://$T/agents.sock"
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
"$I" stats | grep -qE "^retention: per-interval data kept for the newest 1 run\(s\); 2 runs? dropped, $logged snapshot rows, [0-9.]+ MiB freed" \
  || fail "stats text: $("$I" stats | grep -i retention)"
ok "newest 1 run kept: runs 2 and 3 lost $logged snapshot rows (log = stats), the baseline run 1 and the newest run 4 kept theirs; results, fleet series and reports of 2 and 3 stay"

# iofleet db usage counts rows as COUNT(*) does.
"$I" db usage --json >"$T/usage.json" 2>/dev/null || fail "db usage"
for t in snapshot_blocks results fleet_intervals runs; do
  got=$(jq --arg t "$t" '.tables[] | select(.table == $t) | .rows' "$T/usage.json")
  [ "$got" = "$(q "SELECT COUNT(*) FROM $t")" ] || fail "db usage: $t $got rows, COUNT(*) $(q "SELECT COUNT(*) FROM $t")"
done
jq -e '(.tables | map(.bytes) | add) + .free_bytes == .bytes and .free_bytes > 0' "$T/usage.json" >/dev/null \
  || fail "db usage: the tables' bytes and the free ones do not add up to the file's: $(jq -c '{bytes, free_bytes, t: (.tables | map(.bytes) | add)}' "$T/usage.json")"
"$I" db usage 2>/dev/null | grep -qE "^snapshot_blocks +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%$" || fail "db usage text: $("$I" db usage 2>&1)"
# The target-intervals the blocks hold: the rows the snapshots table reads.
[ "$(jq .snapshots.target_intervals "$T/usage.json")" = "$(q "SELECT COUNT(*) FROM snapshots")" ] \
  || fail "db usage: $(jq -c .snapshots "$T/usage.json") target-intervals, the snapshots table reads $(q "SELECT COUNT(*) FROM snapshots")"
jq -e '.snapshots.bytes_per_target_interval > 0 and .snapshots.blocks > 0' "$T/usage.json" >/dev/null \
  || fail "db usage: $(jq -c .snapshots "$T/usage.json")"
"$I" db usage 2>/dev/null | grep -qE "^per-interval data: [0-9]+ target-intervals in [0-9]+ blocks" || fail "db usage text: $("$I" db usage 2>&1)"
ok "db usage: rows of snapshot_blocks, results, fleet_intervals and runs as COUNT(*); the target-intervals in the blocks as the snapshots table reads them; the tables and the free pages retention left add up to the file"

# Imported fio results (no intervals of their own) are not runs that push
# iofleet's out of the newest N: run 4 stays the newest one after an
# import, at the look a restarted controller takes at once.
if command -v fio >/dev/null; then
  fio --name=imp --ioengine=null --size=1m --rw=randread --bs=4k --output-format=json \
      >"$T/imp.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
  "$I" import "$T/imp.json" >/dev/null || fail "import"
  stop_controller
  start_controller --interval 100ms --retain-interval-runs 1 --test-clock "$CLOCK"
  "$I" stats --json >/dev/null
  sleep 1        # 20 ticks: the look at start, and a batch, were due in the first
  [ "$(snaps 4)" -gt 0 ] || fail "an import pushed run 4 out of the newest 1 run: $(grep retention "$T/controller.log" | tail -2)"
  ok "an import after run 4 does not count as a newer run: run 4 keeps its $(snaps 4) rows"
fi

# --- an age: never while a run writes ---------------------------------------
# A short run, then at once a 5 s one: the short one passes the 2 s age
# while the long one writes, and loses its snapshots only once that ended.
stop_controller
start_controller --interval 100ms --retain-intervals 2s --test-clock "$CLOCK"
wait_agents 2
"$I" run probe --wait >/dev/null 2>&1 || fail "the short run"
ry=$("$I" runs --json | jq '[.[].id] | max')
probe_plan long 5
rl=$("$I" run long) || fail "run long"
beforey=$(snaps "$ry")
[ "$beforey" -gt 0 ] || fail "run $ry lost its snapshots before the long run"
sleep 4        # run $ry ended more than 2 s ago; run $rl is writing
during=$(snaps "$ry")
wait_run "$rl" >/dev/null
[ "$during" = "$beforey" ] || fail "run $ry had $during of its $beforey rows while run $rl wrote"
s=$("$I" runs --json | jq -r --argjson r "$rl" '.[] | select(.id == $r) | .status')
[ "$s" = complete ] || fail "run $rl ended $s"
endl=$(q "SELECT finished_at FROM runs WHERE id = $rl")
for _ in $(seq 100); do [ "$(snaps "$ry")" = 0 ] && break; sleep 0.1; done
[ "$(snaps "$ry")" = 0 ] || fail "run $ry (older than 2 s) kept its $(snaps "$ry") rows after run $rl ended"
marked=$(q "SELECT intervals_dropped_at FROM runs WHERE id = $ry")
[ "$marked" -ge "$endl" ] || fail "run $ry was marked at $marked, before run $rl ended at $endl"
[ "$(snaps "$rl")" -gt 0 ] || fail "run $rl, under 2 s old, lost its snapshots"
[ "$(snaps 1)" -gt 0 ] || fail "the baseline lost its snapshots to the age policy"
ok "2 s age: run $ry's $beforey rows stayed while run $rl wrote, and went after it ended; run $rl and the baseline kept theirs"
