# Shared by the end-to-end tests: a temporary fleet on loopback.
# Every test sources this, calls fleet_setup, and gets everything it started
# stopped and removed on exit, pass or fail (trap).
set -euo pipefail

BIN=${IOFLEET_BIN:?IOFLEET_BIN must point at the bin directory of a build}
# The test programs and tools (hostile_peer, admin_peer, trim_peer) are
# built beside the tests, not with the three programs a user runs.
TOOLS=${IOFLEET_TOOLS:-$BIN/../tests/bin}
FIXTURES=${IOFLEET_FIXTURES:?IOFLEET_FIXTURES must point at tests/fixtures}
# The sqlite3 shell reads the snapshots table (one row per target and
# interval, decoded from snapshot_blocks) through iofleet's extension.
SQLITE_EXT=${IOFLEET_SQLITE_EXT:-$BIN/../lib/iofleet_sqlite}
sqlite3 () { command sqlite3 -cmd ".load $SQLITE_EXT" "$@"; }
PIDS=()
T=""
# Commands run at exit before $T is removed (unmounts and the like).
AT_EXIT=()

fail () { echo "FAIL: $*" >&2; exit 1; }
ok () { echo "ok: $*"; }

cleanup () {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  for c in "${AT_EXIT[@]}"; do eval "$c" || true; done
  # Under -fsanitize, a daemon's report lands in its log: that fails the test.
  if [ -n "$T" ] && grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$T"/*.log >/dev/null 2>&1; then
    echo "FAIL: sanitizer report in $(grep -lE 'Sanitizer|runtime error:' "$T"/*.log | tr '\n' ' ')" >&2
    rc=1
  fi
  if [ $rc -ne 0 ] && [ -n "$T" ]; then
    for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done >&2
  fi
  if [ -n "$T" ] && [ -n "${IOFLEET_KEEP:-}" ]; then echo "kept $T" >&2; elif [ -n "$T" ]; then rm -rf "$T"; fi
  exit $rc
}
trap cleanup EXIT INT TERM

fleet_setup () {
  # O_DIRECT needs a real file system: not tmpfs.
  T=$(mktemp -d "${IOFLEET_TEST_DIR:-/var/tmp}/iofleet-test.XXXXXX")
  export IOFLEET_CONTROLLER="ipc://$T/admin.sock"
}

# start_controller [extra args]: sets CTL_PID and AGENT_EP.
# A configuration file on this machine (/etc/iofleet) never leaks into a
# test: --no-config unless the test passes --config itself.
no_config () { [[ " $* " == *" --config "* ]] || echo --no-config; }

start_controller () {
  rm -f "$T/agent-endpoint"
  # shellcheck disable=SC2046
  "$BIN/iofleet-controller" $(no_config "$@") --db "${DB:-$T/iofleet.db}" --listen "${LISTEN:-tcp://127.0.0.1:*}" \
      --admin "$IOFLEET_CONTROLLER" --port-file "$T/agent-endpoint" "$@" \
      >>"$T/controller.log" 2>&1 &
  CTL_PID=$!
  PIDS+=("$CTL_PID")
  for _ in $(seq 100); do
    [ -s "$T/agent-endpoint" ] && break
    kill -0 "$CTL_PID" 2>/dev/null || fail "controller exited at start"
    sleep 0.05
  done
  [ -s "$T/agent-endpoint" ] || fail "controller did not write its endpoint"
  AGENT_EP=$(cat "$T/agent-endpoint")
}

stop_controller () {
  kill -TERM "$CTL_PID"
  wait "$CTL_PID" || fail "controller exited with $? on SIGTERM"
}

# start_agent NAME [extra args]
start_agent () {
  local name=$1; shift
  mkdir -p "$T/$name"
  # shellcheck disable=SC2046
  "$BIN/iofleet-agent" $(no_config "$@") --controller "$AGENT_EP" --name "$name" --workdir "$T/$name" \
      --spool-dir "$T/$name.spool" "$@" \
      >>"$T/$name.log" 2>&1 &
  PIDS+=("$!")
}

# wait_agents N: until N agents are connected (30 s: after a controller
# restart, agents come back on their reconnect backoff, slower on a
# loaded machine).
wait_agents () {
  for _ in $(seq 300); do
    n=$("$BIN/iofleet" agents --json 2>/dev/null | jq '[.[] | select(.connected)] | length' || echo 0)
    [ "$n" -ge "$1" ] && return 0
    sleep 0.1
  done
  fail "only $n of $1 agents connected"
}

