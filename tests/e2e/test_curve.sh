#!/usr/bin/env bash
# CURVE: only agents whose public key is in the controller's allowlist
# register (refused keys are logged and listed); an agent pinned to the
# wrong controller key never connects; allowing a key takes effect without
# a restart; an agent cannot take another key's name; a run works over
# CURVE; NULL security off this host is refused at start; the admin socket
# and the database are the controller user's only.
. "$(dirname "$0")/lib.sh"
fleet_setup
I="$BIN/iofleet"
K=$T/keys
A=$T/agent-keys
"$I" keys init "$K" >"$T/init.out" || fail "keys init"
for n in a1 a2 a3; do "$I" keys agent "$n" "$A" >/dev/null || fail "keys agent $n"; done
"$I" keys init "$T/other" >/dev/null || fail "keys init other"
[ "$(stat -c %a "$K/controller.cert_secret")" = 600 ] && [ "$(stat -c %a "$A/a1.cert_secret")" = 600 ] \
  || fail "secret files are not 0600"
if "$I" keys agent a1 "$A" 2>"$T/dup.err"; then fail "keys agent overwrote a certificate"; fi
grep -q "exists; not overwriting" "$T/dup.err" || fail "overwrite message: $(cat "$T/dup.err")"
cp "$A/a1.cert" "$K/agents/"
key_of () { sed -n 's/^ *public-key = "\(.*\)"$/\1/p' "$1"; }
ok "keys: controller and 3 agent certificates, secrets 0600, no overwrite"

# NULL security: refused off this host, allowed (with a warning) on loopback.
rc=0
"$BIN/iofleet-controller" --db "$T/null.db" --listen tcp://0.0.0.0:0 --admin "ipc://$T/null.sock" \
  >"$T/null.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "refusing to listen on 'tcp://0.0.0.0:0' without CURVE" "$T/null.out" \
  || fail "NULL on 0.0.0.0: exit $rc, $(cat "$T/null.out")"
rc=0
"$BIN/iofleet-agent" --controller tcp://192.0.2.1:5570 --name x >"$T/anull.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "without CURVE" "$T/anull.out" || fail "agent NULL off-host: exit $rc, $(cat "$T/anull.out")"
ok "NULL security off this host refused at start (controller and agent)"

start_controller --keys "$K"
grep -qF "CURVE on: public key $(key_of "$K/controller.cert")" "$T/controller.log" \
  || fail "controller log lacks its CURVE key: $(tail -3 "$T/controller.log")"
[ "$(stat -c %a "$T/admin.sock")" = 600 ] || fail "admin socket mode $(stat -c %a "$T/admin.sock")"
[ "$(stat -c %a "$T/iofleet.db")" = 600 ] || fail "database mode $(stat -c %a "$T/iofleet.db")"
ok "admin socket and database are 0600"

start_agent a1 --cert "$A/a1.cert_secret" --controller-key "$K/controller.cert"
start_agent a2 --cert "$A/a2.cert_secret" --controller-key "$K/controller.cert"
start_agent a3 --cert "$A/a3.cert_secret" --controller-key "$T/other/controller.cert"
cp "$A/a3.cert" "$K/agents/"      # allowed, but it pins the wrong controller
wait_agents 1
k2=$(key_of "$A/a2.cert")
for _ in $(seq 50); do
  "$I" agents --rejected --json >"$T/rej.json"
  jq -e --arg k "$k2" 'any(.[]; .public_key == $k and .domain == "agents" and .attempts >= 1)' \
    "$T/rej.json" >/dev/null && break
  sleep 0.1
done
jq -e --arg k "$k2" 'any(.[]; .public_key == $k)' "$T/rej.json" >/dev/null \
  || fail "a2's key is not listed as rejected: $(cat "$T/rej.json")"
grep -qF "CURVE key $k2 is not in the agents allowlist" "$T/controller.log" || fail "no log line for a2's key"
sleep 1
"$I" agents --json >"$T/agents.json"
jq -e --arg k "$(key_of "$A/a1.cert")" '[.[] | select(.connected)] | length == 1
       and .[0].name == "a1" and .[0].public_key == $k' "$T/agents.json" >/dev/null \
  || fail "connected agents: $(jq -c '[.[] | {name, connected, public_key}]' "$T/agents.json")"
