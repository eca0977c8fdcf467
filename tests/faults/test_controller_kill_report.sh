#!/usr/bin/env bash
# The controller killed with -9 in the middle of a report, then started
# again on the same database:
#  - `iofleet report RUN --format html -o FILE` waiting on it says "the
#    controller at ENDPOINT went away before answering" and exits 1, well
#    before its 60 s timeout (< 10 s asserted, measured and printed), and
#    leaves no FILE behind (tests/e2e/test_gone.sh covers the CLI over
#    ipc:// and tcp://);
#  - the restarted controller reports the same run identically: the JSON,
#    the text and the HTML report are byte for byte those of before the
#    kill, every interval stored once, the run's status unchanged.
# The report is held in the controller by the test-only test_hold (both
# reader threads busy while a file exists), so the kill lands while the
# CLI waits, not at a guessed time.
. "$(dirname "$0")/lib.sh"
fleet_setup
# An ipc endpoint for the agents: the restarted controller finds it free.
LISTEN="ipc://$T/agents.sock" start_controller --test-clock 1800000000
start_agent k1
start_agent k2
wait_agents 2
I="$BIN/iofleet"
probe_plan short 3
run=$("$I" run short) || fail "run short"
st=$(wait_run "$run")
[ "$st" = complete ] || fail "run $run: $st"
"$I" report "$run" --format json >"$T/before.json" || fail "report json"
"$I" report "$run" >"$T/before.txt" || fail "report text"
"$I" report "$run" --format html -o "$T/before.html" || fail "report html"
stored=$(nothing_lost "$run" "$T/before.json")

h=$T/hold
touch "$h"
for _ in 1 2; do
  "$TOOLS/admin_peer" "$IOFLEET_CONTROLLER" "{\"cmd\":\"test_hold\",\"file\":\"$h\"}" >/dev/null 2>&1 &
  PIDS+=("$!")
done
for _ in $(seq 300); do
  [ -f "$h.held" ] && [ "$(wc -l <"$h.held")" -ge 2 ] && break
  sleep 0.1
done
[ "$(wc -l <"$h.held" 2>/dev/null || echo 0)" -ge 2 ] || fail "the two readers were not both held"
"$I" report "$run" --format html -o "$T/during.html" 2>"$T/gone.err" &
W=$!
PIDS+=("$W")
connected "$W"
t0=$(date +%s%N)
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
set +e; wait "$W"; rc=$?; set -e
el=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" = 1 ] || fail "report exited $rc when its controller was killed: $(cat "$T/gone.err")"
grep -qF "iofleet: the controller at $IOFLEET_CONTROLLER went away before answering" "$T/gone.err" \
  || fail "the CLI said: $(cat "$T/gone.err")"
[ "$el" -lt 10000 ] || fail "the CLI took $el ms to see its controller gone"
[ -e "$T/during.html" ] && fail "a report left $(stat -c %s "$T/during.html") bytes in -o FILE though its controller went away"
ok "controller killed -9 during report --format html -o FILE: exit 1 after $el ms: $(cat "$T/gone.err"); no FILE written"
rm -f "$h"

LISTEN="ipc://$T/agents.sock" start_controller --test-clock 1800000000
[ "$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')" = complete ] \
  || fail "run $run after the restart: $("$I" runs --json | jq -c --argjson r "$run" '.[] | select(.id == $r)')"
"$I" report "$run" --format json >"$T/after.json" || fail "report json after the restart"
"$I" report "$run" >"$T/after.txt" || fail "report text after the restart"
"$I" report "$run" --format html -o "$T/after.html" || fail "report html after the restart"
cmp -s "$T/before.json" "$T/after.json" || fail "the JSON report differs after the restart: $(diff <(jq -S . "$T/before.json") <(jq -S . "$T/after.json") | head -20)"
cmp -s "$T/before.txt" "$T/after.txt" || fail "the text report differs after the restart: $(diff "$T/before.txt" "$T/after.txt" | head -20)"
cmp -s "$T/before.html" "$T/after.html" || fail "the HTML report differs after the restart: $(diff "$T/before.html" "$T/after.html" | head -c 2000)"
[ "$(nothing_lost "$run" "$T/after.json")" = "$stored" ] || fail "stored intervals after the restart: $(nothing_lost "$run" "$T/after.json"), before: $stored"
ok "the restarted controller reports run $run identically (JSON $(stat -c %s "$T/after.json"), text $(stat -c %s "$T/after.txt"), HTML $(stat -c %s "$T/after.html") bytes); intervals stored once: $stored"
