#!/usr/bin/env bash
# [iofleet] rounds= and steady_state= end to end (root only: loop devices
# and a blkio/io cgroup throttle).  Two agents, each on a loop device of
# its own, run a plan of 1 s random reads capped at 400 IOPS (rate_iops)
# as rounds, steady state tracked on the reads' IOPS over windows of 3:
#  - agent "steady" reads at its cap every round and is steady at round 3;
#  - agent "shaky" is in a cgroup whose read-IOPS throttle the test turns
#    on (100) in even rounds and off in odd ones, between rounds, watching
#    the controller's status: it never becomes steady, so the rounds run
#    to rounds=6, the report names it NOT STEADY and the verdict fails
#    (during round 2 it reads "pending");
#  - each drive's stored figures are the reads' IOPS of its round's step
#    in the report, and the rule recomputed from them here (max - min and
#    the least-squares line over each window, python) finds the same first
#    steady round the controller stored;
#  - on "steady" alone the rounds end at round 3, when every drive is
#    steady, and the verdict passes, though the controller is killed
#    (kill -9) during round 2 and started again; the HTML report has the
#    section, and Chromium renders its chart;
#  - iofleet-agent run refuses the plan (rounds need a controller).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs loop devices and a cgroup)"
  exit 77
fi
fleet_setup
I="$BIN/iofleet"
for d in a b; do truncate -s 32M "$T/$d.img"; done
LA=$(losetup --direct-io=on -f --show "$T/a.img")
AT_EXIT+=("losetup -d $LA")
LB=$(losetup --direct-io=on -f --show "$T/b.img")
AT_EXIT+=("losetup -d $LB")
read_throttle_cgroup iofleet-rounds "$LB"

# An ipc endpoint, so that the controller restarted below finds it free.
LISTEN="ipc://$T/agents.sock" start_controller
start_agent steady --allow "$LA"
start_agent shaky --allow "$LB"
echo "${PIDS[-1]}" >"$CG/cgroup.procs"
wait_agents 2

cat >"$T/rounds.fio" <<EOF2
[iofleet]
rounds=6
steady_state=reads:iops,window=3,range=20%,slope=10%

[reads]
ioengine=libaio
direct=1
filename=@loop
rw=randread
bs=4k
iodepth=4
rate_iops=400
runtime=1
time_based
EOF2
"$I" plan add rounds "$T/rounds.fio" >/dev/null || fail "plan add"

# The throttle follows the round in hand: on in even rounds, off in odd.
run=$("$I" run rounds) || fail "run rounds"
(
  last=""
  while :; do
    s=$("$TOOLS/admin_peer" "$IOFLEET_CONTROLLER" "{\"cmd\":\"status\",\"run\":$run}" 2>/dev/null || true)
    st=$(jq -r '.result.status // empty' <<<"$s" 2>/dev/null || true)
    case "$st" in complete|partial|failed|cancelled) break ;; esac
    r=$(jq -r '.result.round // empty' <<<"$s" 2>/dev/null || true)
    if [ -n "$r" ] && [ "$r" != "$last" ]; then
      if [ $((r % 2)) = 0 ]; then set_read_throttle 100; else set_read_throttle 0; fi
      echo "round $r: throttle $([ $((r % 2)) = 0 ] && echo 100 || echo off)" >>"$T/throttle.log"
      # Mid-run, with no drive steady yet, the verdict is not "pass".
      [ "$r" = 2 ] && { "$I" report "$run" --format json 2>/dev/null | jq -r .verdict >"$T/mid.verdict" || true; }
      last=$r
    fi
    sleep 0.05
  done
) &
PIDS+=("$!")
status=$(wait_run "$run")
[ "$status" = complete ] || fail "run 1 status $status"
"$I" report "$run" --format json >"$T/r1.json" && fail "report --format json exited 0 on a failed verdict"
[ "$(cat "$T/mid.verdict" 2>/dev/null)" = pending ] || fail "verdict during round 2: $(cat "$T/mid.verdict" 2>/dev/null), want pending"
jq -e '.verdict == "fail"' "$T/r1.json" >/dev/null || fail "verdict $(jq -r .verdict "$T/r1.json") with a drive never steady: $(jq -c .rounds "$T/r1.json"); throttle: $(cat "$T/throttle.log" 2>/dev/null)"
"$I" report "$run" >"$T/r1.txt" && fail "report exited 0 on a failed verdict"
jq -e '.rounds.rounds_run == 6 and .rounds.rounds_max == 6 and .rounds.steady == 1
       and .rounds.not_steady == 1' "$T/r1.json" >/dev/null \
  || fail "rounds: $(jq -c '.rounds | {rounds_run, rounds_max, steady, not_steady}' "$T/r1.json")"
