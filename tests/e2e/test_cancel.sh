#!/usr/bin/env bash
# Safe to operate (issue 20): anything running can be stopped, and a plan
# cannot fill the disk.
#  - iofleet cancel RUN during I/O: the agent's workers stop within 2 s (no
#    more writes to the target), the run ends 'cancelled' with who and when,
#    the intervals delivered before stay in the report, and `run --wait` in
#    another process exits non-zero saying by whom; a queued run is
#    cancelled too; an ended or unknown run is refused (exit 1).
#  - cancel during a layout (size= within the free space): the agent says
#    how far the layout got, stops (within 15 s: see below) and removes
#    what it created.
#  - size=1000t: refused before a byte is written, naming both numbers, on
#    an agent of a fleet (the refusal reaches `run --wait`) and in local mode.
#  - iofleet-agent run: SIGTERM during a layout exits (within 15 s); a file
#    unlinked while being laid out ends the step; iodepth beyond the
#    region's blocks is warned about.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller --interval 500ms
start_agent a1
wait_agents 1
I="$BIN/iofleet"
AGENT="$BIN/iofleet-agent"
ME="$(id -un)@$(hostname)"
cancel () { env -u SUDO_USER "$I" cancel "$@"; }
# ms since t0 (ns)
since () { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# Whether the file system of $T has room for a layout that lasts a while.
avail=$(df --output=avail -B1 "$T" | tail -1 | tr -d ' ')
big=$(( avail / 2 > (40 << 30) ? (40 << 30) : avail / 2 ))
big=$(( big >> 20 << 20 ))

# --- cancel during I/O; a queued run cancelled; refusals -----------------
printf '[io]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=16m\nfilename=io.dat\nruntime=30\ntime_based\n' >"$T/io.fio"
"$I" plan add io "$T/io.fio" >/dev/null || fail "plan add io"
# The run, waited for by another process as a user would.
"$I" run io --wait >"$T/wait.out" 2>"$T/wait.err" &
W=$!
PIDS+=("$W")
run=""
for _ in $(seq 100); do
  run=$(sed -nE 's/^run ([0-9]+) queued.*/\1/p' "$T/wait.err" | head -1)
  [ -n "$run" ] && break
  sleep 0.05
done
[ -n "$run" ] || fail "run io --wait: $(cat "$T/wait.err")"
queued=$("$I" run io) || fail "run io (queued)"
out=$(cancel "$queued") || fail "cancel of queued run $queued exited $?"
[[ "$out" == *"run $queued cancelled by $ME at "*"(it was queued)"* ]] || fail "cancel of a queued run said: $out"
"$I" runs --json | jq -e --argjson q "$queued" --arg me "$ME" \
  '.[] | select(.id == $q) | .status == "cancelled" and .cancelled_by == $me' >/dev/null \
  || fail "queued run $queued: $("$I" runs --json | jq -c --argjson q "$queued" '.[] | select(.id == $q)')"
ok "queued run $queued cancelled: $out"

# Two intervals stored (0.5 s each), then cancel.
n=0
for _ in $(seq 100); do
  n=$(sqlite3 "$T/iofleet.db" "SELECT COUNT(*) FROM snapshots WHERE run_id = $run" 2>/dev/null || echo 0)
  [ "$n" -ge 2 ] && break
  sleep 0.1
done
[ "$n" -ge 2 ] || fail "run $run stored $n intervals"
[ -f "$T/a1/io.dat" ] || fail "no io.dat"
t0=$(date +%s%N)
out=$(cancel "$run") || fail "cancel $run exited $?"
[[ "$out" == *"run $run cancelled by $ME at "*"step 1/1 'io'; 1 agent(s) told to stop: a1"* ]] \
  || fail "cancel of a running run said: $out"
for _ in $(seq 40); do grep -q "run $run: workers stopped" "$T/a1.log" && break; sleep 0.05; done
grep -q "run $run: workers stopped" "$T/a1.log" || fail "agent a1 did not stop its workers within 2 s: $(tail -3 "$T/a1.log")"
el=$(since "$t0")
# No more writes: the target's modification time stands still.
m1=$(stat -c %y "$T/a1/io.dat"); sleep 1; m2=$(stat -c %y "$T/a1/io.dat")
[ "$m1" = "$m2" ] || fail "io.dat still written after the cancel: $m1, then $m2"
ok "cancel during I/O: agent stopped in $el ms ($(grep -o "workers stopped .*" "$T/a1.log")); io.dat unchanged since"

wait "$W" && fail "run --wait exited 0 for a cancelled run"
grep -q "run $run was cancelled by $ME at " "$T/wait.err" || fail "run --wait did not say who cancelled: $(cat "$T/wait.err")"
ok "run --wait exited non-zero: $(grep "was cancelled" "$T/wait.err")"

"$I" report "$run" --format json >"$T/r.json" || fail "report $run"
jq -e --arg me "$ME" '.status == "cancelled" and .cancelled_by == $me and (.cancelled_at > 0)
    and (.message | startswith("cancelled by " + $me))' "$T/r.json" >/dev/null \
  || fail "report: $(jq -c '{status, message, cancelled_by, cancelled_at}' "$T/r.json")"
kept=$(jq '.steps[0].intervals | length' "$T/r.json")
[ "$kept" -ge "$n" ] || fail "report keeps $kept intervals, $n were stored before the cancel"
jq -e '.steps[0].status == "cancelled" and .steps[0].agents[0].status == "cancelled"
    and .steps[0].fleet.write.ops > 0' "$T/r.json" >/dev/null \
  || fail "step: $(jq -c '.steps[0] | {status, agents: [.agents[] | {agent, status, message}], w: .fleet.write.ops}' "$T/r.json")"
ok "run $run cancelled by $ME: $kept intervals kept, $(jq '.steps[0].fleet.write.ops' "$T/r.json") writes in its results"

set +e
err=$(cancel "$run" 2>&1); rc=$?
set -e
[ "$rc" = 1 ] && [[ "$err" == *"run $run has already ended (cancelled)"* ]] || fail "cancel of an ended run: rc $rc: $err"
set +e
err2=$(cancel 999 2>&1); rc2=$?
set -e
[ "$rc2" = 1 ] && [[ "$err2" == *"no run 999"* ]] || fail "cancel of an unknown run: rc $rc2: $err2"
ok "refused: $err | $err2"

# --- size= beyond the free space: refused before a byte is written -------
printf '[huge]\nrw=randread\nbs=4k\nsize=1000t\nfilename=huge.dat\nruntime=1\n' >"$T/huge.fio"
"$I" plan add huge "$T/huge.fio" >/dev/null || fail "plan add huge"
set +e
"$I" run huge --wait >"$T/huge.out" 2>"$T/huge.err"; rc=$?
set -e
[ "$rc" != 0 ] || fail "run huge --wait exited 0"
grep -qE "refused: size=1000t \(1000\.0 TiB to lay out\) is more than the [0-9.]+ [KMGT]iB free on /.* \(file $T/a1/huge\.dat\): lower size= or free space" "$T/huge.out" \
  || fail "run --wait does not say why: $(cat "$T/huge.out")"
[ -e "$T/a1/huge.dat" ] && fail "huge.dat was created"
ok "fleet: $(grep -o 'size=1000t.*' "$T/huge.out")"
sed "s|filename=huge.dat|filename=$T/local-huge.dat|" "$T/huge.fio" >"$T/local-huge.fio"
set +e
"$AGENT" run "$T/local-huge.fio" >/dev/null 2>"$T/local-huge.err"; rc=$?
set -e
[ "$rc" = 1 ] || fail "iofleet-agent run of size=1000t exited $rc"
grep -qE "size=1000t \(1000\.0 TiB to lay out\) is more than the [0-9.]+ [KMGT]iB free on /" "$T/local-huge.err" \
  || fail "local mode: $(cat "$T/local-huge.err")"
[ -e "$T/local-huge.dat" ] && fail "local-huge.dat was created"
ok "local mode: $(head -c 200 "$T/local-huge.err")"

# --- iodepth beyond the region's blocks: a note on stdout, as fio prints
# its notes (and its layout notice: a new file here); stderr stays empty,
# as fio's does; with JSON, stdout is the document alone.
printf '[deep]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=16k\niodepth=32\nfilename=%s/deep.dat\n' "$T" >"$T/deep.fio"
"$AGENT" run "$T/deep.fio" >"$T/deep.out" 2>"$T/deep.err" || fail "deep.fio: $(cat "$T/deep.err")"
grep -q "^note: job 'deep': iodepth=32 is more than the 4 block(s) of 4096 bytes" "$T/deep.out" \
  || fail "no iodepth note on stdout: $(head -3 "$T/deep.out")"
[ ! -s "$T/deep.err" ] || fail "iodepth note: stderr not empty: $(cat "$T/deep.err")"
rm -f "$T/deep.dat"
"$AGENT" run --output-format json "$T/deep.fio" >"$T/deep.json" 2>"$T/deep.err" || fail "deep.fio json: $(cat "$T/deep.err")"
[ ! -s "$T/deep.err" ] || fail "iodepth note with JSON: stderr not empty: $(cat "$T/deep.err")"
jq -e '.jobs[0].read.total_ios > 0' "$T/deep.json" >/dev/null || fail "deep.fio: stdout is not the JSON alone: $(head -c 200 "$T/deep.json")"
ok "iodepth: $(grep -o "iodepth=32 is more.*" "$T/deep.out" | head -c 160) (stdout; stderr empty)"

if [ "$big" -lt $((8 << 30)) ]; then
  echo "skip: layouts (only $((avail >> 30)) GiB free under $T; they need 16)"
  exit 0
fi

# --- cancel during a layout (fleet) ----------------------------------------
printf '[lay]\nrw=randread\nbs=4k\nsize=%s\nfilename=lay.dat\nruntime=5\n' "$big" >"$T/lay.fio"
"$I" plan add lay "$T/lay.fio" >/dev/null || fail "plan add lay"
run=$("$I" run lay) || fail "run lay"
for _ in $(seq 100); do grep -q "laying out $T/a1/lay.dat: .* of .*, .*/s, " "$T/a1.log" && break; sleep 0.1; done
grep -q "laying out $T/a1/lay.dat: .* of " "$T/a1.log" || fail "no layout progress: $(tail -3 "$T/a1.log")"
t0=$(date +%s%N)
cancel "$run" >/dev/null || fail "cancel $run during the layout"
# Within 15 s, not 2: the layout writes through the page cache, and on a
# loaded disk its writeback has held the controller's commit and the
# layout's last write for 4 s (CI, 2 Dec 2026).  What shows the cancel
# stopped it is the agent's "stopped at" (a layout that ran on would end
# complete) and the file removed, not the seconds.
for _ in $(seq 300); do grep -q "refused: laying out '$T/a1/lay.dat' stopped at" "$T/a1.log" && break; sleep 0.05; done
grep -q "refused: laying out '$T/a1/lay.dat' stopped at .*: the controller aborted run $run: cancelled by $ME" "$T/a1.log" \
  || fail "layout not stopped within 15 s: $(tail -3 "$T/a1.log")"
el=$(since "$t0")
[ -e "$T/a1/lay.dat" ] && fail "lay.dat left behind ($(stat -c %s "$T/a1/lay.dat") bytes)"
[ "$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')" = cancelled ] || fail "run $run not cancelled"
ok "cancel during a layout: stopped in $el ms: $(grep -o "laying out $T/a1/lay.dat: .* of [^,]*" "$T/a1.log" | tail -1); $(grep -o "stopped at [^:]*" "$T/a1.log" | tail -1), file removed"

# --- local mode: SIGTERM during a layout; a file unlinked while laid out --
# wait_grows FILE: until FILE holds 256 MiB (a layout under way).
wait_grows () {
  for _ in $(seq 100); do
    [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge $((256 << 20)) ] && return 0
    sleep 0.05
  done
  fail "$1 did not grow"
}
# exits_within PID MS: until child PID exits (a zombie, not yet waited
# for, has exited), at most MS ms.
exits_within () {
  local st
  for _ in $(seq $(( $2 / 50 ))); do
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)
    [ -z "$st" ] || [ "$st" = Z ] && return 0
    sleep 0.05
  done
  fail "pid $1 still running $2 ms on"
}
printf '[lay]\nrw=randread\nbs=4k\nsize=%s\nfilename=%s/local-lay.dat\nruntime=5\n' "$big" "$T" >"$T/local-lay.fio"
"$AGENT" run "$T/local-lay.fio" >"$T/term.out" 2>"$T/term.err" &
L=$!
PIDS+=("$L")
wait_grows "$T/local-lay.dat"
t0=$(date +%s%N)
kill -TERM "$L"
exits_within "$L" 15000       # 15 s, as for the fleet's layout above
el=$(since "$t0")
set +e; wait "$L"; rc=$?; set -e
# 128, as fio exits when a signal stops it (backend.c's sig_int).
[ "$rc" = 128 ] || fail "iofleet-agent run exited $rc on SIGTERM (fio exits 128)"
grep -q "stopped at .*: interrupted (SIGTERM)" "$T/term.err" || fail "SIGTERM: $(cat "$T/term.err")"
grep -q "^lay: .*err= 4 (Interrupted system call)" "$T/term.out" \
  || fail "SIGTERM during a layout: the job's entry: $(head -3 "$T/term.out")"
[ -e "$T/local-lay.dat" ] && fail "local-lay.dat left behind"
ok "SIGTERM during a layout: exit 128 in $el ms: $(grep -o "laying out .*stopped at [^:]*" "$T/term.err")"

"$AGENT" run "$T/local-lay.fio" >/dev/null 2>"$T/unlink.err" &
L=$!
PIDS+=("$L")
wait_grows "$T/local-lay.dat"
rm -f "$T/local-lay.dat"
t0=$(date +%s%N)
# 15 s, as above: a write held by the page cache's writeback (dirty-page
# throttling of a 37.8 GiB layout) delays the check between writes; CI
# under the sanitizers once took over 2.5 s.  What is judged is the
# message and the exit, not the time.
exits_within "$L" 15000
el=$(since "$t0")
set +e; wait "$L"; rc=$?; set -e
[ "$rc" = 1 ] || fail "iofleet-agent run exited $rc after its file was unlinked"
grep -q "'$T/local-lay.dat' was removed (unlinked) while being laid out, at .* of .*: stopped" "$T/unlink.err" \
  || fail "unlinked: $(cat "$T/unlink.err")"
ok "file unlinked during its layout: step ended in $el ms: $(grep -o "was removed.*stopped" "$T/unlink.err")"
