#!/usr/bin/env bash
# The CLI knows when its controller is gone, and an interrupt says what it
# stopped (issue 40, items 5 and 7):
#  - a request the controller is slow to answer (both reader threads held
#    by the test-only test_hold, longer than the admin connection's PING
#    timeout, util.h) is waited for and answered: heartbeats end only a
#    dead peer's wait;
#  - `iofleet report RUN --format html -o FILE` waiting on a controller
#    killed with -9 says "the controller at ENDPOINT went away" well before
#    the 60 s timeout (asserted < 10 s, measured and printed), over ipc://
#    and tcp://;
#  - `run --wait` polling meanwhile says so too (after its three polls),
#    and a request to the socket file left behind says nothing listens;
#  - SIGINT to `run --wait` and to `watch`: each names its own command,
#    says the run goes on and how to stop it (iofleet cancel N), exits 130,
#    and the run does go on;
#  - SIGINT to `iofleet-agent run` during I/O: exit 128 and err=0 in the
#    job's entry, as fio 3.33 (backend.c's sig_int: exit_value 128, the
#    threads terminated, no job error), "interrupted (SIGINT) ... the
#    results are partial" on stderr, its I/O so far reported.
# The kills wait until the CLI is connected, not for a time.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --test-clock 1800000000
start_agent g1
wait_agents 1
I="$BIN/iofleet"
P="$TOOLS/admin_peer"
# ms since t0 (ns)
since () { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
probe_plan short 1
run=$("$I" run short --json | jq -r .run) || fail "run short"
[ "$(wait_run "$run")" = complete ] || fail "run $run did not complete"

# hold_readers FILE: both reader threads busy while FILE exists, so that
# a read (report) waits for one.
hold_readers () {
  local h=$1
  touch "$h"
  for _ in 1 2; do
    "$P" "$IOFLEET_CONTROLLER" "{\"cmd\":\"test_hold\",\"file\":\"$h\"}" >/dev/null 2>&1 &
    PIDS+=("$!")
  done
  for _ in $(seq 300); do
    [ -f "$h.held" ] && [ "$(wc -l <"$h.held")" -ge 2 ] && return 0
    sleep 0.1
  done
  fail "the two readers were not both held"
}

# --- slow, not gone: waited for past the PING timeout ---------------------
hold_readers "$T/hold1"
"$I" report "$run" --format json >"$T/slow.json" 2>"$T/slow.err" &
S=$!
PIDS+=("$S")
connected "$S"
# 12 s: twice the PING timeout (ADMIN_PING_TIMEOUT_MS, 5 s) past the PING.
sleep 12
kill -0 "$S" 2>/dev/null || fail "a report waiting on a busy controller ended: $(cat "$T/slow.err")"
rm -f "$T/hold1"
wait "$S" || fail "the slow report failed: $(cat "$T/slow.err")"
jq -e '.steps | length == 1' "$T/slow.json" >/dev/null || fail "the slow report: $(head -c 300 "$T/slow.json")"
ok "a report held 12 s by a busy controller (PING timeout 5 s) was waited for and answered"

# --- SIGINT to run --wait and to watch ------------------------------------
probe_plan long 60
"$I" run long --wait >"$T/wait.out" 2>"$T/wait.err" &
W=$!
PIDS+=("$W")
long=""
for _ in $(seq 300); do
  grep -q "running" "$T/wait.err" 2>/dev/null && break
  sleep 0.1
done
long=$(sed -nE 's/^run ([0-9]+) queued.*/\1/p' "$T/wait.err" | head -1)
[ -n "$long" ] && grep -q running "$T/wait.err" || fail "run long --wait: $(cat "$T/wait.err")"
kill -INT "$W"
set +e; wait "$W"; rc=$?; set -e
[ "$rc" = 130 ] || fail "run --wait exited $rc on SIGINT: $(cat "$T/wait.err")"
want="iofleet run: interrupted: run $long goes on in the controller (iofleet watch $long follows it again; iofleet cancel $long stops it)"
grep -qxF "$want" "$T/wait.err" || fail "run --wait on SIGINT said: $(tail -2 "$T/wait.err")"
st=$("$I" runs --json | jq -r --argjson r "$long" '.[] | select(.id == $r) | .status')
[ "$st" = running ] || fail "run $long is '$st' after run --wait was interrupted"
ok "run --wait at SIGINT: exit 130: $want"

"$I" watch "$long" >"$T/watch.out" 2>"$T/watch.err" &
W=$!
PIDS+=("$W")
for _ in $(seq 300); do grep -q "running" "$T/watch.err" 2>/dev/null && break; sleep 0.1; done
grep -q running "$T/watch.err" || fail "watch $long: $(cat "$T/watch.err")"
kill -INT "$W"
set +e; wait "$W"; rc=$?; set -e
[ "$rc" = 130 ] || fail "watch exited $rc on SIGINT: $(cat "$T/watch.err")"
want="iofleet watch: interrupted: run $long goes on in the controller (iofleet watch $long follows it again; iofleet cancel $long stops it)"
grep -qxF "$want" "$T/watch.err" || fail "watch on SIGINT said: $(tail -2 "$T/watch.err")"
grep -q "iofleet run:" "$T/watch.err" && fail "watch calls itself run: $(cat "$T/watch.err")"
ok "watch at SIGINT: exit 130: $want"
env -u SUDO_USER "$I" cancel "$long" >/dev/null || fail "cancel $long"

# --- SIGINT to iofleet-agent run during I/O -------------------------------
AGENT="$BIN/iofleet-agent"
printf '[io]\nioengine=psync\nrw=randread\nbs=4k\nsize=8m\nfilename=%s/local-io.dat\nruntime=60\ntime_based\n' \
  "$T" >"$T/local-io.fio"
for fmt in text json; do
  "$AGENT" run "$T/local-io.fio" --output-format "$fmt" >"$T/local.$fmt" 2>"$T/local.$fmt.err" &
  L=$!
  PIDS+=("$L")
  # I/O under way: the file laid out, then 1 s of reads.
  for _ in $(seq 300); do
    [ "$(stat -c %s "$T/local-io.dat" 2>/dev/null || echo 0)" -ge $((8 << 20)) ] && break
    sleep 0.1
  done
  sleep 1
  kill -INT "$L"
  set +e; wait "$L"; rc=$?; set -e
  [ "$rc" = 128 ] || fail "iofleet-agent run ($fmt) exited $rc on SIGINT (fio exits 128): $(cat "$T/local.$fmt.err")"
  grep -qE "^iofleet-agent run: .*local-io.fio: interrupted \(SIGINT\) during step 1/1: the results are partial" \
    "$T/local.$fmt.err" || fail "iofleet-agent run ($fmt) on SIGINT said: $(cat "$T/local.$fmt.err")"
done
grep -qE '^io: \(groupid=0, jobs=1\): err= 0' "$T/local.text" \
  || fail "the interrupted job's text entry: $(head -3 "$T/local.text")"
grep -qE '^  read: IOPS=' "$T/local.text" || fail "no I/O in the interrupted job's text: $(head -4 "$T/local.text")"
jq -e '.jobs[0].error == 0 and .jobs[0].read.total_ios > 0' "$T/local.json" >/dev/null \
  || fail "the interrupted job's JSON: $(jq -c '.jobs[0] | {error, ios: .read.total_ios}' "$T/local.json")"
ok "iofleet-agent run at SIGINT during I/O: exit 128 as fio, $(grep -o 'interrupted (SIGINT).*' "$T/local.text.err"); entry err=0 as fio's, with $(jq '.jobs[0].read.total_ios' "$T/local.json") reads"

# --- the controller killed with -9 during a report ------------------------
# gone CLI_PID ENDPOINT WHAT: kills the controller, then the CLI must say so.
gone () {
  local w=$1 ep=$2 what=$3 t0 el rc
  connected "$w"
  t0=$(date +%s%N)
  kill -KILL "$CTL_PID"
  set +e; wait "$w"; rc=$?; set -e
  el=$(since "$t0")
  [ "$rc" = 1 ] || fail "$what: report exited $rc: $(cat "$T/gone.err")"
  grep -qF "iofleet: the controller at $ep went away before answering" "$T/gone.err" \
    || fail "$what: the CLI said: $(cat "$T/gone.err")"
  [ "$el" -lt 10000 ] || fail "$what: the CLI took $el ms to see its controller gone"
  ok "$what: controller killed -9 during a report: the CLI said so $el ms after the kill: $(cat "$T/gone.err")"
}
# run --wait polls meanwhile: it says the same when its polls fail.
"$I" run long --wait >/dev/null 2>"$T/rwgone.err" &
RW=$!
PIDS+=("$RW")
for _ in $(seq 300); do grep -q "running" "$T/rwgone.err" 2>/dev/null && break; sleep 0.1; done
grep -q running "$T/rwgone.err" || fail "run long --wait: $(cat "$T/rwgone.err")"
hold_readers "$T/hold2"
"$I" report "$run" --format html -o "$T/r.html" 2>"$T/gone.err" &
W=$!
PIDS+=("$W")
gone "$W" "$IOFLEET_CONTROLLER" "ipc"
t0=$(date +%s%N)
"$I" runs 2>"$T/stale.err" && fail "runs answered by a killed controller"
el=$(since "$t0")
grep -qF "no controller listens at $IOFLEET_CONTROLLER (its socket is left from one that was killed)" \
  "$T/stale.err" || fail "runs, its controller killed: $(cat "$T/stale.err")"
[ "$el" -lt 5000 ] || fail "runs took $el ms to find nothing listening"
ok "a request after the kill: said in $el ms: $(cat "$T/stale.err")"
t0=$(date +%s%N)
set +e; wait "$RW"; rc=$?; set -e
el=$(since "$t0")
[ "$rc" = 1 ] || fail "run --wait exited $rc when its controller was killed: $(tail -2 "$T/rwgone.err")"
# Its poll in flight at the kill, or the next one, which finds the socket
# file left and nothing listening.
grep -qE "^iofleet run: (the controller at $IOFLEET_CONTROLLER went away before answering|no controller listens at $IOFLEET_CONTROLLER \(its socket is left from one that was killed\)).*\(run [0-9]+: iofleet watch [0-9]+ follows it again once the controller answers\)$" \
  "$T/rwgone.err" || fail "run --wait, its controller killed: $(tail -2 "$T/rwgone.err")"
[ "$el" -lt 10000 ] || fail "run --wait took $el ms more to see its controller gone"
ok "run --wait, its controller killed: exit 1, $el ms after the report's CLI (three polls): $(tail -1 "$T/rwgone.err")"

# The same over TCP (127.0.0.1: no CURVE needed), a controller of its own.
DB="$T/tcp.db"
IOFLEET_CONTROLLER="tcp://127.0.0.1:*" start_controller --test-clock 1800000000
ep=""
for _ in $(seq 100); do
  ep=$(sed -n 's/.*admin on \(tcp:[^ ]*\)$/\1/p' "$T/controller.log" | tail -1)
  [ -n "$ep" ] && break
  sleep 0.05
done
[ -n "$ep" ] || fail "no TCP admin endpoint: $(tail -3 "$T/controller.log")"
export IOFLEET_CONTROLLER=$ep
"$I" runs >/dev/null || fail "runs over $ep"
hold_readers "$T/hold3"
"$I" report 1 --format html -o "$T/r2.html" 2>"$T/gone.err" &
W=$!
PIDS+=("$W")
gone "$W" "$ep" "tcp"
