#!/usr/bin/env bash
# SLA verdicts: a plan's iofleet_sla is checked on the fleet and on every
# target; a failure makes `iofleet run --wait` and `iofleet report` exit
# non-zero, so cron and CI can gate on it.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
start_agent agent-2
wait_agents 2
# Generous: any working disk meets it.
probe_plan easy 1 'iofleet_sla=p99<10s,iops>1'
out=$("$BIN/iofleet" run easy --wait --json 2>/dev/null) || fail "an easy SLA failed: $(jq -c '.report.steps[0].sla' <<<"$out")"
jq -e '.report.verdict == "pass" and .report.steps[0].sla.verdict == "pass"
       and (.report.steps[0].sla.fleet | length) == 2 and all(.report.steps[0].sla.fleet[]; .pass)' <<<"$out" >/dev/null \
  || fail "easy verdict: $(jq -c '.report | {verdict, sla: .steps[0].sla}' <<<"$out")"
ok "p99<10s,iops>1: pass, exit 0"

# Impossible: p99 under 1 ns.
probe_plan hard 1 'iofleet_sla=p99<1ns'
if out=$("$BIN/iofleet" run hard --wait --json 2>"$T/hard.err"); then fail "an impossible SLA exited 0"; fi
run=$(jq -r .run <<<"$out")
jq -e '.status == "complete" and .report.verdict == "fail"
       and (.report.steps[0].sla.failures | map(select(.agent)) | length) == 2' <<<"$out" >/dev/null \
  || fail "hard verdict: $(jq -c '.report | {verdict, f: .steps[0].sla.failures}' <<<"$out")"
grep -q "verdict fail: sla (see" "$T/hard.err" || fail "run --wait did not say the SLA failed: $(cat "$T/hard.err")"
if "$BIN/iofleet" report "$run" >"$T/hard.txt"; then fail "report of a failed SLA exited 0"; fi
grep -q "SLA p99<1ns: fail" "$T/hard.txt" && grep -q "FAIL agent-1" "$T/hard.txt" \
  || fail "text report: $(grep -i sla "$T/hard.txt")"
ok "p99<1ns: fail on the fleet and both targets, run --wait and report exit 1"

# Syntax errors quote the offending text, with the file and line.
printf '[j]\nsize=1m\niofleet_sla=iops>fast\n' >"$T/bad.fio"
if "$BIN/iofleet" plan add bad "$T/bad.fio" 2>"$T/bad.err"; then fail "a bad SLA was accepted"; fi
grep -q "bad.fio:3: iofleet_sla: 'iops>fast': 'fast' is not a number" "$T/bad.err" \
  || fail "SLA syntax error: $(cat "$T/bad.err")"
ok "SLA syntax errors name file, line and the offending text"
