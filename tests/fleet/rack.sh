#!/usr/bin/env bash
# A rack on one machine.  The controller runs in the root network namespace,
# on the address of a bridge this script creates; N agents (default 4, at
# most 8) each run in a network namespace of their own, joined to the bridge
# by a veth pair, each on a loop device of its own (direct I/O over a
# 256 MiB file under /var/tmp).  Runs tests/fleet/rack.fio on every agent and
# checks the JSON report.  --throttle K caps agent K's IOPS with a blkio
# (cgroup v1) or io (cgroup v2) cgroup and checks that the report shows it.
#
# usage: tests/fleet/rack.sh [-n N] [--throttle K] [--throttle-iops IOPS]
#
# Root only: exits 77 (ctest's skip code) otherwise.  Everything it creates
# carries this shell's PID in its name and is removed on exit, pass or fail.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${IOFLEET_BIN:-$ROOT/build/bin}
PLAN_FILE=$HERE/rack.fio
N=4
MAX_AGENTS=8
THROTTLE=0                  # agent number to throttle, 0: none
THROTTLE_IOPS=500           # its read and write IOPS cap
DISK_MIB=256
MAX_SKEW_NS=50000000        # 50 ms: loose, agents share one clock here
RUN_TIMEOUT=120             # seconds for `iofleet run --wait`, a watchdog

usage () { sed -n '2,13s/^# \{0,1\}//p' "$0"; echo "  --skew-steps S: instead of rack.fio, S steps of 1 s; print start skew min/median/max"; }
SKEW_STEPS=0
while [ $# -gt 0 ]; do
  case $1 in
    -n|--agents) N=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
    -n[0-9]*) N=${1#-n}; shift ;;
    --agents=*) N=${1#*=}; shift ;;
    --throttle) THROTTLE=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
    --throttle=*) THROTTLE=${1#*=}; shift ;;
    --throttle-iops) THROTTLE_IOPS=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
    --throttle-iops=*) THROTTLE_IOPS=${1#*=}; shift ;;
    --skew-steps) SKEW_STEPS=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
    -h|--help) usage; exit 0 ;;
    *) echo "rack.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
is_uint () { [[ $1 =~ ^[0-9]+$ ]]; }
is_uint "$N" && [ "$N" -ge 1 ] && [ "$N" -le $MAX_AGENTS ] \
  || { echo "rack.sh: -n takes 1..$MAX_AGENTS, not '$N'" >&2; exit 2; }
is_uint "$THROTTLE" && [ "$THROTTLE" -le "$N" ] \
  || { echo "rack.sh: --throttle takes an agent number 1..$N, not '$THROTTLE'" >&2; exit 2; }
[ "$THROTTLE" = 0 ] || [ "$N" -ge 2 ] \
  || { echo "rack.sh: --throttle needs at least 2 agents (it compares with the others)" >&2; exit 2; }
is_uint "$THROTTLE_IOPS" && [ "$THROTTLE_IOPS" -ge 1 ] \
  || { echo "rack.sh: --throttle-iops takes a positive number" >&2; exit 2; }