jq -e '[.steps[] | .round] == [1, 2, 3, 4, 5, 6]' "$T/r1.json" >/dev/null \
  || fail "steps' rounds: $(jq -c '[.steps[] | .round]' "$T/r1.json")"
jq -e '.rounds.drives | map(select(.agent == "steady"))[0] | .steady and .steady_round == 3
       and .window.rounds == [1, 3]' "$T/r1.json" >/dev/null \
  || fail "steady drive: $(jq -c '.rounds.drives[] | select(.agent == "steady")' "$T/r1.json")"
jq -e '.rounds.drives | map(select(.agent == "shaky"))[0] | (.steady | not) and .steady_round == null
       and (.figures | length) == 6' "$T/r1.json" >/dev/null \
  || fail "shaky drive: $(jq -c '.rounds.drives[] | select(.agent == "shaky")' "$T/r1.json")"
grep -qE '^  shaky .*NOT STEADY' "$T/r1.txt" || fail "the text report does not name shaky: $(grep -A6 '^rounds' "$T/r1.txt")"
grep -q 'verdict (SLA and steady state): fail' "$T/r1.txt" || fail "text verdict"
ok "6 rounds: steady at round 3 ($(jq -c '.rounds.drives[] | select(.agent == "steady") | .figures' "$T/r1.json")), shaky never ($(jq -c '.rounds.drives[] | select(.agent == "shaky") | .figures' "$T/r1.json")); verdict fail"

# Each stored figure is the drive's reads IOPS in its round's step.
jq -e '[.rounds.drives[] as $d | .steps[] | .round as $r | .agents[] | select(.agent == $d.agent)
        | .targets[] | select(.target == $d.target) | ((.read.iops - $d.figures[$r - 1]) | fabs) < 1e-6]
       | length == 12 and all' "$T/r1.json" >/dev/null \
  || fail "figures vs the steps' IOPS: $(jq -c '[.steps[] | {round, t: [.agents[] | {agent, iops: [.targets[] | .read.iops]}]}]' "$T/r1.json")"
ok "the stored figures are the reads IOPS of each round's step, per drive"

# The rule recomputed from the stored figures agrees with the verdicts.
python3 - "$T/r1.json" <<'PY' || fail "recomputed steady rounds differ"
import json, sys
rep = json.load(open(sys.argv[1]))
rule = rep["rounds"]["steady_state"]
W, R, S = rule["window"], rule["range_pct"], rule["slope_pct"]
for d in rep["rounds"]["drives"]:
    y = d["figures"]
    first = None
    for end in range(W, len(y) + 1):
        w = y[end - W:end]
        if any(v is None for v in w):
            continue
        m = sum(w) / W
        xm = (W - 1) / 2
        slope = sum((i - xm) * (v - m) for i, v in enumerate(w)) / sum((i - xm) ** 2 for i in range(W))
        if m > 0 and (max(w) - min(w)) / m * 100 <= R and abs(slope) * (W - 1) / m * 100 <= S:
            first = end
            break
    if first != d["steady_round"]:
        print(f"{d['agent']} {d['target']}: recomputed {first}, stored {d['steady_round']} from {y}")
        sys.exit(1)
    print(f"{d['agent']}: figures {[round(v) for v in y]}, steady at {first}")
