#!/usr/bin/env bash
# The agent's write guard on real block devices.  Builds small loop devices
# (64 MiB files under /var/tmp, direct I/O) in the states that must never be
# written, plus a blank one:
#   mounted      ext4 on the whole device, mounted
#   partition    ext4 on partition 1, the partition mounted (fio misses this)
#   parted       a partition table, the partition not mounted
#   formatted    ext4, not mounted
#   swap         mkswap + swapon
#   holder       a dm-linear device on top (skipped where there is no dm)
#   hidden       ext4 mounted in another mount namespace only, as a
#                container would: not in the agent's mount table, but
#                claimed in the kernel (skipped without unshare)
#   blank        nothing on it
# and runs a write plan (rw=write, bs=64k, size=4m, direct=1) against each
# through a symlink, as a /dev/disk/by-id name would be, from a controller
# and one agent whose --allow and --allow-write cover them all.  Only the
# blank one may be written; every other run must be REFUSED naming its rule,
# and the device must read the same before and after (sha256sum).  Then:
# a target outside --allow (rule allow) and one allowed but not writable
# (rule allow-write); `iofleet-agent run` (local mode) refusing the same way;
# and an agent restarted with --allow-write-formatted for the formatted
# device, which it then writes, while the mounted one stays refused.
#
# usage: tests/fleet/writeguard.sh        (IOFLEET_BIN: default build/bin)
#
# Root only: exits 77 (ctest's skip code) with a "skip:" line otherwise.
# Everything it creates is removed on exit, pass or fail: mounts, swap, dm
# devices, loop devices, files.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${IOFLEET_BIN:-$ROOT/build/bin}
DISK_MIB=64

