# shellcheck shell=bash
# Shared by the fault tests (tests/faults/README.md): the end-to-end
# tests' lib.sh (fleet_setup, start_controller, start_agent, wait_agents,
# wait_run, fail, ok, the exit trap), plus what several faults check.
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

# intervals RUN [STEP]: one line per agent, "name|distinct seqs stored|rows
# stored twice" (a row is one agent, target and interval).
intervals () {
  local where="s.run_id = $1"
  [ -n "${2:-}" ] && where="$where AND s.step_idx = $2"
  sqlite3 "${DB:-$T/iofleet.db}" "SELECT a.name, COUNT(DISTINCT s.seq), COUNT(*) - COUNT(DISTINCT s.seq || '/' || s.target)
    FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE $where GROUP BY a.name ORDER BY a.name"
}

# nothing_lost RUN REPORT_JSON: every step, every agent: the intervals it
# reported (snapshots_reported) are stored, each exactly once, and the
# report's count (snapshots) is the stored count.  Prints a summary.
nothing_lost () {
  local run=$1 r=$2 step n a want got sum=""
  n=$(jq '.steps | length' "$r")
  for step in $(seq 0 $((n - 1))); do
    intervals "$run" "$step" >"$T/nl.$step"
    awk -F'|' '$3 != 0 { exit 1 }' "$T/nl.$step" || fail "step $step: rows stored twice: $(cat "$T/nl.$step")"
    for a in $(jq -r --argjson s "$step" '.steps[$s].agents[].agent' "$r"); do
      want=$(jq --arg a "$a" --argjson s "$step" '.steps[$s].agents[] | select(.agent == $a) | .snapshots_reported' "$r")
      got=$(awk -F'|' -v a="$a" '$1 == a { print $2 }' "$T/nl.$step")
      got=${got:-0}
      [ "$got" = "$want" ] || fail "step $step $a: $got intervals stored, it reported $want"
      sum+="$a $got, "
    done
  done
  echo "${sum%, }"
}

# aligned RUN [STEP] [N]: every interval of the fleet series holds N
# agents (default: every agent of the step), and equals the sum of the
# stored snapshots (check_fleet_intervals).
aligned () {
  local run=$1 step=${2:-0} n=${3:-} bad
  check_fleet_intervals "$run" "$step"
  [ -n "$n" ] || n=$(sqlite3 "${DB:-$T/iofleet.db}" "SELECT COUNT(*) FROM step_agents WHERE run_id = $run AND step_idx = $step")
  bad=$(sqlite3 "${DB:-$T/iofleet.db}" "SELECT group_concat(seq || ':' || agents) FROM fleet_intervals WHERE run_id = $run AND step_idx = $step AND agents != $n")
  [ -z "$bad" ] || fail "run $run step $step: fleet intervals without all $n agents (seq:agents): $bad"
}

# wait_step_running RUN [STEP]: until the step is running (10 s).
wait_step_running () {
  for _ in $(seq 200); do
    [ "$(sqlite3 "${DB:-$T/iofleet.db}" "SELECT status FROM steps WHERE run_id = $1 AND idx = ${2:-0}" 2>/dev/null)" = running ] && return 0
    sleep 0.05
  done
  fail "step ${2:-0} of run $1 did not start"
}

# --- network namespaces (root) ----------------------------------------------
# netns_setup N: a bridge on a free 10.214.X.0/24 (its .1 in NET_IP) and N
# namespaces, each joined to it by a veth pair: agent k's namespace is
# NS[k], the bridge's end of its pair HOST_VETH[k], the namespace's end
# NS_VETH[k].  Everything is named after this shell's pid and removed at
# exit (the agents in them are stopped first, by the trap).  Skips (77)
# without root, ip or tc, or where namespaces cannot be made.  Off
# loopback the controller needs CURVE keys: netns_keys makes them.
NS=()
HOST_VETH=()
NS_VETH=()
NET_IP=""
netns_setup () {
  local n=$1 k x net=""
  [ "$(id -u)" = 0 ] || { echo "skip: needs root (network namespaces)"; exit 77; }
  command -v ip >/dev/null || { echo "skip: needs ip (iproute2)"; exit 77; }
  for x in $(seq 1 254); do
    x=$(( ($$ + x) % 254 + 1 ))
    [ -z "$(ip -4 route show match "10.214.$x.0/24" | grep -v '^default')" ] || continue
    ip -4 -o addr show | grep -q " 10\.214\.$x\." && continue
    net=10.214.$x
    break
  done
  [ -n "$net" ] || fail "no free /24 in 10.214.0.0/16 on this host"
  local br=iofbr$$
  ip link add "$br" type bridge 2>/dev/null || { echo "skip: cannot create a bridge here"; exit 77; }
  AT_EXIT+=("ip link del $br 2>/dev/null")
  ip addr add "$net.1/24" dev "$br"
  ip link set "$br" up
  for k in $(seq "$n"); do
    NS[k]=iofleet-fault-$$-$k
    HOST_VETH[k]=iofh$$-$k
    NS_VETH[k]=iofn$$-$k
    ip netns add "${NS[k]}" 2>/dev/null || { echo "skip: cannot create network namespaces here"; exit 77; }
    # Deleting the namespace deletes its veth end, and so the pair.
    AT_EXIT+=("ip netns del ${NS[k]} 2>/dev/null; ip link del ${HOST_VETH[k]} 2>/dev/null")
    ip link add "${HOST_VETH[k]}" type veth peer name "${NS_VETH[k]}" netns "${NS[k]}"
    ip link set "${HOST_VETH[k]}" master "$br" up
    ip -n "${NS[k]}" link set lo up
    ip -n "${NS[k]}" addr add "$net.$((10 + k))/24" dev "${NS_VETH[k]}"
    ip -n "${NS[k]}" link set "${NS_VETH[k]}" up
  done
  NET_IP=$net.1
  # Last at exit: nothing of ours may remain (runs after the deletions above).
  AT_EXIT+=("netns_left")
}
netns_left () {
  local left=""
  ip netns list 2>/dev/null | grep -q "^iofleet-fault-$$-" && left+=" netns"
  ip -o link show 2>/dev/null | grep -qE ": iof(br|h)$$[-:@]" && left+=" links"
  [ -z "$left" ] && return 0
  echo "FAIL: left behind:$left" >&2
  rc=1    # cleanup's (this runs inside it): the test fails
}

# netns_keys NAME...: a controller key pair in $T/keys admitting agents NAME...
netns_keys () {
  "$BIN/iofleet" keys init "$T/keys" >/dev/null || fail "iofleet keys init"
  for a in "$@"; do
    "$BIN/iofleet" keys agent "$a" "$T/agent-keys" >/dev/null || fail "iofleet keys agent $a"
    cp "$T/agent-keys/$a.cert" "$T/keys/agents/"
  done
}

# start_ns_agent K NAME [extra args]: agent NAME in namespace NS[K], on
# CURVE (netns_keys made its certificate).  `ip netns exec` execs the
# agent: its pid is the agent's, in PIDS and APID[NAME].
declare -A APID
start_ns_agent () {
  local k=$1 name=$2
  shift 2
  mkdir -p "$T/$name"
  ip netns exec "${NS[k]}" "$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" \
      --cert "$T/agent-keys/$name.cert_secret" --controller-key "$T/keys/controller.cert" \
      --name "$name" --workdir "$T/$name" --spool-dir "$T/$name.spool" "$@" \
      >>"$T/$name.log" 2>&1 &
  PIDS+=("$!")
  APID[$name]=$!
}