PY
ok "the PTS rule recomputed from the stored figures gives the stored steady rounds"

# All steady: the rounds end early, across a controller killed (kill -9)
# while round 2 runs and started again on the same database.
run2=$("$I" run rounds --agents steady) || fail "run on steady alone"
for _ in $(seq 200); do
  [ "$(sqlite3 "$T/iofleet.db" "SELECT status FROM steps WHERE run_id = $run2 AND round = 2" 2>/dev/null)" = running ] && break
  sleep 0.05
done
sleep 0.5
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
killed_at=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(round || ':' || status) FROM (SELECT round, status FROM steps WHERE run_id = $run2 ORDER BY idx)")
LISTEN=$AGENT_EP start_controller
status=$(wait_run "$run2")
[ "$status" = complete ] || fail "run 2 after the restart: $status"
"$I" report "$run2" --format json >"$T/r2.json" || fail "run 2: report exited non-zero (verdict $(jq -r .verdict "$T/r2.json"))"
jq -e '.verdict == "pass" and .rounds.rounds_run == 3 and .rounds.steady == 1 and .rounds.not_steady == 0
       and .rounds.drives[0].steady_round == 3 and (.rounds.drives[0].figures | length) == 3
       and [.steps[] | .round] == [1, 2, 3] and all(.steps[]; .status == "complete")' "$T/r2.json" >/dev/null \
  || fail "run 2: $(jq -c '{verdict, rounds: (.rounds | {rounds_run, steady, not_steady, d: .drives[0] | {figures, steady_round}}), steps: [.steps[] | [.round, .status]]}' "$T/r2.json")"
grep -q "round 3: every drive measured is steady: the rounds end" "$T/controller.log" \
  || fail "the controller did not log why the rounds ended"
ok "every drive steady at round 3: the rounds end (3 of at most 6), verdict pass, across a controller killed at ($killed_at)"

"$I" report "$run" --format html --output "$T/r1.html" >/dev/null 2>&1 || true
grep -q 'id="rounds"' "$T/r1.html" && grep -q 'data-chart="rounds"' "$T/r1.html" \
  || fail "the HTML report has no rounds section"
if chrome_found; then
  chrome --dump-dom "file://$T/r1.html" >"$T/r1.dom" 2>"$T/chrome-dom.log" || fail "chromium --dump-dom exited $?"
  if grep -E 'CONSOLE|Uncaught|net::ERR|Failed to load|Refused to' "$T/chrome-dom.log"; then fail "console or load errors"; fi
  pts () { python3 -c "import re,sys; d=open(sys.argv[1]).read(); m=re.search(r'data-chart=\"rounds\".*?</svg>', d, re.S); print(len(re.findall(r'<g class=\"series\"', m.group(0))), len(re.findall(r'<title>[^<]* round [0-9]+: ', m.group(0)))) if m else print(0, 0)" "$1"; }
  [ "$(pts "$T/r1.dom")" = "2 12" ] && [ "$(pts "$T/r1.html")" = "2 12" ] \
    || fail "the rounds chart: $(pts "$T/r1.html") series and points written, $(pts "$T/r1.dom") in chromium's DOM; want 2 drives x 6 rounds"
  if [ -n "${IOFLEET_ROUNDS_SCREENSHOT:-}" ]; then
    chrome --screenshot="$IOFLEET_ROUNDS_SCREENSHOT" --window-size=1280,1400 "file://$T/r1.html" >/dev/null 2>&1 \
      || fail "screenshot"
  fi
fi
ok "HTML: the rounds section and its chart (2 drives x 6 rounds in chromium's DOM)"

"$BIN/iofleet-agent" run "$T/rounds.fio" >"$T/local.out" 2>"$T/local.err" && fail "local run exited 0"
grep -q "rounds= and steady_state= run only through a controller" "$T/local.err" \
  || fail "local run: $(cat "$T/local.err")"
ok "iofleet-agent run refuses the plan: $(head -c 120 "$T/local.err")"
