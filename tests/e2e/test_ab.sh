#!/usr/bin/env bash
# compare --template ab (the backplane A/B report's shape), root only: two
# agents, each on a loop device of its own, run one plan at once; agent
# "expander" sits in a blkio/io cgroup that caps its device at 50 read
# IOPS and 200 write IOPS (the slow path), agent "onboard" does not:
#  - compare RUN --a agent=onboard --b agent=expander --template ab: every
#    read test's IOPS and bandwidth are down and significant, p99 is up,
#    each read test's conclusion is "B worse", and the overall one names
#    the largest drop; the JSON's deltas are compare's own rows;
#  - the same side against itself: no significant difference;
#  - the text has the table and the conclusion;
#  - the page (--format html): throughput against block size from the
#    tests' own A and B, the write-saturation series of each side (its
#    report's intervals, per drive) overlaid, rendered by Chromium.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs loop devices and a cgroup)"
  exit 77
fi
fleet_setup
I="$BIN/iofleet"
for d in a b; do truncate -s 64M "$T/$d.img"; done
LA=$(losetup --direct-io=on -f --show "$T/a.img")
AT_EXIT+=("losetup -d $LA")
LB=$(losetup --direct-io=on -f --show "$T/b.img")
AT_EXIT+=("losetup -d $LB")
read_throttle_cgroup iofleet-ab "$LB"
# 50 reads a second: blk-throttle lets a slice's budget through at once
# (5 reads of a 100 ms slice, 1 of a 20 ms one) and holds the rest, so
# with 4 in flight most reads wait and B's median is slower too.  At 300
# (30 a slice) most reads of each slice passed at once, faster than the
# saturated side's: B's p50 beat A's in about half the runs here, a
# "mixed" conclusion that was the throttle's shape, not a slower path.
set_read_throttle 50
set_throttle wiops 200   # the write-saturation test: 512 writes take B 2.6 s

start_controller
start_agent onboard --allow "$LA" --allow-write "$LA"
start_agent expander --allow "$LB" --allow-write "$LB"
echo "${PIDS[-1]}" >"$CG/cgroup.procs"
wait_agents 2
cat >"$T/ab.fio" <<EOF2
[global]
ioengine=libaio
direct=1
filename=@loop
stonewall

[rand-4k]
rw=randread
bs=4k
iodepth=4
runtime=4
time_based

[seq-4k]
rw=read
bs=4k
iodepth=4
runtime=2
time_based

[seq-128k]
rw=read
bs=128k
iodepth=4
runtime=4
time_based

[wsat]
rw=randwrite
bs=4k
iodepth=4
size=2m
EOF2
"$I" plan add ab "$T/ab.fio" >/dev/null || fail "plan add"
run=$("$I" run ab --wait --json 2>"$T/run.err" | jq -r .run) || fail "run: $(cat "$T/run.err")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template ab --format json >"$T/ab.json" \
  || fail "compare --template ab exited $?: $(head -c 300 "$T/ab.json")"
jq -e '.ab.tests | length == 4 and (map(select(.step != "wsat")) | length == 3 and all(.[];
         .conclusion == "B worse" and .iops.delta_pct < -20 and .iops.significant == true
         and .bw.delta_pct < -20 and .bw.significant == true and .p99.delta_pct > 0))' "$T/ab.json" >/dev/null \
  || { jq -c '{ab, rows: [.compare.rows[] | [.step, .group, .metric, .delta_pct, .significant]]}' "$T/ab.json" >&2; fail "ab tests"; }
jq -e '.ab.conclusion | .tests == 4 and .b_worse >= 3 and (.summary | test("^B is worse than A beyond 5% in [34] of 4 test"))' "$T/ab.json" >/dev/null \
  || fail "ab conclusion: $(jq -c .ab.conclusion "$T/ab.json")"
# The template's deltas are compare's rows, not figures of its own.
jq -e '[.compare.rows[] as $r | .ab.tests[] | select(.step == $r.step) | to_entries[]
        | select(.value | type == "object") | select(.value.metric == $r.metric)
        | .value.delta_pct == $r.delta_pct] | length >= 8 and all' "$T/ab.json" >/dev/null \
  || fail "ab deltas are not compare's rows"
ok "the throttled side: $(jq -r '.ab.tests[] | "\(.step) IOPS \(.iops.delta_pct | floor)% p99 +\(.p99.delta_pct | floor)%"' "$T/ab.json" | paste -sd ';' -); $(jq -r .ab.conclusion.summary "$T/ab.json")"

"$I" compare "$run" --a agent=onboard --b agent=onboard --template ab --format json >"$T/same.json" \
  || fail "compare a side with itself"
