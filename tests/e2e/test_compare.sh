#!/usr/bin/env bash
# iofleet compare: the same plan twice on the same targets shows no
# significant change in IOPS; a run capped at a tenth of the rate (another
# plan: refused until its steps are mapped) shows a significant regression,
# with the right sign, and fails the gate.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
start_agent agent-2
wait_agents 2
probe_plan base 4 rate_iops=500
probe_plan slow 4 rate_iops=50
a=$("$BIN/iofleet" run base --wait --json 2>/dev/null | jq -r .run) || fail "run A"
b=$("$BIN/iofleet" run base --wait --json 2>/dev/null | jq -r .run) || fail "run B"
c=$("$BIN/iofleet" run slow --wait --json 2>/dev/null | jq -r .run) || fail "run C"

"$BIN/iofleet" compare "$a" "$b" --format json >"$T/ab.json" || fail "compare A B exited non-zero"
jq -e '.a.run == '"$a"' and .b.run == '"$b"' and .a.plan == "base" and .b.plan_version == 1
       and (.rows | map(select(.group == "fleet" and .metric == "iops")) | length == 1
       and all(.[]; .significant == false and (.delta_pct | fabs) < 5
               and .a_agents == 2 and .b_agents == 2))' "$T/ab.json" >/dev/null \
  || fail "same plan twice: $(jq -c '.rows | map(select(.metric == "iops"))' "$T/ab.json")"
# The gate on two equal runs: throughput never trips it.  Latency at this
# light load may (each run steady, the two 25-45% apart in p50 under ASan on
# a loaded 2-core machine: run-to-run spread that one pair of runs cannot
# estimate; docs/guide/03-reports-and-templates.md, "Comparing runs"), so the exit status must agree with
# the rows it judged rather than be 0.
rc=0
"$BIN/iofleet" compare "$a" "$b" --format json --fail-on-regression 20 >"$T/abg.json" 2>"$T/abg.err" || rc=$?
jq -e '.rows | map(select((.metric == "iops" or .metric == "bw") and .significant == true)) | length == 0' \
  "$T/abg.json" >/dev/null || fail "throughput of two equal runs judged significant: $(jq -c . "$T/abg.json")"
nlat=$(jq '[.rows[] | select(.significant == true and ((.metric == "p50" or .metric == "p99") and .delta_pct > 20))] | length' "$T/abg.json")
if [ "$nlat" -gt 0 ]; then
  [ "$rc" = 1 ] || fail "gate: $nlat latency regression(s) in the rows, exit $rc"
  grep -Eq "$nlat regressions? beyond 20.0%" "$T/abg.err" || fail "gate message: $(cat "$T/abg.err")"
else
  [ "$rc" = 0 ] || fail "the gate tripped on two equal runs with no regression in its rows: $(cat "$T/abg.err")"
fi
ok "same plan twice (capped at 500 IOPS per agent: a rate a loaded machine still keeps): IOPS delta $(jq '.rows[] | select(.metric == "iops") | .delta_pct | . * 10 | round / 10' "$T/ab.json")%, not significant"

# Another plan (slow): refused unless its steps are mapped by hand.
rc=0; "$BIN/iofleet" compare "$a" "$c" >/dev/null 2>"$T/acr.err" || rc=$?
[ "$rc" = 2 ] && grep -q "plan 'base' v1 and run $c is plan 'slow' v1: different plans" "$T/acr.err" \
  || fail "compare across plans exited $rc: $(cat "$T/acr.err")"
if "$BIN/iofleet" compare "$a" "$c" --steps probe=probe --format json --fail-on-regression 20 >"$T/ac.json" 2>"$T/ac.err"; then
  fail "a 10x slower run passed --fail-on-regression 20"
fi
jq -e '.rows | map(select(.group == "fleet" and .metric == "iops"))[0] | .significant == true and .delta_pct < -80
       and .a_plan == "base v1" and .b_plan == "slow v1"' \
  "$T/ac.json" >/dev/null || fail "throttled run: $(jq -c '.rows | map(select(.metric == "iops"))' "$T/ac.json")"
grep -Eq "regressions? beyond 20.0%" "$T/ac.err" || fail "gate message: $(cat "$T/ac.err")"
"$BIN/iofleet" compare "$a" "$c" --steps probe=probe >"$T/ac.txt"  || true
grep -Eq "^base v1:probe -> slow v1:probe +fleet +iops .* yes" "$T/ac.txt" || fail "text compare: $(cat "$T/ac.txt")"
grep -q "^A: run $a, plan 'base' v1, complete" "$T/ac.txt" && grep -q "^B: run $c, plan 'slow' v1, complete" "$T/ac.txt" \
  || fail "text compare header: $(head -3 "$T/ac.txt")"
ok "a run capped at a tenth (another plan: refused, then --steps probe=probe): IOPS $(jq '.rows[] | select(.metric == "iops") | .delta_pct | round' "$T/ac.json")%, significant, gate fails"

# Two groups of one run (the source report's on-board vs expander): agents
# labelled bay=onboard and bay=expander, B against A within run A.
start_agent agent-3 --label bay=onboard
start_agent agent-4 --label bay=expander
wait_agents 4
g=$("$BIN/iofleet" run base --agents agent-3,agent-4 --wait --json 2>/dev/null | jq -r .run) || fail "run G"
"$BIN/iofleet" compare "$g" --a label.bay=onboard --b label.bay=expander --format json >"$T/g.json" \
  || fail "compare groups exited non-zero"
jq -e '.figures == "per_member" and (.rows | map(select(.metric == "iops_per_target")) | length == 1
       and .[0].group == "label.bay=onboard vs label.bay=expander" and .[0].a_agents == 1 and .[0].b_agents == 1
       and (.[0].delta_pct | fabs) < 5 and .[0].significant == false)' "$T/g.json" >/dev/null \
  || fail "group compare: $(jq -c . "$T/g.json")"
if "$BIN/iofleet" compare "$g" --a label.bay=onboard --b rack=x 2>/dev/null; then fail "a group nobody matches accepted"; fi
ok "compare RUN --a label.bay=onboard --b label.bay=expander: rows per member, same capped rate: $(jq '.rows[] | select(.metric == "iops_per_target") | .delta_pct | . * 10 | round / 10' "$T/g.json")%"