# wait_run RUN: waits (up to 90 s) until the run is neither queued nor
# running, and prints its status.
wait_run () {
  local s=""
  for _ in $(seq 900); do
    s=$("$BIN/iofleet" runs --json | jq -r --argjson r "$1" '.[] | select(.id == $r) | .status')
    [ "$s" = running ] || [ "$s" = queued ] || break
    sleep 0.1
  done
  echo "$s"
}

# slow_agent PID, then unslow_agent_after RUN: the agent PID made slow
# from now until RUN is neither queued nor running (slow it before RUN
# starts, so that every interval of RUN is alike).  As root, where the
# file system of $T is on a block device and a blkio (v1) or io (v2)
# cgroup can throttle it, its reads are held to 200 IOPS: a slow drive,
# whatever else the machine runs.  Otherwise the agent is stopped 15/16 of
# every 200 ms by a stopper of its own, which a loaded machine blurs: an
# agent that got the CPU in short slices once did 45% of its baseline's
# I/O, and stops of 0.6 s left a baseline's noise (40% per interval,
# beside a second suite) the bigger figure.
SLOW_CG=""
SLOW_PID=""
SLOW_STOPPER=""
slow_agent () {
  local dev parent
  SLOW_PID=$1
  if [ -z "$SLOW_CG" ] && [ "$(id -u)" = 0 ]; then
    dev=$(df --output=source "$T" 2>/dev/null | tail -1)
    if [ -b "$dev" ]; then
      # A partition is throttled through its disk; a dm device as it is.
      if [ "$(lsblk -dno TYPE "$dev" 2>/dev/null)" = part ]; then
        parent=$(lsblk -no PKNAME "$dev" 2>/dev/null | head -1)
        [ -n "$parent" ] && dev=/dev/$parent
      fi
      if throttle_cgroups_found; then
        read_throttle_cgroup iofleet-slow "$dev"
        SLOW_CG=$CG
      fi
    fi
  fi
  [ -n "$SLOW_CG" ] || SLOW_CG=none
  if [ "$SLOW_CG" != none ]; then
    echo "$SLOW_PID" >"$SLOW_CG/cgroup.procs"
    set_read_throttle 200
  else
    ( trap 'kill -CONT '"$SLOW_PID"' 2>/dev/null; exit 0' TERM
      while :; do kill -STOP "$SLOW_PID"; sleep 0.1875; kill -CONT "$SLOW_PID"; sleep 0.0125; done ) &
    SLOW_STOPPER=$!
    AT_EXIT+=("kill -TERM $SLOW_STOPPER 2>/dev/null; kill -CONT $SLOW_PID 2>/dev/null")
  fi
}
unslow_agent_after () {
  for _ in $(seq 900); do
    case $("$BIN/iofleet" runs --json | jq -r --argjson r "$1" '.[] | select(.id == $r) | .status') in
      queued|running|"") sleep 0.1 ;;
      *) break ;;
    esac
  done
  if [ "$SLOW_CG" != none ]; then
    set_read_throttle 0
  else
    kill -TERM "$SLOW_STOPPER" 2>/dev/null || true
    wait "$SLOW_STOPPER" 2>/dev/null || true
    kill -CONT "$SLOW_PID" 2>/dev/null || true
  fi
}

# connected PID: until process PID holds a socket (its admin connection:
# libzmq's own signalling is eventfds), then a little more for the
# handshake and the request.
connected () {
  for _ in $(seq 300); do
    ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'socket:' && { sleep 0.5; return 0; }
    kill -0 "$1" 2>/dev/null || fail "pid $1 exited before it connected"
    sleep 0.05
  done
  fail "pid $1 did not connect"
}

