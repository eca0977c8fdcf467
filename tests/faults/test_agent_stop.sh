#!/usr/bin/env bash
# Fault: an agent's process stopped (SIGSTOP) mid-step past --lost-after,
# then continued (SIGCONT).  A stopped agent issues nothing; its intervals
# go on, empty, and a rate-limited job then catches up its quota above
# pace (fio's rate does the same: measured, fio 3.33 stopped 6 s under
# rate_iops=2000 logs 14,039 IOPS in the second after).  Asserts:
#  - nothing measured is lost: every interval of every agent stored once,
#    and the stopped agent's I/O adds up to its rate over the whole step;
#  - the report names it where the figures are: the step's "gaps" hold a
#    stalled span for the agent (its seconds, "none issued", the catch-up
#    after it) and the silence the controller saw; the agent's row its
#    message, gaps and measured window; the series' intervals list it in
#    stalled_agents and above_pace_agents; the text and HTML reports say it;
#  - the run's status follows: partial; with --tolerate-gaps complete, the
#    gap still named.
# (The other agents may show an above_pace span of their own: a worker
# starved of CPU on a loaded host catches up too, and that is reported.)
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --lost-after 3s
declare -A APID
for k in 1 2 3; do start_agent "agent-$k"; APID[agent-$k]=${PIDS[-1]}; done
wait_agents 3
I="$BIN/iofleet"
RATE=500 SECS=14

# stall RUN: stops agent-3 two seconds into the run's step until the
# controller has marked it lost, and 2 s more, then continues it.
stall () {
  local pid=${APID[agent-3]} n0
  n0=$(grep -c "agent 'agent-3' lost during step" "$T/controller.log" || true)
  for _ in $(seq 100); do
    "$I" report "$1" --format json 2>/dev/null | jq -e '.steps[0].status == "running"' >/dev/null && break
    sleep 0.1
  done
  sleep 2
  kill -STOP "$pid"
  AT_EXIT+=("kill -CONT $pid 2>/dev/null")
  for _ in $(seq 100); do
    [ "$(grep -c "agent 'agent-3' lost during step" "$T/controller.log" || true)" -gt "$n0" ] && break
    sleep 0.1
  done
  [ "$(grep -c "agent 'agent-3' lost during step" "$T/controller.log" || true)" -gt "$n0" ] \
    || { kill -CONT "$pid"; fail "a stopped agent was not marked lost"; }
  sleep 2
  kill -CONT "$pid"
}

# checks RUN STATUS: what every run with a stall must show.
checks () {
  local run=$1 want=$2 got
  got=$(wait_run "$run")
  "$I" report "$run" --format json >"$T/r$run.json"
  [ "$got" = "$want" ] || fail "run $run: $got, not $want: $(jq -c '[.steps[0].agents[] | {agent, status, message}]' "$T/r$run.json")"
  STORED=$(nothing_lost "$run" "$T/r$run.json")
  jq -e --argjson n $((SECS - 1)) '[.steps[0].agents[].snapshots_reported] | length == 3 and all(. >= $n)' \
    "$T/r$run.json" >/dev/null \
    || fail "intervals reported: $(jq -c '[.steps[0].agents[] | {agent, snapshots_reported}]' "$T/r$run.json")"
  # Nothing lost: the stopped agent's quota was caught up (within 2%).
  jq -e --argjson want $((RATE * SECS)) '.steps[0].agents[] | select(.agent == "agent-3")
      | [.targets[].read.ops] | add | . >= $want * 0.98 and . <= $want * 1.02' "$T/r$run.json" >/dev/null \
    || fail "agent-3's reads: $(jq -c '[.steps[0].agents[] | select(.agent == "agent-3") | .targets[].read.ops]' "$T/r$run.json"), not ~$((RATE * SECS))"
  jq -e '.steps[0] as $s
    | ($s.gaps | map(select(.agent == "agent-3" and .cause == "stalled")) | length == 1)
    and ($s.gaps[] | select(.cause == "stalled")
         | .seconds >= 3 and .seconds <= 12 and (.io | test("none issued"))
           and .to_interval >= .from_interval and .from_interval >= 1 and (.caught_up.from_interval >= .to_interval))
    and ($s.gaps | map(select(.agent == "agent-3" and .cause == "silent")) | length == 1)
    and ($s.gaps | map(select(.agent != "agent-3" and .cause != "above_pace")) == [])
    and ($s.agents[] | select(.agent == "agent-3") | .status == "done" and (.gaps | length) >= 1
         and .measured_window.stalled_intervals >= 3 and .measured_window.above_pace_intervals >= 1)
    and ([$s.intervals[] | select((.stalled_agents // []) | index("agent-3"))] | length >= 3)
    and ([$s.intervals[] | select((.above_pace_agents // []) | index("agent-3"))] | length >= 1)
    and ([$s.intervals[] | select((.stalled_agents // []) | map(select(. != "agent-3")) | length > 0)] == [])' \
    "$T/r$run.json" >/dev/null || fail "run $run's gaps: $(jq -c '.steps[0] | {gaps, a3: (.agents[] | select(.agent == "agent-3") | {status, message, measured_window})}' "$T/r$run.json")"
  "$I" report "$run" >"$T/r$run.txt"
  grep -q "agent-3 .*GAP stalled, intervals" "$T/r$run.txt" || fail "the text report of run $run does not name the stall: $(cat "$T/r$run.txt")"
  "$I" report "$run" --format html -o "$T/r$run.html" || fail "report $run --format html"
  python3 "$(dirname "$0")/../html_check.py" report "$T/r$run.html" "$T/r$run.json" >/dev/null \
    || fail "the HTML report of run $run does not match its JSON"
  grep -q "<b>agent-3</b> gap, stalled, intervals" "$T/r$run.html" \
    || fail "the HTML report of run $run does not name the stall"
}

probe_plan stall "$SECS" "rate_iops=$RATE"
run=$("$I" run stall) || fail "run stall"
stall "$run"
checks "$run" partial
jq -e '.steps[0].agents[] | select(.agent == "agent-3") | .message | test("stopped for")' "$T/r$run.json" >/dev/null \
  || fail "agent-3's message: $(jq -c '.steps[0].agents[] | select(.agent == "agent-3") | .message' "$T/r$run.json")"
ok "agent-3 stopped past --lost-after and continued: run partial; $(jq -r '.steps[0].gaps[] | select(.cause == "stalled") | "stalled intervals \(.from_interval)-\(.to_interval) (\(.seconds | . * 10 | round / 10) s), caught up in \(.caught_up.from_interval)-\(.caught_up.to_interval)"' "$T/r$run.json"); intervals stored (each once) $STORED"

run=$("$I" run stall --tolerate-gaps) || fail "run stall --tolerate-gaps"
stall "$run"
checks "$run" complete
jq -e '.tolerate_gaps == true' "$T/r$run.json" >/dev/null || fail "the report does not say --tolerate-gaps"
ok "the same with --tolerate-gaps: run complete, the gap still named"
