#!/usr/bin/env bash
# The plans iofleet ships (plans/, plans/short/): each is accepted by
# plan add with the steps its comment promises; the short PTS IOPS plan
# runs on two agents end to end (a precondition, then rounds until the
# 4 KiB random-write IOPS is steady, at most 4), and the short write
# saturation plan writes its file exactly 4 times (loops=4, fio's random
# map) with an IOPS series over time.
. "$(dirname "$0")/lib.sh"
PLANS=$(cd "$(dirname "$0")/../../plans" && pwd)
fleet_setup
I="$BIN/iofleet"
start_controller
start_agent a1
start_agent a2
wait_agents 2

# name file steps: the steps plan show lists.
expect_steps () {
  "$I" plan add "$1" "$2" >/dev/null 2>"$T/add.err" || fail "plan add $2: $(cat "$T/add.err")"
  n=$("$I" plan show "$1" --json | jq '.steps | length')
  [ "$n" = "$3" ] || fail "$2: $n steps, want $3"
}
expect_steps qualify "$PLANS/qualify.fio" 4
expect_steps demo "$PLANS/demo.fio" 4
expect_steps qualify-hba "$PLANS/qualify-hba.fio" 78          # 36 + 36 + 6
expect_steps pts-iops "$PLANS/pts-iops.fio" 57                # precondition + 7 x 8
expect_steps pts-latency "$PLANS/pts-latency.fio" 10          # precondition + 3 x 3
expect_steps pts-throughput "$PLANS/pts-throughput.fio" 11    # precondition + 2 x 5
expect_steps pts-wsat "$PLANS/pts-wsat.fio" 1
expect_steps ab-path "$PLANS/ab-path.fio" 10                  # precondition + 3 + 2 + 4
expect_steps s-qualify-hba "$PLANS/short/qualify-hba.fio" 30
expect_steps s-pts-iops "$PLANS/short/pts-iops.fio" 10
expect_steps s-pts-latency "$PLANS/short/pts-latency.fio" 10
expect_steps s-pts-throughput "$PLANS/short/pts-throughput.fio" 7
expect_steps s-pts-wsat "$PLANS/short/pts-wsat.fio" 1
expect_steps s-ab-path "$PLANS/short/ab-path.fio" 10
# Every shipped plan is listed above.
shipped=$(cd "$PLANS" && ls ./*.fio short/*.fio | wc -l)
[ "$shipped" = 14 ] || fail "plans/ holds $shipped plans; this test checks 14: add the new one"
"$I" plan show pts-iops --json | jq -e '.steps[0] == ["precondition"] and .steps[56] == ["iops-r0-512"]
    and .steps[55] == ["iops-r0-4k"]' >/dev/null \
  || fail "pts-iops steps: $("$I" plan show pts-iops --json | jq -c '[.steps[0], .steps[55], .steps[56]]')"
ok "the 14 shipped plans parse, with the steps they promise"

out=$("$I" run s-pts-iops --wait --json 2>"$T/iops.err") || true
jq -e '.status == "complete"' <<<"$out" >/dev/null || fail "short pts-iops: $(jq -c '{status}' <<<"$out") $(cat "$T/iops.err")"
jq -e '.report.rounds | .rounds_run as $n | $n >= 3 and $n <= 4 and .rounds_max == 4
       and (.drives | length) == 2 and all(.drives[]; (.figures | length) == $n)' <<<"$out" >/dev/null \
  || fail "short pts-iops rounds: $(jq -c '.report.rounds' <<<"$out")"
jq -e '(.report.steps | length) == 1 + 9 * .report.rounds.rounds_run
       and .report.steps[0].name == "precondition"
       and ([.report.steps[1:][] | .round] | . == (. | sort))' <<<"$out" >/dev/null \
  || fail "short pts-iops steps: $(jq -c '[.report.steps[] | [.name, .round]]' <<<"$out")"
ok "short pts-iops: $(jq -r '.report.rounds | "\(.rounds_run) rounds, \(.steady) drive(s) steady, \(.not_steady) not"' <<<"$out"), verdict $(jq -r .report.verdict <<<"$out")"

# Its PTS report: each drive's cells are the mean of its figures over its
# measurement window's rounds, recomputed here from the full report.
run=$(jq -r .run <<<"$out")
"$I" report "$run" --format json >"$T/iops-full.json" || true
"$I" report "$run" --template pts --format json >"$T/pts.json" || fail "report --template pts"
python3 - "$T/iops-full.json" "$T/pts.json" <<'PY' || fail "the PTS report does not check out"
import json, sys
full = json.load(open(sys.argv[1])); q = json.load(open(sys.argv[2]))
assert q["template"] == "pts" and len(q["drives"]) == 2, q.get("drives")
tot = lambda t: sum(t[d]["iops"] for d in ("read", "write", "trim") if d in t)
steady = [d for d in q["drives"] if d["steady"]]
for d in q["drives"]:
    lo, hi = d["window"]
    assert hi - lo + 1 == 3 and 1 <= lo, d["window"]
    if d["steady"]:
        sd = [x for x in q["rounds"]["drives"] if x["agent"] == d["agent"]][0]
        assert hi == sd["steady_round"], (d, sd)
    assert len(d["cells"]) == 9, len(d["cells"])
    for c in d["cells"]:
        vals = [tot(t) for s in full["steps"] if s["name"] == c["step"] and lo <= s.get("round", 0) <= hi
                for a in s["agents"] if a["agent"] == d["agent"] for t in a["targets"] if t["target"] == d["target"]]
        want = sum(vals) / len(vals)
        assert len(vals) == 3 and abs(c["iops"] - want) <= 1e-6 * want, (d["agent"], c, vals)
# The verification (the PTS's chart): recomputed from the tracked figures
# the rounds stored: the window's mean, range, least-squares slope and its
# line's ends, the bands, each rule's verdict; a steady drive passes both.
rule = q["rounds"]["steady_state"]
for d in q["drives"]:
    v = d["verification"]
    lo, hi = d["window"]
    sd = [x for x in q["rounds"]["drives"] if x["agent"] == d["agent"] and x["target"] == d["target"]][0]
    y = sd["figures"][lo - 1:hi]
    w = len(y); m = sum(y) / w; xm = (w - 1) / 2
    slope = sum((i - xm) * (y[i] - m) for i in range(w)) / sum((i - xm) ** 2 for i in range(w))
    rng = (max(y) - min(y)) / m * 100; exc = abs(slope) * (w - 1) / m * 100
    close = lambda a, b: abs(a - b) <= 1e-9 * max(1, abs(b))
    assert v["rounds"] == list(range(lo, hi + 1)) and v["values"] == y and v["metric"] == "iops", (v, y)
    assert close(v["mean"], m) and close(v["range_pct"], rng) and close(v["excursion_pct"], exc), (v, m, rng, exc)
    assert close(v["fit"][0], m - slope * xm) and close(v["fit"][1], m + slope * xm), (v["fit"], m, slope)
    assert close(v["range_band"][0], m * (1 - rule["range_pct"] / 200)) and close(v["slope_band"][1], m * (1 + rule["slope_pct"] / 200)), v
    assert v["range_ok"] == (rng <= rule["range_pct"]) and v["slope_ok"] == (exc <= rule["slope_pct"]), v
    assert not d["steady"] or (v["range_ok"] and v["slope_ok"]), (d["steady"], v)
    # The line's ends are inside the slope band exactly when the slope rule holds.
    inside = all(v["slope_band"][0] - 1e-6 <= e <= v["slope_band"][1] + 1e-6 for e in v["fit"])
    assert inside == v["slope_ok"], (v["fit"], v["slope_band"], v["slope_ok"])
    print(f"verification {d['agent']}: mean {m:.0f} IOPS, range {rng:.1f}% ({v['range_ok']}), excursion {exc:.1f}% ({v['slope_ok']})")
pool = steady or q["drives"]
for i, c in enumerate(q["fleet"]["cells"]):
    want = sum(d["cells"][i]["iops"] for d in pool) / len(pool)
    assert c["drives"] == len(pool) and abs(c["iops"] - want) <= 1e-6 * want, (c, want)
print(f"pts: {len(steady)} steady drive(s); fleet 4k R0/W100 {[c['iops'] for c in q['fleet']['cells'] if c['step'] == 'iops-r0-4k'][0]:.0f} IOPS per drive")
PY
"$I" report "$run" --template pts >"$T/pts.txt" || fail "report --template pts (text)"
grep -q "^IOPS (all directions), per drive" "$T/pts.txt" && grep -qE "^  BS +R100/W0 +R65/W35 +R0/W100" "$T/pts.txt" \
  && grep -qE "^  a1 .* rounds [0-9]+-[0-9]+ +[0-9.k]+; range [0-9.]+% (ok|FAIL), excursion [0-9.]+% (ok|FAIL); line " "$T/pts.txt" \
  || fail "pts text: $(cat "$T/pts.txt")"
"$I" report "$run" --template pts --format html -o "$T/pts.html" || fail "report --template pts (html)"
[ "$(grep -o 'data-matrix="[a-z]*"' "$T/pts.html" | sort -u | wc -l)" = 3 ] || fail "pts html: matrices"
if chrome_found; then
  chrome --dump-dom "file://$T/pts.html" >"$T/pts.dom" 2>"$T/chrome-pts.log" || fail "chromium --dump-dom exited $?"
  if grep -E 'CONSOLE|Uncaught|net::ERR|Failed to load|Refused to' "$T/chrome-pts.log"; then fail "console or load errors"; fi
  # 3 matrices of 3 block sizes x 3 mixes: 27 cells, each a figure.
  n=$(python3 -c "import re,sys; d=open(sys.argv[1]).read(); print(sum(len(re.findall(r'<td>[0-9][^<]*</td>', t)) for t in re.findall(r'data-matrix=.*?</table>', d, re.S)))" "$T/pts.dom")
  [ "$n" -ge 27 ] || fail "chromium's DOM: $n figures in the matrices"
  # A verification chart per drive: its figures (3 rounds), its line (2
  # ends), the mean and four band lines.
  n=$(grep -o 'data-chart="pts-verify"' "$T/pts.dom" | wc -l)
  [ "$n" = 2 ] || fail "chromium's DOM: $n verification charts (want 2, a drive each)"
  if [ -n "${IOFLEET_PTS_SCREENSHOT:-}" ]; then
    chrome --screenshot="$IOFLEET_PTS_SCREENSHOT" --window-size=1280,1100 "file://$T/pts.html" >/dev/null 2>&1 \
      || fail "screenshot"
  fi
fi
ok "short pts-iops: the PTS report's matrix is each drive's mean over its window, recomputed; the page in Chromium"

out=$("$I" run s-pts-wsat --agents a1 --wait --json 2>"$T/wsat.err") \
  || fail "short pts-wsat: $(cat "$T/wsat.err")"
jq -e --argjson b $((4 * 64 << 20)) '.report.steps[0].fleet.write | .bytes == $b and .ops == $b / 4096' <<<"$out" >/dev/null \
  || fail "short pts-wsat wrote $(jq -c '.report.steps[0].fleet.write | {bytes, ops}' <<<"$out"), want 4 x 64 MiB"
run=$(jq -r .run <<<"$out")
"$I" report "$run" --format json | jq -e '(.steps[0].intervals | length) >= 1' >/dev/null \
  || fail "short pts-wsat: no IOPS series"
ok "short pts-wsat: wrote 4 x 64 MiB in 4 KiB random writes, with its series over time"
# Its PTS report is the write-saturation curve: per interval the IOPS
# per drive and the bytes written so far, ending at 4 x 64 MiB.
"$I" report "$run" --template pts --format json >"$T/wsat.json" || fail "report --template pts (wsat)"
jq -e --argjson b $((4 * 64 << 20)) '.write_saturation | length == 1 and (.[0] | .step == "wsat"
       and .drives == 1 and (.intervals | length) >= 1 and .intervals[-1].written_per_drive == $b
       and all(.intervals[]; .iops_per_drive > 0 and .p99 > 0))' "$T/wsat.json" >/dev/null \
  || fail "wsat: $(jq -c '.write_saturation[0] | {step, drives, n: (.intervals | length), last: .intervals[-1]}' "$T/wsat.json")"
"$I" report "$run" --template pts | grep -q "^write saturation: wsat on 1 drive(s)" || fail "wsat text"
"$I" report "$run" --template pts --format html -o "$T/wsat.html" || fail "wsat html"
grep -q 'data-chart="wsat-iops"' "$T/wsat.html" && grep -q 'data-chart="wsat-p99"' "$T/wsat.html" \
  || fail "wsat html: no curves"
probe_plan probe 1
run=$("$I" run probe --agents a1 --wait --json 2>/dev/null | jq -r .run)
"$I" report "$run" --template pts 2>"$T/pts-err" && fail "--template pts on a run without rounds exited 0"
grep -q "has no rounds and no write saturation step: --template pts reports" "$T/pts-err" \
  || fail "pts refusal: $(cat "$T/pts-err")"
ok "--template pts: the write-saturation curve of pts-wsat ($(jq '.write_saturation[0].intervals | length' "$T/wsat.json") intervals, 4 x 64 MiB written); a run with neither is refused, saying what to run"