skip () { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for c in ip losetup jq dd timeout; do
  command -v "$c" >/dev/null || skip "needs $c"
done

say () { echo "rack: $*"; }
ok () { echo "ok: $*"; }
fail () { echo "FAIL: $*" >&2; exit 1; }

# What this run creates, for cleanup.  Names carry $$: a leftover of a run
# that was killed (SIGKILL: no trap) never collides with a new one.
ID=$$
T=""
BRIDGE=""
NETNS=()
VETHS=()
DISKS=()
LOOPS=()                   # LOOPS[k]: agent k's /dev/loopX
MAJMIN=()                  # MAJMIN[k]: its MAJ:MIN
AGENT_PIDS=()              # AGENT_PIDS[k]
CTL_PID=""
RUN_PID=""
CG_DIR=""                  # the throttle cgroup
CG_PARENT=""               # where its processes go back to
CG_IO_ENABLED_IN=""        # cgroup v2: subtree_control we added +io to

# The programs: others may be rebuilding build/ meanwhile, so wait a little
# for one that is briefly missing.
need_bin () {
  for _ in $(seq 240); do [ -x "$BIN/$1" ] && return 0; sleep 0.5; done
  fail "$BIN/$1 is missing (build first: make build)"
}
cli () { need_bin iofleet; "$BIN/iofleet" "$@"; }

stop_pid () {   # stop_pid PID...: TERM, up to 5 s, then KILL; by PID only
  local p
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}

cleanup () {
  local rc=$? p ns v f l left=""
  trap '' INT TERM
  set +e
  [ -n "$RUN_PID" ] && stop_pid "$RUN_PID"
  stop_pid "${AGENT_PIDS[@]}" $CTL_PID
  # Anything still inside our namespaces is ours (nothing else runs there).
  for ns in "${NETNS[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  done
  if [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ]; then
    for _ in $(seq 50); do
      while read -r p; do echo "$p" >"$CG_PARENT/cgroup.procs"; done <"$CG_DIR/cgroup.procs" 2>/dev/null
      rmdir "$CG_DIR" 2>/dev/null && break
      sleep 0.1
    done
  fi
  [ -n "$CG_IO_ENABLED_IN" ] && echo "-io" >"$CG_IO_ENABLED_IN" 2>/dev/null
  # Deleting a namespace deletes the veth end in it, and so its peer.
  for ns in "${NETNS[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for v in "${VETHS[@]}"; do
    ip link show "$v" >/dev/null 2>&1 && ip link del "$v" 2>/dev/null
  done
  [ -n "$BRIDGE" ] && ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
  # Every loop device over our files, whether or not losetup lived to tell.
  for f in "${DISKS[@]}"; do
    for l in $(losetup -n -O NAME -j "$f" 2>/dev/null); do losetup -d "$l"; done
  done
  # Under -fsanitize (IOFLEET_BIN=build-asan/bin), a daemon's report lands
  # in its log: that fails the test.
  if [ -n "$T" ] && grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$T"/*.log 2>/dev/null; then
    echo "FAIL: sanitizer report in $(grep -lE 'Sanitizer|runtime error:' "$T"/*.log | tr '\n' ' ')" >&2
    rc=1
  fi
  if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "$T" ]; then
    for f in "$T"/*.log "$T"/*.err; do
      [ -s "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
    done >&2
  fi
  # Nothing of ours may remain.
  for _ in $(seq 20); do
    left=""
    ip netns list 2>/dev/null | grep -q "^iofleet-rack-$ID-" && left+=" netns"
    ip -o link show 2>/dev/null | grep -qE ": iof(br|h)${ID}[-:@]" && left+=" links"
    [ -n "$T" ] && losetup -a 2>/dev/null | grep -qF "$T/" && left+=" loop-devices"
    [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ] && left+=" cgroup"
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    echo "FAIL: left behind:$left" >&2
    [ $rc -eq 0 ] && rc=1
  fi
  [ -n "$T" ] && rm -rf "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A crashed run (SIGKILL) leaves its namespaces behind: say so, touch nothing.
for ns in $(ip netns list 2>/dev/null | grep -oE '^iofleet-rack-[0-9]+-[0-9]+'); do
  p=${ns#iofleet-rack-}; p=${p%-*}
  kill -0 "$p" 2>/dev/null || say "warning: stale $ns from an earlier run (ip netns del $ns)"
done

need_bin iofleet-controller
need_bin iofleet-agent
need_bin iofleet

# --- network: a bridge, and a namespace per agent on a veth pair ---------
# A /24 in 10.213.0.0/16 that no route of this host covers yet; it lives
# only on our bridge and veths, so nothing of it leaves this machine.
NET=""
for i in $(seq 0 253); do
  x=$(( (ID + i) % 254 + 1 ))
  [ -z "$(ip -4 route show match "10.213.$x.0/24" | grep -v '^default')" ] || continue
  [ -z "$(ip -4 route show root "10.213.$x.0/24")" ] || continue
  ip -4 -o addr show | grep -q " 10\.213\.$x\." && continue
  NET=10.213.$x
  break
done
[ -n "$NET" ] || fail "no free /24 in 10.213.0.0/16 on this host"

BRIDGE=iofbr$ID
ip link add "$BRIDGE" type bridge 2>/dev/null || { BRIDGE=""; skip "cannot create a bridge here"; }
ip addr add "$NET.1/24" dev "$BRIDGE"
ip link set "$BRIDGE" up
for k in $(seq "$N"); do
  ns=iofleet-rack-$ID-$k
  ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces here"
  NETNS+=("$ns")
  VETHS+=("iofh$ID-$k")
  ip link add "iofh$ID-$k" type veth peer name "iofn$ID-$k" netns "$ns"
  ip link set "iofh$ID-$k" master "$BRIDGE" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$NET.$((10 + k))/24" dev "iofn$ID-$k"
  ip -n "$ns" link set "iofn$ID-$k" up
done
ok "bridge $BRIDGE $NET.1/24, $N namespaces iofleet-rack-$ID-1..$N ($NET.11..$NET.$((10 + N)))"

# --- disks: a loop device with direct I/O per agent ----------------------
# O_DIRECT needs a real file system under the loop's file: not tmpfs.
T=$(mktemp -d "${IOFLEET_TEST_DIR:-/var/tmp}/iofleet-rack.XXXXXX")
for k in $(seq "$N"); do
  f=$T/disk-$k.img
  DISKS+=("$f")
  dd if=/dev/zero of="$f" bs=4M count=$((DISK_MIB / 4)) oflag=direct status=none
  LOOPS[k]=$(losetup --direct-io=on -f --show "$f")
  dev=${LOOPS[k]#/dev/}
  [ "$(cat "/sys/block/$dev/loop/dio")" = 1 ] || fail "${LOOPS[k]}: direct I/O did not take"
  MAJMIN[k]=$(cat "/sys/block/$dev/dev")
  # One plan for agents whose devices differ: each workdir's 'target' is
  # the agent's own device; 'neighbour' is the next agent's (never allowed).
  mkdir "$T/agent-$k"
  ln -s "${LOOPS[k]}" "$T/agent-$k/target"
done
for k in $(seq "$N"); do ln -s "${LOOPS[k % N + 1]}" "$T/agent-$k/neighbour"; done
ok "loop devices (direct I/O, ${DISK_MIB} MiB each): ${LOOPS[*]}"

# --- throttle: a blkio (v1) or io (v2) cgroup for agent K ----------------
if [ "$THROTTLE" -gt 0 ]; then
  mm=${MAJMIN[THROTTLE]}
  v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
  v2=""
  for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
    grep -qw io "$m/cgroup.controllers" 2>/dev/null && { v2=$m; break; }
  done
  if [ -n "$v1" ] && [ -f "$v1/blkio.throttle.read_iops_device" ]; then
    CG_PARENT=$v1
    CG_DIR=$v1/iofleet-rack-$ID
    mkdir "$CG_DIR"
    echo "$mm $THROTTLE_IOPS" >"$CG_DIR/blkio.throttle.read_iops_device"
    echo "$mm $THROTTLE_IOPS" >"$CG_DIR/blkio.throttle.write_iops_device"
    grep -q "^$mm $THROTTLE_IOPS\$" "$CG_DIR/blkio.throttle.read_iops_device" \
      || fail "blkio.throttle.read_iops_device did not take"
    CG_KIND="cgroup v1 blkio.throttle.{read,write}_iops_device"
  elif [ -n "$v2" ]; then
    CG_PARENT=$v2
    if ! grep -qw io "$v2/cgroup.subtree_control"; then
      echo "+io" >"$v2/cgroup.subtree_control" || fail "cannot enable io in $v2/cgroup.subtree_control"
      CG_IO_ENABLED_IN=$v2/cgroup.subtree_control
    fi
    CG_DIR=$v2/iofleet-rack-$ID
    mkdir "$CG_DIR"
    echo "$mm riops=$THROTTLE_IOPS wiops=$THROTTLE_IOPS" >"$CG_DIR/io.max"
    grep -q "^$mm .*riops=$THROTTLE_IOPS wiops=$THROTTLE_IOPS" "$CG_DIR/io.max" \
      || fail "io.max did not take: $(cat "$CG_DIR/io.max")"
    CG_KIND="cgroup v2 io.max"
  else
    skip "--throttle needs cgroup v1 blkio or cgroup v2 with the io controller"
  fi
fi

# --- the controller, on the bridge address, with CURVE ---------------------
# Off loopback the controller refuses to run without keys: each agent gets
# a certificate, allowed by copying its public half into keys/agents/.
export IOFLEET_CONTROLLER="ipc://$T/admin.sock"
cli keys init "$T/keys" >/dev/null || fail "iofleet keys init"
for k in $(seq "$N"); do
  cli keys agent "rack-agent-$k" "$T/agent-keys" >/dev/null || fail "iofleet keys agent $k"
  cp "$T/agent-keys/rack-agent-$k.cert" "$T/keys/agents/"
done
"$BIN/iofleet-controller" --db "$T/iofleet.db" --listen "tcp://$NET.1:*" --keys "$T/keys" \
    --admin "$IOFLEET_CONTROLLER" --port-file "$T/agent-endpoint" >>"$T/controller.log" 2>&1 &
CTL_PID=$!
for _ in $(seq 100); do
  [ -s "$T/agent-endpoint" ] && break
  kill -0 "$CTL_PID" 2>/dev/null || fail "controller exited at start"
  sleep 0.1
done
[ -s "$T/agent-endpoint" ] || fail "controller did not write its endpoint"
EP=$(cat "$T/agent-endpoint")
[[ $EP == "tcp://$NET.1:"* ]] || fail "controller listens on $EP, not on $NET.1"
ok "controller on $EP"

# --- the agents, one per namespace ----------------------------------------
# `ip netns exec` execs the agent: $! is the agent itself.
for k in $(seq "$N"); do
  ip netns exec "iofleet-rack-$ID-$k" "$BIN/iofleet-agent" --controller "$EP" \
      --cert "$T/agent-keys/rack-agent-$k.cert_secret" --controller-key "$T/keys/controller.cert" \
      --name "rack-agent-$k" --label rack=r1 --workdir "$T/agent-$k" --spool-dir "$T/spool-$k" --allow "${LOOPS[k]}" \
      --allow-write "${LOOPS[k]}" \
      >>"$T/agent-$k.log" 2>&1 &
  AGENT_PIDS[k]=$!
  if [ "$k" = "$THROTTLE" ]; then
    echo "${AGENT_PIDS[k]}" >"$CG_DIR/cgroup.procs"
    grep -qx "${AGENT_PIDS[k]}" "$CG_DIR/cgroup.procs" || fail "agent $k is not in $CG_DIR"
    ok "rack-agent-$k (pid ${AGENT_PIDS[k]}) capped at $THROTTLE_IOPS IOPS on ${LOOPS[k]} ($mm): $CG_KIND in $CG_DIR"
  fi
done
NAMES=$(for k in $(seq "$N"); do echo "rack-agent-$k"; done | jq -R . | jq -sc .)
n=0
for _ in $(seq 150); do
  n=$(cli agents --json 2>/dev/null | jq --argjson names "$NAMES" \
        '[.[] | select(.connected and (.name as $n | $names | index($n)))] | length' || echo 0)
  [ "$n" -ge "$N" ] && break
  sleep 0.1
done
[ "$n" -ge "$N" ] || fail "only $n of $N agents connected"
# Each agent runs in its own namespace (so its connection crossed the bridge).
for k in $(seq "$N"); do
  got=$(ip netns identify "${AGENT_PIDS[k]}" 2>/dev/null || true)
  [ "$got" = "iofleet-rack-$ID-$k" ] || fail "rack-agent-$k runs in netns '$got'"
  [ "$(readlink "/proc/${AGENT_PIDS[k]}/exe")" = "$(readlink -f "$BIN/iofleet-agent")" ] \
    || fail "pid ${AGENT_PIDS[k]} is not the agent"
done
ok "$N agents connected from their namespaces"

# --- the run ----------------------------------------------------------------
if [ "$SKEW_STEPS" -gt 0 ] 2>/dev/null; then
  # The skew benchmark's plan: many short steps, each a synchronized start.
  PLAN_FILE=$T/skew.fio
  { printf '[global]\nstonewall\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nfilename=target\nruntime=1\ntime_based\n'
    for i in $(seq "$SKEW_STEPS"); do printf '[skew-%02d]\n' "$i"; done; } >"$PLAN_FILE"
fi
NSTEPS=$(grep -E '^\[' "$PLAN_FILE" | grep -vc '^\[global\]')
cli plan add rack "$PLAN_FILE" >"$T/plan.out" || fail "plan add: $(cat "$T/plan.out")"
grep -q "$NSTEPS step" "$T/plan.out" || fail "plan add did not report $NSTEPS steps: $(cat "$T/plan.out")"
AGENT_LIST=$(jq -r 'join(",")' <<<"$NAMES")
# In the background so that a signal stops us at once, under a watchdog.
need_bin iofleet
timeout "$RUN_TIMEOUT" "$BIN/iofleet" run rack --agents "$AGENT_LIST" --wait --json \
    >"$T/run.json" 2>"$T/run.err" &
RUN_PID=$!
rc=0; wait "$RUN_PID" || rc=$?
RUN_PID=""
[ $rc -eq 0 ] || fail "run --wait exited $rc: $(cat "$T/run.json")"
run=$(jq -r '.run' "$T/run.json")
[ "$(jq -r '.status' "$T/run.json")" = complete ] || fail "run status $(jq -r .status "$T/run.json")"
ok "run $run complete"

R=$T/report.json
cli report "$run" --format json >"$R"
jq -e '.status == "complete"' "$R" >/dev/null || fail "report status $(jq -r .status "$R")"
[ "$(jq '.steps | length' "$R")" = "$NSTEPS" ] || fail "report has $(jq '.steps | length' "$R") steps, not $NSTEPS"

LOOPS_JSON=$(for k in $(seq "$N"); do echo "${LOOPS[k]}"; done | jq -R . | jq -sc .)
for s in $(seq 0 $((NSTEPS - 1))); do
  st=".steps[$s]"
  name=$(jq -r "$st.name" "$R")
  [ "$(jq -r "$st.status" "$R")" = complete ] || fail "step $name: status $(jq -r "$st.status" "$R")"
  jq -e --argjson names "$NAMES" "$st.agents | map(.agent) | sort == \$names" "$R" >/dev/null \
    || fail "step $name: agents $(jq -c "[$st.agents[].agent]" "$R"), want $NAMES"
  jq -e "$st.agents | all(.status == \"done\" and .message == \"\")" "$R" >/dev/null \
    || fail "step $name: agent status $(jq -c "[$st.agents[] | [.agent, .status, .message]]" "$R")"
  jq -e "$st.agents | all((.targets | length) == 1 and (.targets | map(.read.ops + .write.ops) | add) > 0)" \
      "$R" >/dev/null || fail "step $name: an agent did no I/O: $(jq -c "[$st.agents[] | [.agent, [.targets[] | .read.ops + .write.ops]]]" "$R")"
  # Each agent ran on its own device, through its 'target' symlink: the
  # report names the resolved path.
  jq -e --argjson loops "$LOOPS_JSON" "$st.agents | all(
        (.agent | ltrimstr(\"rack-agent-\") | tonumber) as \$k | .targets[0].target == \$loops[\$k - 1])" \
      "$R" >/dev/null || fail "step $name: targets $(jq -c "[$st.agents[] | [.agent, .targets[].target]]" "$R")"
  for d in read write; do
    jq -e --arg d "$d" "$st as \$st
        | ([\$st.agents[].targets[][\$d].iops] | add) as \$sum
        | (\$st.fleet[\$d].iops - \$sum | fabs) <= 1e-6 * (\$sum + 1)
          and \$st.fleet[\$d].ops == ([\$st.agents[].targets[][\$d].ops] | add)" "$R" >/dev/null \
      || fail "step $name $d: fleet IOPS $(jq "$st.fleet.$d.iops" "$R") is not the sum of the agents' $(jq "[$st.agents[].targets[].$d.iops] | add" "$R")"
  done
  jq -e --argjson max "$MAX_SKEW_NS" "$st | has(\"skew_ns\") and (.skew_ns | type == \"number\")
        and .skew_ns >= 0 and .skew_ns < \$max" "$R" >/dev/null \
    || fail "step $name: skew_ns $(jq "$st.skew_ns" "$R") (limit $MAX_SKEW_NS)"
  # Aligned intervals: each holds every agent, and its merged count is the
  # sum of the agents' counts, exactly; the common window is reported.
  jq -e --argjson n "$N" "$st | (.intervals | length) >= 1
        and all(.intervals[]; .agents == \$n and .read.histogram_count == .read.ops
                              and .write.histogram_count == .write.ops)
        and .window.start_ns < .window.end_ns and (.outside_window | length) == 0" "$R" >/dev/null \
    || fail "step $name: intervals / window: $(jq -c "$st | {w: .window, o: .outside_window, i: [.intervals[] | [.seq, .agents, .read.ops, .read.histogram_count]]}" "$R")"
  # The summary line: skew, fleet IOPS, each agent's IOPS (read + write).
  jq -r --argjson s "$s" --argjson n "$NSTEPS" --argjson thr "$THROTTLE" "$st |
      \"step \(\$s + 1)/\(\$n) \(.name): skew \(.skew_ns / 1e4 | round / 100) ms, fleet \(.fleet.read.iops + .fleet.write.iops | round) IOPS (read \(.fleet.read.iops | round), write \(.fleet.write.iops | round)); \"
      + ([.agents | sort_by(.agent | ltrimstr(\"rack-agent-\") | tonumber)[]
          | \"\(.agent) \([.targets[] | .read.iops + .write.iops] | add | round)\"
            + (if .agent == \"rack-agent-\(\$thr)\" then \" (throttled)\" else \"\" end)] | join(\", \"))" "$R"
done
ok "every step: $N agents did I/O on their own loop device, fleet IOPS = sum of agents', skew < $((MAX_SKEW_NS / 1000000)) ms, every interval holds all agents with exact merged counts"

# --- throttled agent: under half the others' median read IOPS ---------------
if [ "$THROTTLE" -gt 0 ]; then
  for s in $(seq 0 $((NSTEPS - 1))); do
    line=$(jq -r --arg me "rack-agent-$THROTTLE" ".steps[$s]
        | ([.agents[] | select(.agent == \$me) | .targets[].read.iops] | add) as \$mine
        | ([.agents[] | select(.agent != \$me) | [.targets[].read.iops] | add] | sort) as \$o
        | (if (\$o | length) % 2 == 1 then \$o[(\$o | length - 1) / 2]
           else (\$o[(\$o | length) / 2 - 1] + \$o[(\$o | length) / 2]) / 2 end) as \$med
        | \"\(.name) \(\$mine | round) \(\$med | round) \(if \$mine < 0.5 * \$med then \"ok\" else \"bad\" end)\"" "$R")
    read -r name mine med verdict <<<"$line"
    say "throttle $name: rack-agent-$THROTTLE reads $mine IOPS, others' median $med IOPS"
    [ "$verdict" = ok ] || fail "step $name: throttled agent's $mine read IOPS is not under half of the others' median $med (storage slower than twice the cap? lower it: --throttle-iops)"
  done
  ok "rack-agent-$THROTTLE's read IOPS under half the others' median in every step"
fi

# --- a symlink in the workdir may not lead to a device not allowed ----------
# Agent 1's 'neighbour' is agent 2's loop device: the agent must resolve it
# and refuse it, naming the resolved device.
if [ "$N" -ge 2 ]; then
  sed -e 's/^filename=target$/filename=neighbour/' -e 's/^runtime=.*/runtime=1/' "$PLAN_FILE" \
    | awk '/^\[/ && !/^\[global\]/ { if (seen++) exit } { print }' >"$T/refuse.fio"
  cli plan add rack-refuse "$T/refuse.fio" >/dev/null
  rc=0
  timeout 60 "$BIN/iofleet" run rack-refuse --agents rack-agent-1 --wait --json \
      >"$T/refuse.json" 2>"$T/refuse.err" & RUN_PID=$!
  wait "$RUN_PID" || rc=$?
  RUN_PID=""
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a run on a neighbour's device exited $rc"
  rrun=$(jq -r '.run' "$T/refuse.json")
  cli report "$rrun" --format json >"$T/refuse-report.json"
  msg=$(jq -r '[.steps[].agents[].message] | join(" ")' "$T/refuse-report.json")
  [[ $msg == *"not allowed"* && $msg == *"${LOOPS[2]}"* ]] \
    || fail "neighbour's device: agent said '$msg'"
  ok "rack-agent-1 refused its neighbour's ${LOOPS[2]} through a workdir symlink: $msg"
fi

# Outliers: the throttled agent's drive stands out of the fleet in every
# step; with no throttle nobody's IOPS does.
if [ "$SKEW_STEPS" -eq 0 ] 2>/dev/null && [ "$N" -ge 3 ]; then
  if [ "$THROTTLE" -gt 0 ]; then
    jq -e --arg a "rack-agent-$THROTTLE" 'all(.steps[]; [.outliers[] | select(.metric == "iops")] as $o
           | ($o | length) == 1 and $o[0].agent == $a and $o[0].deviation_pct < -50)' "$R" >/dev/null \
      || fail "outliers with agent $THROTTLE throttled: $(jq -c '[.steps[] | [.outliers[] | select(.metric == "iops") | [.agent, .deviation_pct]]]' "$R")"
    cli report "$run" >"$T/report.txt"
    grep -q "OUTLIER rack-agent-$THROTTLE " "$T/report.txt" || fail "text report lacks the OUTLIER line"
    ok "outliers: rack-agent-$THROTTLE flagged in every step ($(jq -c '[.steps[] | .outliers[] | select(.metric == "iops") | .deviation_pct | round]' "$R") % off the median), nobody else"
  else
    jq -e 'all(.steps[]; [.outliers[] | select(.metric == "iops")] | length == 0)' "$R" >/dev/null \
      || fail "IOPS outliers in a healthy rack: $(jq -c '[.steps[].outliers[]]' "$R")"
    ok "outliers: none by IOPS in a healthy rack"
  fi
  # Grouped by label: one group holding every agent, merged counts exact.
  cli report "$run" --by label.rack --format json >"$T/by.json" || fail "report --by label.rack"
  jq -e --argjson n "$N" 'all(.steps[]; (.groups | length) == 1 and .groups[0].value == "r1"
         and .groups[0].targets == $n and .groups[0].read.ops == .fleet.read.ops
         and .groups[0].read.histogram_count == .groups[0].read.ops)' "$T/by.json" >/dev/null \
    || fail "groups by label.rack: $(jq -c '[.steps[].groups[] | [.value, .targets, .read.ops]]' "$T/by.json")"
  ok "report --by label.rack: one group of $N targets per step, merged counts exact"