"$I" agents --rejected >"$T/rej.txt"
grep -qF -e "$k2" "$T/rej.txt" || fail "agents --rejected text lacks a2's key"
ok "only a1 registered; a2 (unknown key) refused, logged and listed; a3 (wrong controller key) not connected"

# Allowing a key: copy its certificate; no restart.
cp "$A/a2.cert" "$K/agents/"
wait_agents 2
ok "a2 admitted after its certificate was copied into agents/"

# No posing as another agent: a3's (allowed) key under a1's name.
cp "$A/a3.cert" "$A/imp.cert"; cp "$A/a3.cert_secret" "$A/imp.cert_secret"
mkdir -p "$T/imp"
"$BIN/iofleet-agent" --controller "$AGENT_EP" --name a1 --workdir "$T/imp" --spool-dir "$T/imp.spool" \
  --cert "$A/imp.cert_secret" --controller-key "$K/controller.cert" >"$T/imp.log" 2>&1 &
IMP=$!
PIDS+=("$IMP")
for _ in $(seq 50); do grep -q "belongs to another key" "$T/imp.log" 2>/dev/null && break; sleep 0.1; done
grep -q "belongs to another key" "$T/imp.log" || fail "impostor not rejected: $(tail -3 "$T/imp.log")"
"$I" agents --json | jq -e --arg k "$(key_of "$A/a1.cert")" '.[] | select(.name == "a1") | .public_key == $k and .connected' \
  >/dev/null || fail "a1 lost its key or connection to the impostor"
ok "a key cannot take another allowed key's name"

# A run over CURVE.
probe_plan probe 1
"$I" run probe --agents a1,a2 --wait --json >"$T/run.json" 2>/dev/null || fail "run over CURVE: $(cat "$T/run.json")"
jq -e '.status == "complete" and (.report.steps[0].agents | length) == 2
       and .report.steps[0].fleet.read.ops > 0' "$T/run.json" >/dev/null \
  || fail "run over CURVE: $(jq -c '{status, a: [.report.steps[0].agents[] | [.agent, .status]]}' "$T/run.json")"
ok "a run on 2 agents over CURVE: $(jq '.report.steps[0].fleet.read.ops' "$T/run.json") reads"

# The admin endpoint over TCP: CURVE, keys from admins/.
"$I" keys agent ops "$T/ops" >/dev/null || fail "keys agent ops"
cp "$T/ops/ops.cert" "$K/admins/"
"$BIN/iofleet-controller" --db "$T/tcpadmin.db" --listen "ipc://$T/agents2.sock" --keys "$K" \
  --admin "tcp://127.0.0.1:*" >"$T/tcpadmin.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do
  ep=$(sed -n 's/.*admin on \(tcp:[^ ]*\)$/\1/p' "$T/tcpadmin.log")
  [ -n "$ep" ] && break; sleep 0.1
done
[ -n "$ep" ] || fail "TCP admin controller did not start: $(cat "$T/tcpadmin.log")"
"$I" --controller "$ep" --cert "$T/ops/ops.cert_secret" --controller-key "$K/controller.cert" plan list --json \
  >"$T/tcpadmin.json" || fail "CLI over CURVE TCP admin: $(cat "$T/tcpadmin.log")"
jq -e 'type == "array"' "$T/tcpadmin.json" >/dev/null || fail "TCP admin reply: $(cat "$T/tcpadmin.json")"
ok "the CLI over a TCP admin endpoint with CURVE (key in admins/)"
# A key not in admins/ is refused at the handshake: said at once, not after
# the call's 10 s timeout.
"$I" keys agent rogue "$T/rogue" >/dev/null || fail "keys agent rogue"
t0=$(date +%s%N)
"$I" --controller "$ep" --cert "$T/rogue/rogue.cert_secret" --controller-key "$K/controller.cert" \
  plan list 2>"$T/rogue.err" && fail "a key not in admins/ was answered"
el=$(( ($(date +%s%N) - t0) / 1000000 ))
grep -qF "the controller at $ep refused this CLI's key: put NAME.cert" "$T/rogue.err" \
  || fail "a refused admin key: $(cat "$T/rogue.err")"
[ "$el" -lt 5000 ] || fail "a refused admin key took $el ms to be said"
ok "an admin key not in admins/: refused in $el ms: $(cat "$T/rogue.err")"
