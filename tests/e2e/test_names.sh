#!/usr/bin/env bash
# Agents given the same name, and endpoints that cannot work (issue: two
# agents of one name took it from each other every second, silently; an
# endpoint without tcp:// was blamed on CURVE; a wrong port said nothing):
# - a second agent under a connected agent's name is refused: it exits 2
#   naming the name and what to do, the controller logs it, and the first
#   stays connected (one agent listed, a run on it completes);
# - the first agent killed with -9 and started again (same name, workdir
#   and spool directory: the same instance) is taken back at once;
# - --check-config of an agent whose spool directory is in use says so;
# - --controller 127.0.0.1:5555 (no scheme) is refused naming it;
# - an agent dialing a port nobody listens on says so after 10 s.
. "$(dirname "$0")/lib.sh"
fleet_setup
I="$BIN/iofleet"
HOST=$(hostname)

# First, the agent dialing nowhere: its 10 s run while the rest is tested.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$T/deaf"
"$BIN/iofleet-agent" --no-config --controller "tcp://127.0.0.1:$port" --name deaf --workdir "$T/deaf" \
  --spool-dir "$T/deaf.spool" >"$T/deaf.log" 2>&1 &
DEAF=$!
PIDS+=("$DEAF")
deaf_at=$(date +%s)

start_controller
start_agent dup
FIRST=${PIDS[-1]}
wait_agents 1

# --- a second agent of the same name ----------------------------------------
mkdir -p "$T/dup2"
rc=0
timeout 20 "$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --name dup --workdir "$T/dup2" \
  --spool-dir "$T/dup2.spool" >"$T/dup2.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "the second agent named dup exited $rc, not 2: $(cat "$T/dup2.log")"
grep -qF "refused agent 'dup': the name 'dup' is taken" "$T/dup2.log" \
  || fail "the refused agent does not say why: $(cat "$T/dup2.log")"
grep -qF "give this agent (host $HOST) another name (--name" "$T/dup2.log" \
  || fail "the refused agent does not say what to do: $(cat "$T/dup2.log")"
grep -qF "refused an agent named 'dup' from host $HOST" "$T/controller.log" \
  || fail "the controller did not log the refusal: $(tail -3 "$T/controller.log")"
kill -0 "$FIRST" || fail "the first agent died"
"$I" agents --json >"$T/agents.json"
jq -e '[.[] | select(.name == "dup")] | length == 1 and .[0].connected' "$T/agents.json" >/dev/null \
  || fail "agents after the refusal: $(jq -c '[.[] | {name, connected}]' "$T/agents.json")"
[ "$(grep -c "connected to .* as 'dup'" "$T/dup.log")" = 1 ] || fail "the first agent reconnected: $(cat "$T/dup.log")"
probe_plan p 1
"$I" run p --agents dup --wait --json >"$T/run.json" 2>/dev/null || fail "run on dup: $(cat "$T/run.json")"
jq -e '.status == "complete" and .report.steps[0].agents[0].status == "done"' "$T/run.json" >/dev/null \
  || fail "run on dup: $(jq -c '{status, a: [.report.steps[0].agents[] | [.agent, .status]]}' "$T/run.json")"
ok "a second agent named dup: exit 2 naming the name; the first stays connected and runs a plan"

# --- its spool directory, as --check-config sees it ---------------------------
rc=0
"$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --name dup --workdir "$T/dup" \
  --spool-dir "$T/dup.spool" --check-config >"$T/check.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--check-config passed on a spool directory in use: $(cat "$T/check.out")"
grep -qF "spool directory '$T/dup.spool' is in use by pid $FIRST on $HOST" "$T/check.out" \
  || fail "--check-config does not say who has the spool: $(cat "$T/check.out")"
MAINPID=$FIRST "$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --name dup --workdir "$T/dup" \
  --spool-dir "$T/dup.spool" --check-config >"$T/check-main.out" 2>&1 \
  || fail "--check-config with MAINPID of the holder: $(cat "$T/check-main.out")"
grep -qF "# note: spool directory '$T/dup.spool' is in use by pid $FIRST" "$T/check-main.out" \
  || fail "no note of the spool's lock: $(cat "$T/check-main.out")"
ok "agent --check-config: spool directory in use by pid $FIRST (with MAINPID of it: a note)"

# --- the first one restarted: the same instance, taken back --------------------
kill -KILL "$FIRST"
wait "$FIRST" 2>/dev/null || true
start_agent dup
for _ in $(seq 100); do [ "$(grep -c "connected to .* as 'dup'" "$T/dup.log")" = 2 ] && break; sleep 0.05; done
[ "$(grep -c "connected to .* as 'dup'" "$T/dup.log")" = 2 ] || fail "the restarted agent was not taken back: $(tail -3 "$T/dup.log")"
if grep -q refused "$T/dup.log"; then fail "the restarted agent was refused: $(cat "$T/dup.log")"; fi
[ "$(grep -c "refused an agent named 'dup'" "$T/controller.log")" = 1 ] || fail "a second refusal: $(grep refused "$T/controller.log")"
wait_agents 1
ok "the first agent killed with -9 and started again: taken back at once"

