#!/usr/bin/env bash
# One controller per database (issue: a second controller on a running
# one's database "resumed" its run, lost its agents and marked it partial):
# - controller B started on the database of controller A, which is running
#   a plan, exits 2 within seconds, naming the database and A's pid, host
#   and admin endpoint, and never opens the database (strace);
# - A's run completes untouched: status complete, its results reported;
# - --check-config while A runs reports the lock and exits non-zero (but
#   for MAINPID=A, as a package's upgrade checks: a note);
# - once A stops, B starts on the database; a holder killed with -9 leaves
#   no stale lock.
. "$(dirname "$0")/lib.sh"
fleet_setup
DB=$T/iofleet.db
I="$BIN/iofleet"
HOST=$(hostname)
start_controller
A_PID=$CTL_PID
start_agent a1
wait_agents 1
probe_plan small 3
run=$("$I" run small --agents all) || fail "run small"
for _ in $(seq 100); do
  [ "$(sqlite3 "$DB" "SELECT status FROM steps WHERE run_id = $run AND idx = 0" 2>/dev/null)" = running ] && break
  sleep 0.05
done
[ "$(sqlite3 "$DB" "SELECT status FROM steps WHERE run_id = $run AND idx = 0")" = running ] \
  || fail "run $run did not start"

# --- B on A's database, while A's run runs ----------------------------------
second () {     # second OUT [args]: controller B on $DB, under strace when there is one
  local out=$1; shift
  local tracer=()
  command -v strace >/dev/null && tracer=(strace -f -qq -e trace=open,openat,unlink,unlinkat,rename -o "$T/b.strace")
  local rc=0
  # (LeakSanitizer cannot work under ptrace: not under strace, then)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 20 "${tracer[@]}" "$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:*' \
    --admin "ipc://$T/b.sock" --port-file "$T/b.port" "$@" >"$out" 2>&1 || rc=$?
  echo "$rc"
}
t0=$(date +%s%N)
rc=$(second "$T/b.out")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" = 2 ] || fail "controller B on A's database exited $rc, not 2: $(cat "$T/b.out")"
[ "$ms" -lt 5000 ] || fail "controller B took $ms ms to refuse"
want="database $DB is in use by pid $A_PID on $HOST (admin $IOFLEET_CONTROLLER)"
grep -qF "$want" "$T/b.out" || fail "B's message lacks '$want': $(cat "$T/b.out")"
grep -qF "start this one with another --db" "$T/b.out" || fail "B's message does not say what to do: $(cat "$T/b.out")"
[ ! -e "$T/b.sock" ] && [ ! -e "$T/b.port" ] || fail "the refused controller opened its endpoints"
if [ -s "$T/b.strace" ]; then
  # The lock file is read; the database, its WAL and shm never opened.
  # (by name: the lock's path is resolved, /var/tmp may be a link)
  if grep -E '/iofleet\.db(-wal|-shm|-journal)?"' "$T/b.strace"; then fail "the refused controller touched the database"; fi
  grep -qF '/iofleet.db.lock"' "$T/b.strace" || fail "strace did not see B look at the lock: $(head -c 600 "$T/b.strace")"
  traced=" (strace: database not opened)"
fi
ok "controller B on A's database: exit 2 in $ms ms, '$want'${traced:-}"

rc=0
"$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:*' --admin "ipc://$T/c.sock" \
  --check-config >"$T/check.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--check-config passed on a database in use: $(cat "$T/check.out")"
grep -qF "$want" "$T/check.out" || fail "--check-config does not report the lock: $(cat "$T/check.out")"
grep -qF "1 problem(s)" "$T/check.out" || fail "--check-config: not one problem: $(cat "$T/check.out")"
# With A's admin socket too: two problems, as a start would meet them.
rc=0
"$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:*' --admin "$IOFLEET_CONTROLLER" \
  --check-config >"$T/check-admin.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -qF "admin '$IOFLEET_CONTROLLER' is in use" "$T/check-admin.out" \
  && grep -qF "2 problem(s)" "$T/check-admin.out" || fail "--check-config on A's admin socket: $(cat "$T/check-admin.out")"
# A package upgrade checks with MAINPID, the unit's running controller,
# which the restart stops first: notes then, not problems.
MAINPID=$A_PID "$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:*' \
  --admin "$IOFLEET_CONTROLLER" --check-config >"$T/check-main.out" 2>&1 \
  || fail "--check-config with MAINPID of the holder: $(cat "$T/check-main.out")"
grep -qF "# note: $want" "$T/check-main.out" || fail "no note of the lock: $(cat "$T/check-main.out")"
grep -qF "# note: admin '$IOFLEET_CONTROLLER' is the unit's running controller's" "$T/check-main.out" \
  || fail "no note of the admin socket: $(cat "$T/check-main.out")"
ok "--check-config while A runs: exit $rc, reports the lock (with MAINPID=A: a note, exit 0)"

# --- A's run, untouched ------------------------------------------------------
s=$(wait_run "$run")
[ "$s" = complete ] || fail "A's run $run ended $s"
"$I" report "$run" --format json >"$T/r.json"
jq -e '.status == "complete" and .steps[0].agents[0].status == "done" and .steps[0].fleet.read.ops > 0' \
  "$T/r.json" >/dev/null || fail "A's run report: $(jq -c '{status, a: [.steps[0].agents[] | [.agent, .status]], ops: .steps[0].fleet.read.ops}' "$T/r.json")"
if grep -E "resum|lost" "$T/controller.log"; then fail "A's log shows a resume or a lost agent"; fi
ok "A's run $run: complete, $(jq '.steps[0].fleet.read.ops' "$T/r.json") reads reported"

# --- A gone: B may ----------------------------------------------------------
stop_controller
[ ! -e "$DB.lock" ] || fail "A left its lock file: $(cat "$DB.lock")"
"$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:*' --admin "ipc://$T/c.sock" \
  --check-config >"$T/check2.out" 2>&1 || fail "--check-config after A stopped: $(cat "$T/check2.out")"
start_controller
B_PID=$CTL_PID
grep -qE "^pid: $B_PID$" "$DB.lock" || fail "B's lock file: $(cat "$DB.lock")"
[ "$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')" = complete ] \
  || fail "run $run not complete under B"
# A holder killed leaves its file, not its lock.
kill -KILL "$B_PID"
wait "$B_PID" 2>/dev/null || true
[ -e "$DB.lock" ] || fail "no lock file after kill -9 (nothing to prove)"
start_controller
"$I" report "$run" --format json | jq -e '.status == "complete"' >/dev/null || fail "run $run after restarts"
ok "after A stopped B started on the database; after kill -9 of B, another start did too"