skip () { echo "skip: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mount, swapon)"
command -v losetup >/dev/null || skip "needs losetup (util-linux)"
for c in mkfs.ext4 sfdisk mkswap swapon swapoff mount umount jq sha256sum timeout; do
  command -v "$c" >/dev/null || skip "needs $c"
done

ok () { echo "ok: $*"; }
say () { echo "writeguard: $*"; }
fail () { echo "FAIL: $*" >&2; exit 1; }

T=""
PIDS=()
MOUNTS=()
SWAPS=()
DMS=()
FILES=()

stop_pid () {   # TERM, up to 5 s, then KILL; by PID only
  local p
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}

cleanup () {
  local rc=$? m s d f l left=""
  trap '' INT TERM
  set +e
  [ ${#PIDS[@]} -gt 0 ] && stop_pid "${PIDS[@]}"
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  for s in "${SWAPS[@]}"; do swapoff "$s" 2>/dev/null; done
  for d in "${DMS[@]}"; do dmsetup remove "$d" 2>/dev/null; done
  # Every loop device over our files, whether or not losetup lived to tell.
  for f in "${FILES[@]}"; do
    for l in $(losetup -n -O NAME -j "$f" 2>/dev/null); do losetup -d "$l"; done
  done
  if [ -n "$T" ] && grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$T"/*.log 2>/dev/null; then
    echo "FAIL: sanitizer report in $(grep -lE 'Sanitizer|runtime error:' "$T"/*.log | tr '\n' ' ')" >&2
    rc=1
  fi
  if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "$T" ]; then
    for f in "$T"/*.log; do [ -s "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done >&2
  fi
  # Nothing of ours may remain.  A loop device that udev is still probing
  # (blkid opens each new one) is detached when that probe closes it: on
  # a loaded machine that took longer than the 2 s this once waited, so
  # udev is let settle and the device given 10 s to go.
  if [ -n "$T" ]; then
    command -v udevadm >/dev/null && udevadm settle --timeout=10 2>/dev/null
    for _ in $(seq 100); do
      left=""
      grep -qF " $T/" /proc/self/mountinfo && left+=" mounts"
      losetup -a 2>/dev/null | grep -qF "$T/" && left+=" loop-devices"
      for d in "${DMS[@]}"; do dmsetup info "$d" >/dev/null 2>&1 && left+=" dm:$d"; done
      [ -z "$left" ] && break
      sleep 0.1
    done
    if [ -n "$left" ]; then
      echo "FAIL: left behind:$left" >&2
      [ $rc -eq 0 ] && rc=1
    fi
    rm -rf "$T"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for b in iofleet-controller iofleet-agent iofleet; do
  [ -x "$BIN/$b" ] || fail "$BIN/$b is missing (build first, or set IOFLEET_BIN)"
done
BIN=$(cd "$BIN" && pwd)     # the local runs below work from another directory

# O_DIRECT needs a real file system under the loop files: not tmpfs.
T=$(mktemp -d "${IOFLEET_TEST_DIR:-/var/tmp}/iofleet-writeguard.XXXXXX")
mkdir "$T/work" "$T/by-id" "$T/mnt-mounted" "$T/mnt-partition" "$T/mnt-hidden"

declare -A DEV             # case -> /dev/loopN
CASES=()
new_loop () {   # new_loop CASE [losetup options]: a blank 64 MiB loop device
  local name=$1 f=$T/$1.img
  shift
  FILES+=("$f")
  truncate -s "${DISK_MIB}M" "$f"
  DEV[$name]=$(losetup --direct-io=on "$@" -f --show "$f")
  CASES+=("$name")
  # The plans name devices through a symlink, as /dev/disk/by-id does.
  ln -s "${DEV[$name]}" "$T/by-id/$name"
}

MKFS=(mkfs.ext4 -q -F)
# Mounted read-only: a read-write ext4 updates its own superblock and journal
# now and then, and the devices must read the same before and after.  The
# guard goes by the mount table, which lists both alike.

new_loop mounted
"${MKFS[@]}" "${DEV[mounted]}"
mount -o ro "${DEV[mounted]}" "$T/mnt-mounted"
MOUNTS+=("$T/mnt-mounted")

new_loop partition -P
echo 'start=2048, type=83' | sfdisk -q "${DEV[partition]}" >/dev/null
# Kernels without their own DOS partition parser leave it to partx (BLKPG).
[ -b "${DEV[partition]}p1" ] || partx -a "${DEV[partition]}" 2>/dev/null || true
for _ in $(seq 50); do [ -b "${DEV[partition]}p1" ] && break; sleep 0.1; done
[ -b "${DEV[partition]}p1" ] || fail "${DEV[partition]}p1 did not appear after sfdisk"
"${MKFS[@]}" "${DEV[partition]}p1"
mount -o ro "${DEV[partition]}p1" "$T/mnt-partition"
MOUNTS+=("$T/mnt-partition")

new_loop parted
echo 'start=2048, type=83' | sfdisk -q --no-reread --no-tell-kernel "${DEV[parted]}" >/dev/null

new_loop formatted
"${MKFS[@]}" "${DEV[formatted]}"

new_loop swap
mkswap -q "${DEV[swap]}" 2>/dev/null || mkswap "${DEV[swap]}" >/dev/null
swapon "${DEV[swap]}"
SWAPS+=("${DEV[swap]}")

new_loop holder
DM=iofleet-wg-$$
if out=$(dmsetup create "$DM" --table "0 $((DISK_MIB * 2048)) linear ${DEV[holder]} 0" 2>&1); then
  DMS+=("$DM")
  HAVE_DM=1
else
  HAVE_DM=0
  say "skip: case holder: device-mapper is not available here ($(echo "$out" | head -1))"
fi

HAVE_NS=0
if command -v unshare >/dev/null; then
  new_loop hidden
  "${MKFS[@]}" "${DEV[hidden]}"
  # The namespace lives as long as this shell; its mount goes with it.
  unshare --mount --propagation private sh -c \
    "mount -o ro '${DEV[hidden]}' '$T/mnt-hidden' && touch '$T/hidden.ready' && exec sleep 600" \
    >>"$T/hidden.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 50); do [ -e "$T/hidden.ready" ] && break; sleep 0.1; done
  if [ -e "$T/hidden.ready" ]; then
    HAVE_NS=1
    grep -qF " $T/mnt-hidden " /proc/self/mountinfo && fail "the hidden mount is visible here"
  else
    say "skip: case hidden: cannot mount in a private mount namespace ($(head -1 "$T/hidden.log"))"
  fi
else
  say "skip: case hidden: needs unshare"
fi

new_loop blank
sync
ok "loop devices: $(for c in "${CASES[@]}"; do printf '%s=%s ' "$c" "${DEV[$c]}"; done)"

# Outside every --allow: a file; allowed but not writable: another.
head -c 1M /dev/urandom >"$T/outside.dat"
head -c 8M /dev/urandom >"$T/readonly.dat"

# --- controller and agent ---------------------------------------------------
export IOFLEET_CONTROLLER="ipc://$T/admin.sock"
"$BIN/iofleet-controller" --db "$T/iofleet.db" --listen "tcp://127.0.0.1:*" \
    --admin "$IOFLEET_CONTROLLER" --port-file "$T/agent-endpoint" >>"$T/controller.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do [ -s "$T/agent-endpoint" ] && break; sleep 0.05; done
[ -s "$T/agent-endpoint" ] || fail "controller did not write its endpoint"
EP=$(cat "$T/agent-endpoint")

AGENT_PID=""
start_agent () {    # start_agent [extra args]: the one agent, wg-agent
  local args=() c
  for c in "${CASES[@]}"; do args+=(--allow "${DEV[$c]}" --allow-write "${DEV[$c]}"); done
  "$BIN/iofleet-agent" --controller "$EP" --name wg-agent --workdir "$T/work" --spool-dir "$T/spool" "${args[@]}" \
      --allow "$T/readonly.dat" "$@" >>"$T/agent.log" 2>&1 &
  AGENT_PID=$!
  PIDS+=("$AGENT_PID")
  local n=0
  for _ in $(seq 100); do
    n=$("$BIN/iofleet" agents --json 2>/dev/null \
        | jq '[.[] | select(.name == "wg-agent" and .connected)] | length' || echo 0)
    [ "$n" -ge 1 ] && return 0
    sleep 0.1
  done
  fail "the agent did not connect"
}
start_agent

PLANS=0
NREFUSED=0
# run_write TARGET: runs a one-step write plan on TARGET; sets STATUS (the
# agent's status in the report) and MSG (its message).
run_write () {
  PLANS=$((PLANS + 1))
  local name=wg-$PLANS
  printf '[write]\nioengine=libaio\ndirect=1\nrw=write\nbs=64k\nsize=4m\nfilename=%s\n' "$1" \
    >"$T/$name.fio"
  "$BIN/iofleet" plan add "$name" "$T/$name.fio" >/dev/null || fail "plan add $name"
  timeout 60 "$BIN/iofleet" run "$name" --agents wg-agent --wait --json >"$T/$name.json" \
    2>"$T/$name.err" || true
  STATUS=$(jq -r '.report.steps[0].agents[0].status // "none"' "$T/$name.json" 2>/dev/null || echo none)
  MSG=$(jq -r '.report.steps[0].agents[0].message // ""' "$T/$name.json" 2>/dev/null || true)
}

# The swap area's first page is its header, which the kernel never swaps
# into; the plan's first write lands on it.  Elsewhere the kernel may
# legitimately write, so for swap only that page is compared.
digest () {
  if [ "$1" = swap ]; then
    head -c 4096 "${DEV[$1]}" | sha256sum | cut -c1-16
  else
    sha256sum <"${DEV[$1]}" | cut -c1-16
  fi
}

# expect_refused CASE RULE [TARGET]: the write plan on CASE is refused
# naming RULE, and the device is unchanged.
expect_refused () {
  local c=$1 rule=$2 target=${3:-$T/by-id/$1}
  local before after
  before=$(digest "$c")
  run_write "$target"
  after=$(digest "$c")
  [ "$STATUS" = refused ] || fail "$c (${DEV[$c]}): agent status '$STATUS', want refused: $MSG"
  [[ $MSG == *"(rule: $rule)"* ]] || fail "$c (${DEV[$c]}): refused without naming rule $rule: $MSG"
  [[ $MSG == *"${DEV[$c]}"* ]] || fail "$c: the message does not name the resolved ${DEV[$c]}: $MSG"
  [ "$before" = "$after" ] || fail "$c (${DEV[$c]}) changed: sha256 $before -> $after"
  NREFUSED=$((NREFUSED + 1))
  ok "$c ${DEV[$c]}: REFUSED (rule: $rule), sha256 $before unchanged: $MSG"
}

expect_written () {
  local c=$1 before after
  before=$(digest "$c")
  run_write "$T/by-id/$c"
  after=$(digest "$c")
  [ "$STATUS" = done ] || fail "$c (${DEV[$c]}): agent status '$STATUS', want done: $MSG"
  [ "$before" != "$after" ] || fail "$c (${DEV[$c]}): written, yet its sha256 is still $before"
  local bytes
  bytes=$(jq '.report.steps[0].agents[0].targets[0].write.bytes' "$T/wg-$PLANS.json")
  [ "$bytes" = $((4 << 20)) ] || fail "$c: wrote $bytes bytes, want 4 MiB"
  ok "$c ${DEV[$c]}: written (4 MiB), sha256 $before -> $after"
}

# --- the guard ---------------------------------------------------------------
expect_refused mounted mounted
expect_refused partition mounted
[[ $MSG == *"partition ${DEV[partition]#/dev/}p1 is mounted"* ]] \
  || fail "partition: the message does not name the mounted partition: $MSG"
expect_refused parted signature
[[ $MSG == *"partition table (dos)"* ]] || fail "parted: $MSG"
expect_refused formatted signature
[[ $MSG == *"file system (ext4)"* && $MSG == *"--allow-write-formatted"* ]] || fail "formatted: $MSG"
expect_refused swap swap
if [ "$HAVE_DM" = 1 ]; then
  expect_refused holder holders
fi
if [ "$HAVE_NS" = 1 ]; then
  expect_refused hidden in-use
fi
expect_written blank

# --- allow and allow-write ---------------------------------------------------
before=$(sha256sum <"$T/outside.dat")
run_write "$T/outside.dat"
[ "$STATUS" = refused ] && [[ $MSG == *"(rule: allow)"* ]] \
  || fail "outside --allow: status '$STATUS': $MSG"
[ "$before" = "$(sha256sum <"$T/outside.dat")" ] || fail "outside.dat changed"
ok "a target outside --allow: REFUSED (rule: allow): $MSG"
before=$(sha256sum <"$T/readonly.dat")
run_write "$T/readonly.dat"
[ "$STATUS" = refused ] && [[ $MSG == *"(rule: allow-write)"* ]] \
  || fail "allowed, not writable: status '$STATUS': $MSG"
[ "$before" = "$(sha256sum <"$T/readonly.dat")" ] || fail "readonly.dat changed"
ok "a file under --allow only: REFUSED (rule: allow-write): $MSG"

# --- local mode (iofleet-agent run) -------------------------------------------
for c in mounted parted; do
  printf '[write]\nioengine=libaio\ndirect=1\nrw=write\nbs=64k\nsize=4m\nfilename=%s\n' \
    "$T/by-id/$c" >"$T/local-$c.fio"
  before=$(digest "$c")
  rc=0
  (cd "$T/work" && timeout 30 "$BIN/iofleet-agent" run "$T/local-$c.fio") \
    >"$T/local-$c.out" 2>"$T/local-$c.err" || rc=$?
  [ $rc -ne 0 ] || fail "local run on $c (${DEV[$c]}) exited 0"
  rule=$([ "$c" = mounted ] && echo mounted || echo signature)
  grep -qF "(rule: $rule)" "$T/local-$c.err" || fail "local run on $c: $(cat "$T/local-$c.err")"
  [ "$before" = "$(digest "$c")" ] || fail "local run changed $c (${DEV[$c]})"
  ok "iofleet-agent run on $c ${DEV[$c]}: refused (rule: $rule), exit $rc, unchanged"
done

# --- --allow-write-formatted lifts the signature rule, and only it ----------
stop_pid "$AGENT_PID"
start_agent --allow-write-formatted "${DEV[formatted]}" --allow-write-formatted "${DEV[mounted]}"
expect_written formatted
expect_refused mounted mounted
expect_refused parted signature
ok "--allow-write-formatted: the formatted device written; the mounted one (also named) still refused (rule: mounted); the partitioned one (not named) still refused (rule: signature)"

ok "write guard: $NREFUSED refusals of unsafe devices, each naming its rule, none changed; the blank and the lifted formatted device written$([ "$HAVE_DM" = 1 ] || echo "; holder case skipped (no device-mapper)")$([ "$HAVE_NS" = 1 ] || echo "; hidden case skipped")"
