#!/usr/bin/env bash
# iofleet report/compare --format html: one self-contained file whose charts
# match the report JSON (tests/html_check.py counts series and points), and
# that headless Chromium renders without console errors.  Chromium is a
# dependency (scripts/install-deps): missing, this test fails, not skips.
# IOFLEET_HTML_SCREENSHOT=FILE.png keeps a 1280-wide shot of the report's top.
. "$(dirname "$0")/lib.sh"
CHECK="$(dirname "$0")/../html_check.py"
export PYTHONDONTWRITEBYTECODE=1   # nothing written into the source tree
fleet_setup
start_controller
for a in a1 a2 a3; do start_agent "$a" --label rack=r1; done
wait_agents 3

cat >"$T/html.fio" <<'PLAN'
[global]
ioengine=libaio
direct=1
filename=h.dat
size=16m
time_based
runtime=2
iofleet_sla=p99<500ms

[qd]
rw=randread
bs=4k
iodepth=1,4,16

[mix]
rw=randrw
rwmixread=70
bs=4k
iodepth=4
PLAN
"$BIN/iofleet" plan add html "$T/html.fio" >/dev/null || fail "plan add"
r1=$("$BIN/iofleet" run html --wait --json 2>/dev/null | jq -r .run) || fail "run 1"
r2=$("$BIN/iofleet" run html --wait --json 2>/dev/null | jq -r .run) || fail "run 2"

# The CLI's arguments and errors.
if "$BIN/iofleet" report "$r1" --format html 2>"$T/noout.err"; then fail "--format html without -o accepted"; fi
grep -q -- "-o FILE" "$T/noout.err" || fail "no -o: $(cat "$T/noout.err")"
if "$BIN/iofleet" report "$r1" --format html -o "$T/no/such/dir/r.html" 2>"$T/nodir.err"; then
  fail "an unwritable -o succeeded"
fi
grep -q "$T/no/such/dir/r.html.*No such file or directory" "$T/nodir.err" || fail "unwritable -o: $(cat "$T/nodir.err")"
if grep -E 'Sanitizer|runtime error' "$T/noout.err" "$T/nodir.err"; then fail "sanitizer report on an error path"; fi
ok "--format html needs -o; an unwritable file is named with the reason"

"$BIN/iofleet" report "$r1" --by agent --format json >"$T/r1.json" || fail "report json"
"$BIN/iofleet" report "$r1" --by agent --format html -o "$T/r1.html" || fail "report html exited $?"
"$BIN/iofleet" report "$r1" --format html -o - >"$T/r1-plain.html" || fail "report html to stdout"
"$BIN/iofleet" report "$r1" --format json >"$T/r1-plain.json" || fail "report json (no --by)"
"$BIN/iofleet" report "$r2" --by agent --format json >"$T/r2.json" || fail "report json run 2"
"$BIN/iofleet" compare "$r1" "$r2" --by agent --format json >"$T/rows.json" || true
"$BIN/iofleet" compare "$r1" "$r2" --by agent --format html -o "$T/cmp.html" || fail "compare html exited $?"

# The JSON agrees with the plan: 3 depths, 3 groups, 4 steps.
jq -e '[.sweeps[] | select(.group)] | length == 3 and all(.[]; (.points | length) == 3)' "$T/r1.json" >/dev/null \
  || fail "sweeps in the JSON: $(jq -c '.sweeps' "$T/r1.json")"
python3 "$CHECK" report "$T/r1.html" "$T/r1.json" >"$T/r1.check" || fail "report --by agent: see above"
python3 "$CHECK" report "$T/r1-plain.html" "$T/r1-plain.json" >"$T/r1p.check" || fail "report: see above"
python3 "$CHECK" compare "$T/cmp.html" "$T/r1.json" "$T/r2.json" "$T/rows.json" >"$T/cmp.check" \
  || fail "compare: see above"
# With --by agent every heatmap cell is against its own group (its agent):
# html_check.py matched each cell's data-group and data-median to the JSON;
# without --by, against the step's median and no cell has a group.
jq -e '[.steps[].agents[] | .agent as $a | .targets[] | .group == $a] | length > 0 and all' "$T/r1.json" >/dev/null \
  || fail "--by agent: targets without their group in the JSON"
