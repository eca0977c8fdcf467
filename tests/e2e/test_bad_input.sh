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

# A plan is read and checked once, by one reader and parser: plan add
# refuses what iofleet-agent run refuses, with the same line-numbered
# message, and stores nothing (a NUL once cut the stored text short and
# said "1 step"; a directory said "Input/output error").
cd "$T"
printf '[j]\nrw=randread\nfilename=x.dat\nsize=1m\nruntime=1\n\x00\nrw=randwrite\niodepht=8\n[k]\nrw=write\n' > nul.fio
printf '[j]\nrw=randread\n# caf\xe9 au lait\nsize=1m\n' > latin1.fio
mkdir -p plans.d
for f in nul.fio latin1.fio plans.d; do
  rc=0; "$BIN/iofleet" plan add "bad-$f" "$f" >"$T/add.out" 2>"$T/add.err" || rc=$?
  arc=0; "$BIN/iofleet-agent" run "$f" >/dev/null 2>"$T/run.err" || arc=$?
  [ "$rc" = 1 ] && [ "$arc" = 1 ] || fail "$f: plan add exited $rc, iofleet-agent run $arc"
  [ -s "$T/add.err" ] && cmp -s "$T/add.err" "$T/run.err" \
    || fail "$f: plan add says '$(cat "$T/add.err")', iofleet-agent run '$(cat "$T/run.err")'"
  [ ! -s "$T/add.out" ] || fail "$f: plan add printed $(cat "$T/add.out")"
  echo "  $f: $(cat "$T/add.err")"
done
while IFS='|' read -r f want; do
  got=$("$BIN/iofleet" plan add bad "$f" 2>&1) || true
  [ "$got" = "$want" ] || fail "plan add bad $f: '$got', not '$want'"
done <<EOF2
nul.fio|nul.fio:6: NUL byte in the file: not a text job file
latin1.fio|latin1.fio:3: not valid UTF-8 text (byte 22 of the file)
plans.d|plans.d: is a directory, not a job file: give the path of a file (e.g. plans.d/NAME.fio)
EOF2
# A request built by hand cannot carry the NUL either: the text goes
# whole or not at all.
"$TOOLS/admin_peer" "$IOFLEET_CONTROLLER" \
  '{"cmd":"plan_add","name":"handmade","source":"h.fio","text":"[j]\nrw=read\nsize=1m\nfilename=x\n\u0000\n[k]\nrw=write\n"}' \
  >"$T/hand.out" 2>&1 || true
grep -q '"ok":false' "$T/hand.out" && grep -qi 'NUL' "$T/hand.out" \
  || fail "a plan_add with \\u0000 was not refused naming the NUL: $(cat "$T/hand.out")"
[ "$("$BIN/iofleet" plan list --json | jq '[.[] | select(.name | test("^bad|^handmade"))] | length')" = 0 ] \
  || fail "a refused plan was stored: $("$BIN/iofleet" plan list)"
[ "$(sqlite3 "$T/iofleet.db" "SELECT COUNT(*) FROM plans WHERE name LIKE 'bad%' OR name = 'handmade'")" = 0 ] \
  || fail "a refused plan is in the database"
cd - >/dev/null
ok "plan add refuses a NUL, non-UTF-8 and a directory as iofleet-agent run does, word for word; \\u0000 by hand too; nothing stored"

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
# hostile_peer asserted a REJECT naming the rule or the bound for each bad
# HELLO (a name with '/' or '<', a 1 MB name, 10,000 labels); none of them
# is an agent now, and the controller says whom it refused.
[ "$("$BIN/iofleet" agents --json | jq '[.[] | select(.name != "hostile")] | length')" = 0 ] \
  || fail "a refused HELLO made an agent: $("$BIN/iofleet" agents --json | jq -c '[.[].name]')"
grep -qF "refused an agent from host nowhere (pid 0): the agent name '../../../x/escaped' has '/' (byte 3)" \
  "$T/controller.log" || fail "the controller did not log the refused name: $(grep refused "$T/controller.log" | head -3)"
r=$(sqlite3 "$T/iofleet.db" "SELECT value FROM counters WHERE name = 'rejected_hellos'")
[ "${r:-0}" -ge 5 ] || fail "rejected_hellos is ${r:-0}, expected >= 5"
ok "bad HELLOs (path, markup, 1 MB name, 10,000 labels): REJECT naming the rule or limit, none stored ($r counted)"

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