# Against itself nothing changed: the 4-interval tests are "no significant
# difference"; seq-4k (2 intervals) and wsat (A's 1) are too short to say
# so (compare.c: "false" needs 4 intervals a side) and say "not judged",
# with the reason, rather than pass as "same".
jq -e '.ab.conclusion | .same == 2 and .not_judged == 2 and .b_worse == 0 and .b_better == 0
         and .mixed == 0 and (.summary | test("^no significant difference beyond 5% in 2 of the 4 test\\(s\\); 2 not judged"))' "$T/same.json" >/dev/null \
  && jq -e '[.ab.tests[] | select(.conclusion == "not judged") | .step] == ["seq-4k", "wsat"]
         and ([.ab.tests[] | select(.step == "seq-4k") | .iops.judged, (.iops.significance_note | test("^too few intervals to judge \\(A 2, B 2\\)"))] == ["not judged", true])' "$T/same.json" >/dev/null \
  || fail "itself: $(jq -c '{c: .ab.conclusion, t: [.ab.tests[] | {step, conclusion, iops}]}' "$T/same.json")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template ab >"$T/ab.txt" || fail "text"
grep -qE "^  rand-4k .* B worse$" "$T/ab.txt" && grep -q "^conclusion at 5%: B is worse than A" "$T/ab.txt" \
  && grep -q "^  rule: per test: .B worse. when a figure" "$T/ab.txt" \
  || fail "text: $(cat "$T/ab.txt")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template pts 2>"$T/e1" && fail "--template pts accepted by compare"
grep -q "use ab" "$T/e1" || fail "template refusal: $(cat "$T/e1")"
ok "a side against itself: no significant difference; the text table; refusals"

# The charts' figures: throughput against block size (the sequential reads
# at 4k and 128k, one kind) are the tests' own A and B; the write
# saturation series of each side is that side's report's (--where), interval
# by interval, per drive.
"$I" report "$run" --where agent=onboard --format json >"$T/ra.json" || fail "report A"
"$I" report "$run" --where agent=expander --format json >"$T/rb.json" || fail "report B"
python3 - "$T/ab.json" "$T/ra.json" "$T/rb.json" <<'PY' || fail "the A/B charts' figures do not check out"
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]; ra = json.load(open(sys.argv[2])); rb = json.load(open(sys.argv[3]))
tests = {t["step"]: t for t in ab["tests"]}
fams = ab["by_bs"]
assert len(fams) == 1 and fams[0]["rw"] == "read", fams
pts = fams[0]["points"]
assert [p["bs"] for p in pts] == [4096, 131072] and [p["step"] for p in pts] == ["seq-4k", "seq-128k"], pts
for p in pts:
    for fig in ("iops", "bw"):
        assert p[fig] == tests[p["step"]][fig], (p, tests[p["step"]])
ws = ab["write_saturation"]
assert len(ws) == 1 and ws[0]["step"] == "wsat", ws
for side, rep in (("a", ra), ("b", rb)):
    s = [x for x in rep["steps"] if x["name"] == "wsat"][0]
    got = ws[0][side]
    want = [iv["write"]["iops"] for iv in s["intervals"]]
    assert got["drives"] == 1 and len(got["intervals"]) == len(want) >= 1, (got, want)
    assert [p["iops_per_drive"] for p in got["intervals"]] == want, (got, want)
    assert got["intervals"][0]["t_s"] == 0, got
print(f"by block size: {[(p['bs'], p['bw']['delta_pct']) for p in pts]}; wsat intervals A {len(ws[0]['a']['intervals'])}, B {len(ws[0]['b']['intervals'])}")
PY
"$I" compare "$run" --a agent=onboard --b agent=expander --template ab --format html -o "$T/ab.html" \
  || fail "compare --template ab --format html"
for id in conclusion tests by-bs wsat; do
  grep -q "<section id=\"$id\">" "$T/ab.html" || fail "the A/B page has no $id section"
done
if chrome_found; then
  chrome --dump-dom "file://$T/ab.html" >"$T/ab.dom" 2>"$T/chrome-ab.log" || fail "chromium --dump-dom exited $?"
  if grep -E 'CONSOLE|Uncaught|net::ERR|Failed to load|Refused to' "$T/chrome-ab.log"; then fail "console or load errors"; fi
  for kind in ab-bs-bw ab-bs-iops wsat-iops wsat-p99; do
    n=$(grep -o "data-chart=\"$kind\"" "$T/ab.dom" | wc -l)
    s=$(python3 -c "import re,sys; d=open(sys.argv[1]).read(); m=re.search(r'data-chart=\"$kind\".*?</svg>', d, re.S); print(len(re.findall(r'class=\"series\"', m.group(0))) if m else 0)" "$T/ab.dom")
    [ "$n" = 1 ] && [ "$s" = 2 ] || fail "chromium's DOM: chart $kind $n time(s), $s series (want 1, 2: A and B)"
  done
  if [ -n "${IOFLEET_AB_SCREENSHOT:-}" ]; then
    chrome --screenshot="$IOFLEET_AB_SCREENSHOT" --window-size=1280,1500 "file://$T/ab.html" >/dev/null 2>&1 \
      || fail "screenshot"
  fi
fi
ok "the A/B page: the conclusion, the tests, throughput against block size and the write saturation of A and B overlaid"
