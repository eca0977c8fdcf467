#!/usr/bin/env bash
# Drive health beside the results: simulated drives with health profiles
# (agent/sim_health.h: one heats up and throttles mid-step, one gains
# media errors) give the report its temperature series, throttle count,
# the outlier's named cause, the health table and a health rule that
# fails the verdict; history answers health metrics.  Real agents on a
# file (this machine's virtio disk) and, as root, a loop device record
# "unavailable" with the reason, and nothing else changes.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
"$BIN/iofleet-agent" --controller "$AGENT_EP" --simulate 6 --targets 4 \
    --health hot:3/2,erroring:5/1 >>"$T/sim.log" 2>&1 &
PIDS+=("$!")
wait_agents 6

cat >"$T/hot.fio" <<'EOF'
[iofleet]
health=no_new_media_errors,max_temp<70

[mixed]
filename=@all
ioengine=null
rw=randrw
rwmixread=70
bs=4k
iodepth=4
runtime=8
time_based
EOF
"$BIN/iofleet" plan add hot "$T/hot.fio" >/dev/null || fail "plan add"
# The run fails its verdict (the rule below): --wait exits 1 and says why.
"$BIN/iofleet" run hot --agents all --wait --json >"$T/run.json" 2>"$T/run.err" \
  && fail "run --wait exited 0 on a failed health rule"
grep -q "verdict fail: health rule (see" "$T/run.err" || fail "run --wait: $(cat "$T/run.err")"
run=$(jq -r .run "$T/run.json")
[ "$(jq -r .status "$T/run.json")" = complete ] || fail "run status $(jq -r .status "$T/run.json")"
R="$T/report.json"
# report exits 1 on a failed verdict, as run --wait does.
"$BIN/iofleet" report "$run" --format json >"$R" && fail "report exited 0 on a failed verdict"
H='.steps[0].health'
jq -e "$H | .drives_total == 24 and .reporting == 24 and .listed == \"all\"" "$R" >/dev/null \
  || fail "health summary: $(jq -c "$H | del(.drives, .temperature)" "$R")"
ok "24 of 24 simulated drives report health"

# The hot drive: its own series reaches 78 C, past its 70 C threshold;
# it entered throttling once, past 75 C, and stayed (agent/sim_health.h).
D="$H.drives[] | select(.agent == \"sim-00003\" and .target == \"/dev/sim3/d2\") | .judgement"
jq -e "$D | .hot and .temperature_max_c == 78 and .warning_temp_c == 70
         and .throttle_transitions == 1 and .throttle_seconds >= 3 and .above_warning_s > 0
         and .new_critical_warning_bits == 2" "$R" >/dev/null \
  || fail "hot drive: $(jq -c "$D" "$R")"
nthr=$(jq "$D | .throttle_transitions" "$R")
jq -e "$H.temperature | (.max_c | max) == 78 and (.mean_c | length) == (.max_c | length)
         and (.max_c | length) >= 8 and .drives[0].agent == \"sim-00003\"
         and (.drives[0].c | first) < 70 and (.drives[0].c | last) == 78" "$R" >/dev/null \
  || fail "temperature series: $(jq -c "$H.temperature" "$R")"
ok "hot drive: series $(jq -c "$H.temperature.drives[0].c" "$R"), $nthr throttle transition, $(jq "$D | .throttle_seconds" "$R") s throttled"

# The others stay cool, their write amplification is the simulator's 1.25.
jq -e "[$H.drives[] | select(.target != \"/dev/sim3/d2\") | .judgement]
       | all(.hot == false and .temperature_max_c < 45 and .waf == 1.25)" "$R" >/dev/null \
  || fail "cool drives: $(jq -c "[$H.drives[].judgement | {temperature_max_c, waf}] | unique" "$R")"