fi

if [ "$SKEW_STEPS" -gt 0 ] 2>/dev/null; then
  jq -r --argjson n "$N" '
    def stats(a): (a | sort) as $s | [$s[0], $s[($s | length) / 2 | floor], $s[-1]];
    ([.steps[].start_skew_ns] | map(. / 1000)) as $skew
    | ([.steps[].agents[].clock_uncertainty_ns] | map(. / 1000)) as $unc
    | "skew benchmark: \($n) agents in \($n) namespaces, \($skew | length) steps",
      "start skew us        min / median / max: \(stats($skew) | map(. * 10 | round / 10) | join(" / "))",
      "clock uncertainty us min / median / max: \(stats($unc) | map(. * 10 | round / 10) | join(" / "))"' "$R"
fi

# Compare: the same one-step plan with the throttle on, then lifted. The
# healthy run as A and the throttled one as B, by agent: the throttled
# agent's IOPS significantly lower in B (a negative delta, judged against
# its own per-second noise), and --fail-on-regression trips.  (The fleet
# total need not drop: on a small machine the others take up the CPU.)
if [ "$THROTTLE" -gt 0 ] && [ "$SKEW_STEPS" -eq 0 ] 2>/dev/null; then
  printf '[cmp]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nfilename=target\nruntime=4\ntime_based\n' \
    >"$T/cmp.fio"
  cli plan add rack-cmp "$T/cmp.fio" >/dev/null || fail "plan add rack-cmp"
  slow=$(timeout "$RUN_TIMEOUT" "$BIN/iofleet" run rack-cmp --agents "$AGENT_LIST" --wait --json 2>/dev/null \
         | jq -r .run) || fail "throttled compare run"
  if [ -f "$CG_DIR/io.max" ]; then
    echo "$mm riops=max wiops=max" >"$CG_DIR/io.max"
  else
    echo "$mm 0" >"$CG_DIR/blkio.throttle.read_iops_device"
    echo "$mm 0" >"$CG_DIR/blkio.throttle.write_iops_device"
  fi
  fast=$(timeout "$RUN_TIMEOUT" "$BIN/iofleet" run rack-cmp --agents "$AGENT_LIST" --wait --json 2>/dev/null \
         | jq -r .run) || fail "unthrottled compare run"
  rc=0
  cli compare "$fast" "$slow" --by agent --sum --format json --fail-on-regression 10 >"$T/cmp.json" 2>"$T/cmp.err" || rc=$?
  me="agent=rack-agent-$THROTTLE"
  [ $rc -eq 1 ] || fail "compare of a healthy run against a throttled one exited $rc: $(cat "$T/cmp.err") $(jq -c '[.rows[] | select(.metric == "iops")]' "$T/cmp.json")"
  jq -e --arg me "$me" '[.rows[] | select(.group == $me and .metric == "iops")] | length == 1
         and .[0].significant == true and .[0].delta_pct < -50' "$T/cmp.json" >/dev/null \
    || fail "compare healthy -> throttled: $(jq -c '[.rows[] | select(.metric == "iops")]' "$T/cmp.json")"
  # The healthy agents share this machine's two cores with everything else
  # on it: a busy moment slows all of them together (CI saw -31..-33% for
  # all three between the runs once, and -70..-72% another time, when the
  # throttled agent's -94% lay only 23 points below).  A slowdown scales,
  # so compare judges in ratios (B/A), not points: the healthy agents'
  # ratios agree within 25% of each other, and the throttled agent's is
  # under half their median.
  jq -e --arg me "$me" '[.rows[] | select(.group != $me and .group != "fleet" and .metric == "iops") | 1 + .delta_pct / 100] as $h
         | ($h | sort) as $s | $s[($s | length) / 2 | floor] as $mid
         | ($h | length) >= 1 and $s[0] > 0 and $s[-1] <= 1.25 * $s[0]
         and ((1 + [.rows[] | select(.group == $me and .metric == "iops")][0].delta_pct / 100) < 0.5 * $mid)' "$T/cmp.json" >/dev/null \
    || fail "compare did not single out agent $THROTTLE (healthy agents' IOPS ratios B/A should agree within 25% and the throttled one's be under half their median): $(jq -c '[.rows[] | select(.metric == "iops") | [.group, (.delta_pct | round)]]' "$T/cmp.json")"
  ok "compare run $fast (healthy) -> run $slow (agent $THROTTLE throttled) by agent: $me IOPS $(jq -r --arg me "$me" '.rows[] | select(.group == $me and .metric == "iops") | "\(.a | round) -> \(.b | round) (\(.delta_pct * 10 | round / 10)%)"' "$T/cmp.json"), significant; healthy agents' deltas $(jq -c --arg me "$me" '[.rows[] | select(.group != $me and .group != "fleet" and .metric == "iops") | .delta_pct | round]' "$T/cmp.json") %, together; the gate trips"
