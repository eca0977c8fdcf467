#!/usr/bin/env bash
# iofleet-agent --simulate: 50 virtual agents x 24 virtual NVMe drives in
# one process run a 3 s plan on filename=@all; the report must add up
# exactly.  Its reply is past 1 MiB, so it comes gzip'd and the CLI
# inflates it (common/gz.h).  The controller decodes on two threads.
. "$(dirname "$0")/lib.sh"
K=24                    # targets an agent
fleet_setup
# Two decode threads (controller/agents/decode_pool.c; the other tests decode on
# the loop, the default): the report must add up exactly all the same.
start_controller --decode-threads 2
"$BIN/iofleet-agent" --controller "$AGENT_EP" --simulate 50 --targets "$K" \
    --spool-dir "$T/simspool" >>"$T/sim.log" 2>&1 &
SIM_PID=$!
PIDS+=("$SIM_PID")
wait_agents 50
[ "$("$BIN/iofleet" agents --json | jq '[.[] | select(.connected) | .name | select(startswith("sim-"))] | unique | length')" = 50 ] \
  || fail "not 50 distinct sim-NNNNN agents"
ok "50 simulated agents connected"

printf '[sim]\nfilename=@all\nioengine=null\nrw=randread\nbs=4k\niodepth=4\nruntime=3\ntime_based\n' >"$T/sim.fio"
"$BIN/iofleet" plan add sim "$T/sim.fio" >/dev/null || fail "plan add"
t0=$(date +%s.%N)
out=$("$BIN/iofleet" run sim --agents all --wait --json 2>"$T/run.err") \
  || { cat "$T/run.err" >&2; fail "run --wait exited non-zero"; }
t1=$(date +%s.%N)
run=$(jq -r '.run' <<<"$out")
[ "$(jq -r '.status' <<<"$out")" = complete ] || fail "run status $(jq -r .status <<<"$out")"
ok "run $run complete in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s"

"$BIN/iofleet" report "$run" --format json >"$T/report.json"
R="$T/report.json"
size=$(stat -c %s "$R")
[ "$size" -gt $((1 << 20)) ] || fail "report of $size bytes: want past 1 MiB, to come gzip'd"
jq -e '.steps[0].agents | length == 50' "$R" >/dev/null \
  || fail "report has $(jq '.steps[0].agents|length' "$R") agents"
jq -e '.steps[0].agents | all(.status == "done" and (.targets | length) == '"$K"')' "$R" >/dev/null \
  || fail "agents: $(jq -c '[.steps[0].agents[] | [.agent, .status, (.targets|length)]] | .[0:5]' "$R")"
jq -e '.steps[0].agents | all(.targets | map(.path // .target // "") | tostring | test("/dev/sim"))' "$R" >/dev/null \
  || echo "note: target paths not shown as /dev/simN/dI: $(jq -c '.steps[0].agents[0].targets[0] | keys' "$R")"
ok "50 agents x $K targets, all done"

jq -e '.steps[0] | ([.agents[].targets[].read.ops] | add) as $sum
       | $sum > 0 and .fleet.read.ops == $sum and .fleet.read.histogram_count == $sum
         and .fleet.write.ops == 0' "$R" >/dev/null \
  || fail "fleet read ops $(jq '.steps[0].fleet.read.ops' "$R") != sum of targets $(jq '[.steps[0].agents[].targets[].read.ops] | add' "$R")"
ok "fleet read ops $(jq '.steps[0].fleet.read.ops' "$R") = sum of the agents' target ops"

# Every agent's intervals are 0..N-1, none missing, all stored.
n=$(jq '.steps[0].agents[0].snapshots' "$R")
[ "$n" -ge 3 ] && [ "$n" -le 4 ] || fail "snapshots per agent: $n, want 3 (runtime 3 s / interval 1 s)"
jq -e --argjson n "$n" '.steps[0].agents | all(.snapshots == $n and .snapshots_reported == $n)' "$R" >/dev/null \
  || fail "snapshot counts $(jq -c '[.steps[0].agents[] | [.snapshots, .snapshots_reported]] | unique' "$R")"