jq -e "$H.drives[] | select(.agent == \"sim-00005\" and .target == \"/dev/sim5/d1\")
       | .judgement | .media_errors_delta == 3 and (.findings | index(\"3 new media errors\"))" "$R" \
  >/dev/null || fail "erroring drive: $(jq -c "$H.drives[] | select(.agent == \"sim-00005\")" "$R")"
ok "23 cool drives at write amplification 1.25; sim-00005 d1 gained 3 media errors"

# The throttled drive is the slow one: its outlier names the cause.
jq -e ".steps[0].outliers[] | select(.agent == \"sim-00003\" and .target == \"/dev/sim3/d2\"
       and .metric == \"iops\" and .deviation_pct < -15)
       | .health_cause == \"hot: 78 C, 1 throttle transition\"" "$R" >/dev/null \
  || fail "outliers: $(jq -c '.steps[0].outliers' "$R")"
ok "outlier sim-00003 /dev/sim3/d2: $(jq -r '.steps[0].outliers[] | select(.agent == "sim-00003") | "\(.deviation_pct | floor)% IOPS, \(.health_cause)"' "$R" | head -1)"

# The health rule fails the verdict on exactly those two drives.
jq -e ".verdict == \"fail\" and ($H.rule | .pass == false and .drives_not_judged == 0
       and ([.failures[] | [.agent, .target, .condition, .why]] | sort
            == [[\"sim-00003\", \"/dev/sim3/d2\", \"max_temp<70\", \"reached 78.0 C\"],
                [\"sim-00005\", \"/dev/sim5/d1\", \"no_new_media_errors\", \"3 new media errors\"]]))" \
  "$R" >/dev/null || fail "rule: $(jq -c "{verdict, rule: $H.rule}" "$R")"
ok "health rule failed the verdict on sim-00003 d2 (78 C) and sim-00005 d1 (3 media errors)"

txt=$("$BIN/iofleet" report "$run" || true)
grep -q "OUTLIER sim-00003 /dev/sim3/d2: iops .*: hot: 78 C, 1 throttle transition" <<<"$txt" \
  || fail "text outlier line: $(grep OUTLIER <<<"$txt")"
grep -q "health: 24 of 24 drives report it; temperature max 78.0 C" <<<"$txt" \
  || fail "text health line: $(grep 'health' <<<"$txt")"
grep -q "health rule no_new_media_errors,max_temp<70: FAIL" <<<"$txt" || fail "text rule line"
ok "text report names the cause and the rule's failures"

"$BIN/iofleet" report "$run" --format html -o "$T/report.html" >/dev/null || true
[ -s "$T/report.html" ] || fail "html report"
grep -q 'Drive temperature per interval' "$T/report.html" || fail "html: no temperature chart"
grep -q 'class="health"' "$T/report.html" || fail "html: no health table"
grep -q 'hot: 78 C' "$T/report.html" || fail "html: no cause"
python3 "$(dirname "$0")/../html_check.py" report "$T/report.html" "$R" >/dev/null \
  || fail "html_check.py: the HTML's charts are not the report's"
ok "HTML: temperature chart, health table, named cause"

# History across runs: health metrics, by agent.
h=$("$BIN/iofleet" history --metric temperature.max --json)
jq -e '.unit == "C" and ([.rows[] | select(.run == '"$run"')] | length == 1 and .[0].value == 78)' \
  <<<"$h" >/dev/null || fail "history temperature.max: $h"
h=$("$BIN/iofleet" history --metric media_errors.delta --by agent --json)
jq -e '[.rows[] | select(.run == '"$run"')] | length == 6
       and (map(select(.group == "sim-00005"))[0].value == 3)
       and (map(select(.group != "sim-00005")) | all(.value == 0))' <<<"$h" >/dev/null \
  || fail "history media_errors.delta --by agent: $h"
h=$("$BIN/iofleet" history --metric waf --by health.temperature_c --json)
jq -e '.unit == "ratio" and ([.rows[] | select(.run == '"$run"') | .value] | all(. == 1.25))
       and ([.rows[] | select(.run == '"$run"') | .group] | all(test("^[0-9]+-[0-9]+ C$")))' \
  <<<"$h" >/dev/null || fail "history waf --by health.temperature_c: $h"
"$BIN/iofleet" history --metric temperature.max | grep -q '78.0 C' || fail "history text"
err=$("$BIN/iofleet" history --metric waf --by host.kernel 2>&1) && fail "--by host.kernel accepted"
grep -q "with a health metric: use agent" <<<"$err" || fail "history --by error: $err"
ok "history: temperature.max 78 C, media_errors.delta by agent, waf by temperature bucket"

# Performance grouped by a health field (match.h's health.FIELD: the
# record before the step, in buckets): every drive in one bucket or another.
"$BIN/iofleet" report "$run" --by health.temperature_c --format json >"$T/byh.json" || true
jq -e '.steps[0].groups | length >= 1 and (map(.targets) | add) == 24
       and all(.value | test("^[0-9]+-[0-9]+ C$"))' "$T/byh.json" >/dev/null \
  || fail "report --by health.temperature_c: $(jq -c '[.steps[0].groups[] | {value, targets}]' "$T/byh.json")"
h=$("$BIN/iofleet" history --metric iops --by health.percentage_used --json)
jq -e '[.rows[] | select(.run == '"$run"')] | length >= 1 and all(.group == "0-9%")' <<<"$h" >/dev/null \
  || fail "history --metric iops --by health.percentage_used: $h"
ok "report --by health.temperature_c: $(jq -c '[.steps[0].groups[] | "\(.value): \(.targets)"]' "$T/byh.json"); history iops by wear bucket"

# Real agents: a file on this machine's disk, and a loop device as root.
start_agent real
wait_agents 7
dd if=/dev/zero of="$T/real/file" bs=1M count=4 status=none
printf '[f]\nfilename=%s\nioengine=psync\nrw=read\nbs=4k\nsize=4m\n' "$T/real/file" >"$T/file.fio"
"$BIN/iofleet" plan add file "$T/file.fio" >/dev/null
run2=$("$BIN/iofleet" run file --agents real --wait --json | jq -r .run)
"$BIN/iofleet" report "$run2" --format json >"$T/r2.json"
jq -e '.steps[0] | .status == "complete" and .health.drives_total == 1
       and .health.reporting == 0 and (.health.unavailable | length == 1)
       and .health.drives[0].judgement.available == false
       and .health.drives[0].before.available == false
       and (.health.drives[0].before | keys == ["available", "reason"])' "$T/r2.json" >/dev/null \
  || fail "file target: $(jq -c '.steps[0] | {status, health}' "$T/r2.json")"
ok "file target: unavailable, $(jq -r '.steps[0].health.unavailable | keys[0]' "$T/r2.json")"
grep -q 'health before the step: 0 of 1 drive(s) report it, read in' "$T/real.log" \
  || fail "agent log has no health timing"
ok "agent: $(grep -o 'health after the step.*' "$T/real.log" | tail -1)"

if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
  truncate -s 16M "$T/loop.img"
  LOOP=$(losetup --find --show "$T/loop.img") || fail "losetup"
  AT_EXIT+=("losetup -d $LOOP")
  stop_real=$(pgrep -f -- "--name real " | head -1)
  printf '[l]\nfilename=%s\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nsize=16m\nruntime=1\ntime_based\n' \
    "$LOOP" >"$T/loop.fio"
  kill -TERM "$stop_real"
  start_agent real2 --allow "$LOOP"
  wait_agents 7
  "$BIN/iofleet" plan add loop "$T/loop.fio" >/dev/null
  run3=$("$BIN/iofleet" run loop --agents real2 --wait --json | jq -r .run)
  "$BIN/iofleet" report "$run3" --format json >"$T/r3.json"
  jq -e '.steps[0] | .status == "complete" and .health.reporting == 0
         and (.health.unavailable | keys == ["loop device: the file behind it has no SMART"])
         and .health.temperature == null and .fleet.read.ops > 0' "$T/r3.json" >/dev/null \
    || fail "loop target: $(jq -c '.steps[0] | {status, health}' "$T/r3.json")"
  ok "loop device: unavailable (loop device), $(jq .steps[0].fleet.read.ops "$T/r3.json") reads measured as before"
else
  echo "note: not root: the loop device case is skipped"
fi