fi

# A partition: agent 1's link down for 5 s in the middle of a 10 s step,
# then up.  It keeps measuring and spooling; once the link is back every
# interval reaches the controller: zero lost, none twice.
if [ "$THROTTLE" -eq 0 ] && [ "$SKEW_STEPS" -eq 0 ] 2>/dev/null; then
  printf '[part]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nfilename=target\nruntime=10\ntime_based\n' \
    >"$T/part.fio"
  cli plan add rack-part "$T/part.fio" >/dev/null || fail "plan add rack-part"
  prun=$(cli run rack-part --agents "$AGENT_LIST") || fail "run rack-part"
  for _ in $(seq 100); do
    [ "$(cli runs --json | jq -r --argjson r "$prun" '.[] | select(.id == $r) | .status')" = running ] && break
    sleep 0.1
  done
  sleep 2
  ip link set "iofh$ID-1" down
  sleep 5
  ip link set "iofh$ID-1" up
  pst=""
  for _ in $(seq 600); do
    pst=$(cli runs --json | jq -r --argjson r "$prun" '.[] | select(.id == $r) | .status')
    [ "$pst" = running ] || [ "$pst" = queued ] || break
    sleep 0.1
  done
  cli report "$prun" --format json >"$T/part.json"
  [ "$pst" = complete ] || fail "run across a 5 s partition: $pst; $(jq -c '[.steps[0].agents[] | [.agent, .status, .message, .snapshots, .snapshots_reported]]' "$T/part.json")"
  lost=$(jq '[.steps[0].agents[] | .snapshots_reported - .snapshots] | add' "$T/part.json")
  stored=$(jq '[.steps[0].agents[] | .snapshots] | add' "$T/part.json")
  dups=$(sqlite3 -cmd ".load $BIN/../lib/iofleet_sqlite" "$T/iofleet.db" "SELECT COUNT(*) - COUNT(DISTINCT agent_id || '/' || target || '/' || seq) FROM snapshots WHERE run_id = $prun")
  [ "$lost" = 0 ] && [ "$dups" = 0 ] && jq -e '.steps[0].agents | all(.incomplete == false)' "$T/part.json" >/dev/null \
    || fail "partition: $lost intervals lost, $dups duplicated"
  ok "rack-agent-1's link down 5 s mid-step: run $prun complete, $stored intervals stored of $stored reported, 0 lost, 0 duplicated"
fi

ok "rack of $N agents on one machine$([ "$THROTTLE" -gt 0 ] && echo ", agent $THROTTLE throttled")"