want=$(seq 0 $((n - 1)) | paste -sd,)
got=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(c, ',') FROM (SELECT COUNT(DISTINCT agent_id || '/' || target) c FROM snapshots WHERE run_id = $run AND step_idx = 0 GROUP BY seq ORDER BY seq)")
[ "$got" = "$(for _ in $(seq "$n"); do echo $((50 * K)); done | paste -sd,)" ] \
  || fail "per-interval (agent, target) rows $got, want $((50 * K)) in each of $n"
seqs=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(seq, ',') FROM (SELECT DISTINCT seq FROM snapshots WHERE run_id = $run AND step_idx = 0 ORDER BY seq)")
[ "$seqs" = "$want" ] || fail "intervals $seqs, want $want"
jq -e --argjson n "$n" '.steps[0].intervals | length == $n and all(.agents == 50 and .read.histogram_count == .read.ops)' "$R" >/dev/null \
  || fail "report intervals: $(jq -c '[.steps[0].intervals[] | [.seq, .agents, .read.ops]]' "$R")"
ok "every agent has intervals $want, none missing"

p50=$(jq '.steps[0].fleet.read.percentiles.p50' "$R")
awk -v p="$p50" 'BEGIN { exit !(p > 40000 && p < 120000) }' \
  || fail "fleet p50 $p50 ns, want 80 us +-50%"
ok "fleet p50 $p50 ns (synthetic median 80000 ns), p99 $(jq '.steps[0].fleet.read.percentiles.p99' "$R") ns"

# The fleet series kept at ingest (fleet_intervals) is the snapshots' sum,
# and the report built from it equals the one computed from the snapshots.
check_fleet_intervals "$run"
jq -S '.steps[0].intervals' "$R" >"$T/iv.rows"
sqlite3 "$T/iofleet.db" "DELETE FROM fleet_intervals WHERE run_id = $run"
"$BIN/iofleet" report "$run" --format json | jq -S '.steps[0].intervals' >"$T/iv.scan"
cmp -s "$T/iv.rows" "$T/iv.scan" || fail "intervals from fleet_intervals differ from the snapshots': $(diff "$T/iv.rows" "$T/iv.scan" | head -5)"
ok "fleet_intervals: $n rows = the snapshots per interval; the report is the same either way"

# iofleet stats: every stored snapshot counted, with its ingest lag.
S=$("$BIN/iofleet" stats --json)
jq -e --argjson n "$n" '.ingest.snapshots == 50 * $n and .ingest.target_snapshots == '"$((50 * K))"' * $n
       and .ingest.lag.count == .ingest.snapshots and .ingest.lag.p99_ms > 0
       and .ingest.lag.max_ms >= .ingest.lag.p99_ms and .agents.connected == 50
       and .process.rss_kib > 0 and .database.bytes > 0' <<<"$S" >/dev/null \
  || fail "stats: $(jq -c '{agents, ingest: (.ingest | {snapshots, target_snapshots, lag})}' <<<"$S")"
"$BIN/iofleet" stats | grep -q "^ingest: $((50 * n)) snapshots stored ($((50 * K * n)) target rows)" \
  || fail "stats text: $("$BIN/iofleet" stats | head -3)"
ok "stats: $((50 * n)) snapshots, lag p50 $(jq .ingest.lag.p50_ms <<<"$S") ms p99 $(jq .ingest.lag.p99_ms <<<"$S") ms"

kill -0 "$SIM_PID" || fail "simulator died"
kill -TERM "$SIM_PID"
wait "$SIM_PID" || fail "simulator exited with $? on SIGTERM"
grep 'agents welcomed' "$T/sim.log" | tail -n 1
ok "simulator stopped cleanly"
