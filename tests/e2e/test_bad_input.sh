#!/usr/bin/env bash
# Bad input: each gets a one-line error naming the thing and what to do, a
# non-zero exit, and never takes a daemon down.
. "$(dirname "$0")/lib.sh"
fleet_setup

# expect_error CMD... : must fail, stderr must match $PATTERN.
expect_error () {
  if "$@" >"$T/out" 2>"$T/err"; then fail "succeeded: $*"; fi
  grep -Eq "$PATTERN" "$T/err" || fail "stderr of '$*' lacks /$PATTERN/: $(cat "$T/err")"
}

PATTERN='bad-unknown-option\.fio:[0-9]+: unknown option' \
  expect_error "$BIN/iofleet" plan add x "$FIXTURES/jobs/bad-unknown-option.fio"
PATTERN="cannot read '$T/missing.fio'" \
  expect_error "$BIN/iofleet" plan add x "$T/missing.fio"
PATTERN='no controller at ipc://' \
  expect_error "$BIN/iofleet" agents
PATTERN="cannot open database '/proc/nope/iofleet.db'.*--db" \
  expect_error "$BIN/iofleet-controller" --db /proc/nope/iofleet.db --listen "tcp://127.0.0.1:*" --admin "ipc://$T/x.sock"
ok "job file, missing file, unreachable controller, unwritable database"

start_controller
PATTERN="cannot listen on '$AGENT_EP'.*--listen" \
  expect_error "$BIN/iofleet-controller" --db "$T/other.db" --listen "$AGENT_EP" --admin "ipc://$T/other.sock"
PATTERN="no plan named 'nope'" expect_error "$BIN/iofleet" run nope
PATTERN="no run 42" expect_error "$BIN/iofleet" report 42
PATTERN="not a run id" expect_error "$BIN/iofleet" report abc
PATTERN="no agent is connected" expect_error bash -c "
  '$BIN/iofleet' plan add ok '$FIXTURES/jobs/e2e-two-steps.fio' >/dev/null && exec '$BIN/iofleet' run ok"
ok "port in use, unknown plan, unknown run, no agents"

# The bad_agent_messages counter once the controller has handled and
# committed what a hostile peer sent: the peer's last message can still be
# queued when it exits (the loop commits once per tick), so the counter is
# read until it is at least MIN and has not moved for a second (30 s at
# most).  Prints it.
settled_count () {
  local min=$1 v last=-1 same=0 i
  for i in $(seq 150); do
    v=$(sqlite3 "$T/iofleet.db" "SELECT value FROM counters WHERE name = 'bad_agent_messages'")
    v=${v:-0}
    if [ "$v" = "$last" ] && [ "$v" -ge "$min" ]; then
      same=$((same + 1))
      [ "$same" -ge 5 ] && break
    else
      same=0
    fi
    last=$v
    sleep 0.2
  done
  echo "$v"
}

# A hostile agent: garbage, truncation, wrong version, control characters.
"$TOOLS/hostile_peer" agent "$AGENT_EP" || fail "controller misbehaved against a hostile agent"
kill -0 "$CTL_PID" || fail "controller died"
n=$(settled_count 200)
[ "${n:-0}" -ge 200 ] || fail "bad messages counted: ${n:-0}, expected >= 200"
"$BIN/iofleet" agents --json | jq -e '.[] | select(.name == "hostile")' >/dev/null \
  || fail "controller stopped answering after the garbage"
ok "controller survived and counted $n bad messages"

# The same hostile agent against a controller decoding on its loop alone
# (--decode-threads 0) and with three decode threads: each message is
# still counted, and the controller still answers.
for th in 0 3; do
  stop_controller
  start_controller --decode-threads "$th"
  [ "$("$BIN/iofleet" stats --json | jq -r .ingest.decode_threads)" = "$th" ] \
    || fail "stats: decode_threads is not $th"
  "$TOOLS/hostile_peer" agent "$AGENT_EP" || fail "controller (--decode-threads $th) misbehaved"
  kill -0 "$CTL_PID" || fail "controller (--decode-threads $th) died"
  m=$(settled_count $((n + 200)))
  [ "${m:-0}" -ge $((n + 200)) ] || fail "--decode-threads $th: bad messages ${m:-0}, were $n"
  n=$m
done
PATTERN="decode-threads '17': a number of threads, 0 to 16" \
  expect_error "$BIN/iofleet-controller" --no-config --decode-threads 17 --check-config
ok "with 0 and 3 decode threads: survived and counted each; 17 refused"

# A hostile controller: the agent drops garbage, refuses a write outside its allowlist.
port_ep="ipc://$T/fake-controller.sock"
"$TOOLS/hostile_peer" controller "$port_ep" /etc/iofleet-must-not-exist &
HP=$!
PIDS+=("$HP")
"$BIN/iofleet-agent" --controller "$port_ep" --name victim --workdir "$T" --spool-dir "$T/victim.spool" >"$T/victim.log" 2>&1 &
VICTIM=$!
PIDS+=("$VICTIM")
wait "$HP" || fail "agent misbehaved against a hostile controller"
kill -0 "$VICTIM" || fail "agent died"
[ ! -e /etc/iofleet-must-not-exist ] || { rm -f /etc/iofleet-must-not-exist; fail "agent wrote outside its allowlist"; }
grep -q "dropped a bad message" "$T/victim.log" || fail "agent did not log the bad messages"
ok "agent survived a hostile controller and refused the write"