jq -e '.heatmap_cells > 0 and .heatmap_grouped_cells == .heatmap_cells and .heatmap_groups >= 3' "$T/r1.check" >/dev/null \
  || fail "--by agent heatmap cells not grouped: $(cat "$T/r1.check")"
jq -e '.heatmap_cells > 0 and .heatmap_grouped_cells == 0' "$T/r1p.check" >/dev/null \
  || fail "heatmap without --by has grouped cells: $(cat "$T/r1p.check")"
grep -q 'vs the median of its group (--by agent)' "$T/r1.html" || fail "--by agent heatmap legend"
grep -q "vs the step&#39;s median\|vs the step's median" "$T/r1-plain.html" || fail "plain heatmap legend"
# The inventory section: each agent's inventory as it ran (its hash in
# run_inventory), one row per agent.
for a in a1 a2 a3; do
  h=$(sqlite3 -cmd ".timeout 5000" "$T/iofleet.db" "SELECT i.hash FROM run_inventory ri JOIN inventories i ON i.id = ri.inventory_id JOIN agents g ON g.id = ri.agent_id WHERE ri.run_id = $r1 AND g.name = '$a' LIMIT 1")
  [ -n "$h" ] || fail "run $r1 has no inventory of $a"
  grep -q "<td class=\"l\">$a</td>.*<code>$h</code>" "$T/r1.html" || fail "the inventory section has no row of $a with its run's inventory $h"
done
# Overlaid histograms: one chart per step and direction both runs measured
# (qd x3 read, mix read + write: 5), A and B in each.
jq -e '.histogram_charts == 5 and .histogram_bins > 10' "$T/cmp.check" >/dev/null \
  || fail "compare histograms: $(cat "$T/cmp.check")"
ok "report --by agent: $(cat "$T/r1.check")"
ok "report (fleet): $(cat "$T/r1p.check")"
ok "compare: $(cat "$T/cmp.check")"

# Render with headless Chromium: a screenshot of some substance, a DOM with
# every chart, and no console message.  Its own profile, process group and
# time limit; whatever it leaves is killed by process group id at exit.
chrome_found || fail "chromium is not installed (scripts/install-deps installs it)"
t0=$(date +%s%N)
chrome --screenshot="$T/r1.png" --window-size=1280,4000 "file://$T/r1.html" >/dev/null 2>"$T/chrome-shot.log" \
  || fail "chromium --screenshot exited $?: $(tail -3 "$T/chrome-shot.log")"
t1=$(date +%s%N)
chrome --dump-dom "file://$T/r1.html" >"$T/r1.dom" 2>"$T/chrome-dom.log" || fail "chromium --dump-dom exited $?"
chrome --dump-dom "file://$T/cmp.html" >"$T/cmp.dom" 2>"$T/chrome-cmp.log" || fail "chromium --dump-dom (compare) exited $?"
size=$(stat -c %s "$T/r1.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] || fail "screenshot is $size bytes"
for l in "$T"/chrome-*.log; do
  if grep -E 'CONSOLE|Uncaught|net::ERR|Failed to load|Refused to' "$l"; then fail "console or load errors in $l"; fi
done
for f in r1 cmp; do
  want=$(grep -o '<svg class="chart"' "$T/$f.html" | wc -l)
  got=$(grep -o '<svg class="chart"' "$T/$f.dom" | wc -l)
  [ "$want" -gt 0 ] && [ "$got" -eq "$want" ] || fail "$f: chromium's DOM has $got charts of $want"
done
ok "chromium rendered the report in $(( (t1 - t0) / 1000000 )) ms: screenshot $size bytes, every chart in the DOM, no console message"
if [ -n "${IOFLEET_HTML_SCREENSHOT:-}" ]; then
  chrome --screenshot="$IOFLEET_HTML_SCREENSHOT" --window-size=1280,1500 "file://$T/r1.html" >/dev/null 2>&1 \
    || fail "screenshot to $IOFLEET_HTML_SCREENSHOT"
  ok "screenshot kept in $IOFLEET_HTML_SCREENSHOT"
fi