# --- endpoints ---------------------------------------------------------------
rc=0
"$BIN/iofleet-agent" --no-config --controller 127.0.0.1:5555 --name x >"$T/noscheme.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--controller 127.0.0.1:5555 exited $rc"
grep -qF "'127.0.0.1:5555' is not an endpoint: expected tcp://HOST:PORT" "$T/noscheme.out" \
  || fail "no-scheme endpoint: $(cat "$T/noscheme.out")"
grep -qF "did you mean tcp://127.0.0.1:5555?" "$T/noscheme.out" || fail "no fix offered: $(cat "$T/noscheme.out")"
if grep -q CURVE "$T/noscheme.out"; then fail "a syntax error blamed on CURVE: $(cat "$T/noscheme.out")"; fi
ok "--controller 127.0.0.1:5555: exit 2, named, tcp:// suggested"

want="nothing heard from the controller at tcp://127.0.0.1:$port for 10 s: wrong host or port?"
for _ in $(seq 150); do grep -qF "$want" "$T/deaf.log" && break; sleep 0.1; done
grep -qF "$want" "$T/deaf.log" || fail "no silence line after $(( $(date +%s) - deaf_at )) s: $(cat "$T/deaf.log")"
kill -0 "$DEAF" || fail "the agent dialing nowhere exited"
ok "an agent dialing a port nobody listens on: '$want' after $(( $(date +%s) - deaf_at )) s"

# --- names that would be paths or markup -----------------------------------------
# An agent name is a plan name's kind of name (names.h): refused at start,
# exit 2, naming the option, the rule and what to do, before any directory
# is made (without --spool-dir the default spool directory is named after
# it: '../../../x/escaped' once made x/escaped/instance above it).
mkdir -p "$T/cwd"
touch "$T/badname.out"      # the only file the loop below may make
before=$(cd "$T" && find . | sort)
while IFS='|' read -r name want; do
  rc=0
  (cd "$T/cwd" && env -u STATE_DIRECTORY "$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" \
     --name "$name" >"$T/badname.out" 2>&1) || rc=$?
  [ "$rc" = 2 ] || fail "--name '$name' exited $rc: $(cat "$T/badname.out")"
  grep -qF "iofleet-agent: --name $want: a name is 1..64 letters, digits, '-', '_' or '.', and not '.' or '..'; it names this agent in the fleet and its spool directory: pick one that keeps the rule (e.g. --name rack12-host3)" "$T/badname.out" \
    || fail "--name '$name': $(cat "$T/badname.out")"
  echo "  $(cat "$T/badname.out")"
done <<NAMES
../../../x/escaped|'../../../x/escaped' has '/' (byte 3)
<script>alert(7)</script>|'<script>alert(7)</script>' has '<' (byte 1)
..|'..' is not a name (it means a directory)
$(printf 'n%.0s' $(seq 65))|'$(printf 'n%.0s' $(seq 64))...' is 65 bytes long
NAMES
[ "$(cd "$T" && find . | sort)" = "$before" ] || fail "a refused name made something: $(diff <(echo "$before") <(cd "$T" && find . | sort))"
[ ! -e /x/escaped ] && [ ! -e /var/lib/x ] || fail "a directory was made for '../../../x/escaped'"
# The same from the configuration file, and under --check-config.
printf 'controller = %s\nname = ../evil\n' "$AGENT_EP" >"$T/bad-name.conf"
rc=0
"$BIN/iofleet-agent" --config "$T/bad-name.conf" --check-config >"$T/badconf.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -qF "'../evil' has '/' (byte 3): a name is 1..64 letters" "$T/badconf.out" \
  && grep -qF "bad-name.conf" "$T/badconf.out" || fail "name = ../evil in a file: exit $rc, $(cat "$T/badconf.out")"
# Simulated agents are PREFIX-00001..: the last one's name keeps the rule too.
rc=0
"$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --simulate 3 --name "$(printf 's%.0s' $(seq 60))" \
  >"$T/badsim.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -qF "the last simulated agent's name '$(printf 's%.0s' $(seq 60))-000...' is 66 bytes long" "$T/badsim.out" \
  || fail "a --simulate prefix too long: exit $rc, $(cat "$T/badsim.out")"
"$I" agents --json | jq -e '[.[] | select(.name | test("[/<]"))] | length == 0' >/dev/null \
  || fail "an agent with '/' or '<' is listed"
ok "agent names with '/', '<', '..', 65 bytes; in a file; a --simulate prefix: exit 2 naming the rule, nothing made"
