#!/usr/bin/env bash
# Live progress: `iofleet watch RUN` on a non-terminal prints plain lines
# (no bar, no carriage returns) with the step, the time left, the last
# interval's fleet IOPS and p99, the agents by state, and an agent that
# falls behind (stopped 3/4 of the time) as an OUTLIER while it happens;
# then the run's summary, and exit 0 for a complete run.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
declare -A APID
for a in w1 w2 w3 w4; do start_agent "$a"; APID[$a]=${PIDS[-1]}; done
wait_agents 4
I="$BIN/iofleet"
probe_plan p 10
run=$("$I" run p) || fail "run"
"$I" watch "$run" >"$T/summary.txt" 2>"$T/progress.txt" &
W=$!
PIDS+=("$W")
# w4 falls behind: stopped 0.6 s of every 0.8 s once the step runs (so every
# 1 s interval holds at least 0.4 s of it stopped: with 0.4 s of 0.8, one
# interval under ASan was once not told from the others, and a non-terminal
# watch prints an interval only every 5 s).
for _ in $(seq 200); do grep -q "running" "$T/progress.txt" && break; sleep 0.05; done
end=$((SECONDS + 8))
while [ $SECONDS -lt $end ]; do
  kill -STOP "${APID[w4]}"; sleep 0.6; kill -CONT "${APID[w4]}"; sleep 0.2
done
kill -CONT "${APID[w4]}"
wait "$W" || fail "watch exited $? for a complete run: $(cat "$T/progress.txt")"
grep -q $'\r' "$T/progress.txt" && fail "carriage returns in non-terminal output"
grep -q '\[#' "$T/progress.txt" && fail "a progress bar in non-terminal output"
grep -qE "^run $run step 1/1 probe: running [0-9]+/10 s, [0-9]+ s left \| interval [0-9]+: [0-9.k]+ IOPS, p99 [0-9.]+ (us|ms) \| agents 4 running" \
  "$T/progress.txt" || fail "no live line with interval IOPS and p99: $(cat "$T/progress.txt")"
grep -qE "OUTLIER w4 -[0-9]+% IOPS" "$T/progress.txt" || fail "w4 not shown as an outlier: $(cat "$T/progress.txt")"
grep -qE "OUTLIER w[123]" "$T/progress.txt" && echo "note: a healthy agent was flagged once: $(grep -oE 'OUTLIER w[123][^|]*' "$T/progress.txt" | head -3)"
grep -q "run $run complete" "$T/summary.txt" || grep -q "complete" "$T/summary.txt" || fail "no summary: $(cat "$T/summary.txt")"
n=$(grep -c "interval" "$T/progress.txt")
cat "$T/progress.txt"
ok "watch: $n live lines, w4 flagged as an outlier while it fell behind: $(grep -oE 'OUTLIER w4 -[0-9]+% IOPS' "$T/progress.txt" | head -1)"