# probe_plan NAME RUNTIME [OPTION...]: adds plan NAME, one step "probe" of
# 4k random reads at QD4 on probe.dat in each agent's workdir, plus OPTIONs.
# The fleet series kept at ingest (fleet_intervals) equals the sum of the
# snapshots of each interval of RUN's step STEP (default 0): the agents
# delivering it and their read and write ops.
check_fleet_intervals () {
  local run=$1 step=${2:-0} db=${DB:-$T/iofleet.db} got want
  got=$(sqlite3 "$db" "SELECT group_concat(seq || ':' || agents || ':' || read_ops || ':' || write_ops, ',') FROM (SELECT * FROM fleet_intervals WHERE run_id = $run AND step_idx = $step ORDER BY seq)")
  want=$(sqlite3 "$db" "SELECT group_concat(seq || ':' || n || ':' || r || ':' || w, ',') FROM (SELECT seq, COUNT(DISTINCT agent_id) n, SUM(read_ops) r, SUM(write_ops) w FROM snapshots WHERE run_id = $run AND step_idx = $step GROUP BY seq ORDER BY seq)")
  [ -n "$want" ] || fail "run $run step $step has no snapshots"
  [ "$got" = "$want" ] || fail "fleet_intervals of run $run step $step: $got; the snapshots say $want"
}

probe_plan () {
  local name=$1 runtime=$2
  shift 2
  {
    printf '[probe]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nsize=16m\n'
    printf 'filename=probe.dat\nruntime=%s\ntime_based\n' "$runtime"
    for o in "$@"; do printf '%s\n' "$o"; done
  } >"$T/$name.fio"
  "$BIN/iofleet" plan add "$name" "$T/$name.fio" >/dev/null || fail "plan add $name"
}

# chrome ARGS...: a real headless Chromium (CHROME; chrome_found says
# whether there is one) with its own profile, process group and time
# limit; whatever it leaves is killed by process group id at exit.
CHROME=$(command -v chromium || command -v chromium-browser || true)
chrome_found () { [ -n "$CHROME" ]; }
chrome () {
  setsid timeout 45 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --no-first-run --disable-extensions --disable-background-networking --disable-sync \
      --user-data-dir="$T/chrome-profile" --enable-logging=stderr --v=0 "$@" &
  local pid=$!
  AT_EXIT+=("kill -KILL -- -$pid 2>/dev/null")
  wait "$pid"
}

# read_throttle_cgroup NAME DEV: a blkio (cgroup v1) or io (v2) cgroup
# named NAME, its directory in CG, removed at exit (after the test's
# processes, which cleanup stops first), whose tasks DEV serves at the
# rates set_throttle sets: set_throttle riops|wiops|wbps N (0: no limit);
# set_read_throttle N is set_throttle riops N.  Exits 77 (skip) where
# neither controller is there.
# Whether read_throttle_cgroup finds a controller to throttle with.
throttle_cgroups_found () {
  local v1 m
  v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
  [ -n "$v1" ] && [ -f "$v1/blkio.throttle.read_iops_device" ] && return 0
  for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
    grep -qw io "$m/cgroup.controllers" 2>/dev/null && return 0
  done
  return 1
}
read_throttle_cgroup () {
  local v1="" v2="" m
  v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
  for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
    grep -qw io "$m/cgroup.controllers" 2>/dev/null && { v2=$m; break; }
  done
  THROTTLE_MM=$(lsblk -dno MAJ:MIN "$2" | tr -d ' ')
  if [ -n "$v1" ] && [ -f "$v1/blkio.throttle.read_iops_device" ]; then
    CG=$v1/$1-$$
    CG_V=1
  elif [ -n "$v2" ]; then
    grep -qw io "$v2/cgroup.subtree_control" || {
      echo "+io" >"$v2/cgroup.subtree_control"
      AT_EXIT+=("echo -io >$v2/cgroup.subtree_control")
    }
    CG=$v2/$1-$$
    CG_V=2
  else
    echo "skip: needs cgroup v1 blkio or cgroup v2 io"
    exit 77
  fi
  mkdir "$CG"
  AT_EXIT+=("rmdir $CG")
}
set_throttle () {
  local v1file
  case "$1" in
    riops) v1file=read_iops_device ;;
    wiops) v1file=write_iops_device ;;
    wbps) v1file=write_bps_device ;;
    *) fail "set_throttle: $1" ;;
  esac
  if [ "$CG_V" = 1 ]; then
    echo "$THROTTLE_MM $2" >"$CG/blkio.throttle.$v1file"
  elif [ "$2" = 0 ]; then
    echo "$THROTTLE_MM $1=max" >"$CG/io.max"
  else
    echo "$THROTTLE_MM $1=$2" >"$CG/io.max"
  fi
}
set_read_throttle () { set_throttle riops "$1"; }
