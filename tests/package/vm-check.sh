#!/usr/bin/env bash
# The Debian packages in a real Debian 12 machine, booted with systemd as
# PID 1.  Manual (not run by ctest), root only; about 4 minutes with a
# near mirror (debootstrap 1-2, the VM 2), and the VM is given at most 20
# (IOFLEET_VM_TIMEOUT, in seconds).
#
# A container has no systemd of its own to start units, and nested KVM is
# often missing: this builds a minimal Debian 12 (bookworm) root with
# debootstrap, copies the packages built by 'make package' into it, and
# boots it under qemu software emulation (-accel tcg).  A one-shot unit in
# the guest then checks, under the real systemd:
#
#   1. dpkg -i of the three packages: controller started, agent enabled but
#      not started (the postinst says why); systemd-analyze verify and
#      security of both units
#   2. an agent configured as deploy.md says: it connects with the
#      packages' release; a libaio plan on a file in its workdir and an
#      io_uring O_DIRECT write plan on a raw virtio disk (/dev/vdb)
#   3. journal priorities; a bad key in controller.conf: exit status 2,
#      not restarted, the message at PRIORITY=3
#   4. a database that cannot be opened: exit status 3, not restarted
#   5. an upgrade with a configuration the new release refuses: the
#      postinst says 'not restarted' and the running controller stays
#   6. a schema-11 database: --check-config notes the backup; starting
#      backs it up (iofleet, 0600) and migrates it; its run is still there
#   7. kill -9: systemd restarts the controller
#   8. purge: nothing left but the user and group iofleet, which own nothing
#
# then powers the guest off; the results are read back from its disk image.
# Prints each check's 'ok:' or 'FAIL:' line; exits 1 on any FAIL (or no
# results), 77 (skipped) when not root or a tool is missing.
#
#   --debs DIR     the packages (default: build/packages of this repository)
#   --mirror URL   the Debian mirror (default $IOFLEET_VM_MIRROR, else the
#                  first one this host's apt sources name); needs network
#                  access to it
#   --keep         keep the work directory (root, images, logs) for debugging
#
# Needs debootstrap, qemu-system-x86 and e2fsprogs (missing ones are
# installed with apt-get when possible) and about 2 GB in /var/tmp.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# The mirror this host's apt already uses (deb822 .sources, or sources.list).
host_mirror () {
  { sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null
    sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
  } | grep -v -e security -e '^$' | head -n 1 || true
}
MIRROR=${IOFLEET_VM_MIRROR:-}
DEBS=$REPO/build/packages
KEEP=0
VM_TIMEOUT=${IOFLEET_VM_TIMEOUT:-1200}   # seconds for boot, checks and power-off
PKGS=(iofleet-controller iofleet-agent iofleet-cli)
INCLUDE=systemd,systemd-sysv,dbus,adduser,init-system-helpers,libzmq5,libczmq4,libjansson4,libprotobuf-c1,libsqlite3-0,libaio1,liburing2,libblkid1,zlib1g,jq,procps,sqlite3,linux-image-amd64,initramfs-tools,e2fsprogs,util-linux
GUEST_DIR=/root/iofleet-vm               # in the guest: packages, check script, results

fail () { echo "FAIL: $*" >&2; exit 1; }
ok () { echo "ok: $*"; }
skip () { echo "SKIP: $*" >&2; exit 77; }
say () { echo "-- $*"; }
usage () { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case $1 in
    --keep) KEEP=1 ;;
    --mirror) [ $# -ge 2 ] || usage 2; MIRROR=$2; shift ;;
    --mirror=*) MIRROR=${1#*=} ;;
    --debs) [ $# -ge 2 ] || usage 2; DEBS=$2; shift ;;
    --debs=*) DEBS=${1#*=} ;;
    -h|--help) usage 0 ;;
    *) echo "unknown argument: $1" >&2; usage 2 ;;
  esac
  shift
done

[ "$(id -u)" -eq 0 ] || skip "root only (debootstrap, mkfs -d with owners)"
[ -n "$MIRROR" ] || MIRROR=$(host_mirror)
[ -n "$MIRROR" ] || skip "no Debian mirror: this host's apt sources name none; pass --mirror URL"

declare -A DEB
for p in "${PKGS[@]}"; do
  mapfile -t found < <(ls "$DEBS"/"$p"_*.deb 2>/dev/null)
  [ ${#found[@]} -gt 0 ] || fail "no ${p}_*.deb in $DEBS: build them first (make package), or give --debs DIR"
  [ ${#found[@]} -eq 1 ] || fail "more than one ${p}_*.deb in $DEBS: ${found[*]}"
  DEB[$p]=${found[0]}
done
if command -v git >/dev/null && git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  last=$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 0)
  for p in "${PKGS[@]}"; do
    [ "$(stat -c %Y "${DEB[$p]}")" -ge "$last" ] \
      || echo "note: ${DEB[$p]} is older than the last commit (make package rebuilds it)"
  done
fi

# Tools: install what is missing (Debian/Ubuntu hosts), or skip.
declare -A TOOLPKG=([debootstrap]=debootstrap [qemu-system-x86_64]=qemu-system-x86
                    [mkfs.ext4]=e2fsprogs [debugfs]=e2fsprogs)
missing=()
for t in "${!TOOLPKG[@]}"; do
  command -v "$t" >/dev/null || missing+=("${TOOLPKG[$t]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  command -v apt-get >/dev/null || skip "missing: ${missing[*]} (and no apt-get to install them)"
  echo "installing: ${missing[*]} (apt-get install --no-install-recommends)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    || skip "could not install ${missing[*]}"
fi
for t in "${!TOOLPKG[@]}" timeout findmnt setsid truncate; do
  command -v "$t" >/dev/null || skip "$t not installed"
done

W=
QPID=
DPID=
cleanup () {
  local rc=${1:-$?} m
  trap - EXIT INT TERM
  set +e
  for pid in "$QPID" "$DPID"; do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    # debootstrap runs in a session of its own (setsid): its dpkg and
    # chroot children go with it.
    if [ "$pid" = "$DPID" ]; then kill -TERM -- "-$pid"; else kill -TERM "$pid"; fi
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if [ "$pid" = "$DPID" ]; then kill -KILL -- "-$pid"; else kill -KILL "$pid"; fi
    wait "$pid"
  done 2>/dev/null
  if [ -n "$W" ] && [ -d "$W" ]; then
    # An interrupted debootstrap leaves /proc, /sys... mounted in the root.
    findmnt -rn -o TARGET | grep -F "$W/" | sort -r | while read -r m; do umount -l "$m"; done
    if [ "$KEEP" = 1 ]; then
      echo "kept: $W (root/, disk.img, disk2.img, console.log, results)"
    elif findmnt -rn -o TARGET | grep -qF "$W/"; then
      echo "cleanup: file systems still mounted under $W: not removed" >&2
    else
      rm -rf --one-file-system "$W"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'cleanup 130' INT
trap 'cleanup 143' TERM

start=$SECONDS
W=$(mktemp -d /var/tmp/iofleet-vm-check.XXXXXX)
ROOT=$W/root
IMG=$W/disk.img
DISK2=$W/disk2.img

# --- the guest's root file system -------------------------------------------
say "debootstrap bookworm from $MIRROR (a few minutes)"
setsid debootstrap --variant=minbase --include="$INCLUDE" bookworm "$ROOT" "$MIRROR" \
  >"$W/debootstrap.log" 2>&1 </dev/null &
DPID=$!
rc=0; wait "$DPID" || rc=$?
DPID=
if [ $rc -ne 0 ]; then
  tail -n 20 "$W/debootstrap.log" >&2
  fail "debootstrap exited with $rc (network access to $MIRROR?)"
fi
kernels=("$ROOT"/boot/vmlinuz-*)
initrds=("$ROOT"/boot/initrd.img-*)
[ -f "${kernels[0]}" ] && [ -f "${initrds[0]}" ] || fail "no kernel or initrd in $ROOT/boot: $(ls "$ROOT/boot")"
ok "debootstrap: Debian 12 with $(basename "${kernels[0]}") in $((SECONDS - start)) s"

G=$ROOT$GUEST_DIR
mkdir -p "$G/debs"
cp "${DEB[@]}" "$G/debs/"
cp "$REPO/tests/fixtures/upgrade/schema11.db" "$G/"
echo iofleet-vm >"$ROOT/etc/hostname"
# Nothing else may take the dpkg lock or touch the disks while the checks run.
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
  ln -sf /dev/null "$ROOT/etc/systemd/system/$t"
done
# (Not named iofleet-*: the purge check looks for what is left by that name.)
cat >"$ROOT/etc/systemd/system/vm-check.service" <<EOF
[Unit]
Description=iofleet package checks (tests/package/vm-check.sh)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=$GUEST_DIR/check.sh
# Whatever happened: power off, so that qemu exits.
ExecStopPost=/bin/systemctl --no-block poweroff
TimeoutStartSec=15min
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -sf ../vm-check.service "$ROOT/etc/systemd/system/multi-user.target.wants/vm-check.service"

# The checks, run in the guest as root by vm-check.service.  Each
# writes 'ok: ...' or 'FAIL: ...' to $GUEST_DIR/results; command output
# goes to $GUEST_DIR/check.log.
cat >"$G/check.sh" <<'GUEST'
#!/bin/bash
set -uo pipefail
D=/root/iofleet-vm
R=$D/results
L=$D/check.log
C=iofleet-controller.service
A=iofleet-agent.service
CONF=/etc/iofleet/controller.conf
DB=/var/lib/iofleet/iofleet.db
: >"$R"
exec 3>>"$L"
FAILS=0
ok () { echo "ok: $*" | tee -a "$R"; }
# (one line each: a message's line breaks become ' | ')
fail () { echo "FAIL: $(printf '%s' "$*" | tr -s '\n' '|' | sed 's/|/ | /g')" | tee -a "$R"; FAILS=$((FAILS + 1)); }
log () { echo "--- $*" >&3; }
prop () { systemctl show -p "$2" --value "$1"; }
active () { [ "$(systemctl is-active "$1")" = active ]; }
# wait_for SECS CMD...: CMD until it succeeds, at most SECS seconds.
wait_for () {
  local n=$(($1 * 2)) i
  shift
  for ((i = 0; i < n; i++)); do "$@" && return 0; sleep 0.5; done
  return 1
}
# The CLI as root, without a login session's environment.
cli () { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /usr/bin/iofleet "$@"; }
# journal_c: the controller unit's journal, one 'PRIORITY<tab>MESSAGE' a line,
# its own lines only (not systemd's about it).
journal_c () {
  journalctl -u "$C" -o json --no-pager \
    | jq -r 'select(.SYSLOG_IDENTIFIER == "iofleet-controller")
             | "\(.PRIORITY)\t\(.MESSAGE | if type == "string" then . else tostring end)"'
}
# bad_conf: an unknown key in controller.conf (the good one kept).
bad_conf () { cp -p "$CONF" "$D/controller.conf.good"; printf '\nbogus-key = 1\n' >>"$CONF"; }
good_conf () { cp -p "$D/controller.conf.good" "$CONF"; }

log "$(date): $(uname -a)"
if [ "$(ps -o comm= -p 1)" = systemd ]; then
  ok "booted: $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }') as PID 1"
else
  fail "PID 1 is $(ps -o comm= -p 1), not systemd"
fi

# --- 1. install ----------------------------------------------------------
if dpkg -i "$D"/debs/*.deb >"$D/install.log" 2>&1; then
  ok "dpkg -i of the three packages: exit 0"
else
  fail "dpkg -i: $(tail -n 5 "$D/install.log")"
fi
cat "$D/install.log" >&3
VERSION=$(dpkg-query -W -f='${Version}' iofleet-agent)
RELEASE=${VERSION%-*}
UNITDIR=$(dirname "$(dpkg -L iofleet-controller | grep '/iofleet-controller\.service$')")
if active "$C"; then
  ok "controller active after installation ($VERSION, MainPID $(prop "$C" MainPID))"
else
  fail "controller not active after installation: $(systemctl is-active "$C")"
fi
en=$(systemctl is-enabled "$A"); st=$(systemctl is-active "$A")
msg=$(grep -m1 'iofleet-agent: not started' "$D/install.log")
if [ "$en" = enabled ] && [ "$st" != active ] && [ -n "$msg" ]; then
  ok "agent $en, $st; postinst: '$msg'"
else
  fail "agent: is-enabled $en, is-active $st, postinst message '$msg'"
fi
out=$(systemd-analyze verify "$UNITDIR/iofleet-controller.service" "$UNITDIR/iofleet-agent.service" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then
  ok "systemd-analyze verify: both units clean"
else
  fail "systemd-analyze verify (exit $rc): $out"
fi
scores=()
for u in iofleet-controller iofleet-agent; do
  s=$(systemd-analyze security --no-pager "$u.service" 2>&3 \
      | sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.][0-9.]* [A-Z][A-Z]*\).*/\1/p')
  scores+=("$u ${s:-?}")
done
if [[ "${scores[*]}" != *'?'* ]]; then
  ok "systemd-analyze security: ${scores[0]}, ${scores[1]}"
else
  fail "systemd-analyze security gave no score: ${scores[*]}"
fi

# --- 2. an agent, two plans ----------------------------------------------
cat >>/etc/iofleet/agent.conf <<'EOF'

controller = tcp://127.0.0.1:5570
workdir = /var/lib/iofleet-agent/work
name = vm1
allow = /dev/vdb
allow-write = /dev/vdb
EOF
mkdir -p /var/lib/iofleet-agent/work
if iofleet-agent --config /etc/iofleet/agent.conf --check-config >&3 2>&1 \
   && systemctl restart "$A" >&3 2>&1 && active "$A"; then
  agent_connected () {
    [ "$(cli agents --json 2>/dev/null | jq -r '.[] | select(.name == "vm1" and .connected) | .version')" = "$RELEASE" ]
  }
  if wait_for 30 agent_connected; then
    ok "agent configured and restarted: vm1 connected, release $RELEASE"
  else
    fail "agent vm1 not connected with release $RELEASE: $(cli agents 2>&1)"
  fi
else
  fail "agent: --check-config or restart failed: $(systemctl status --no-pager "$A" 2>&1 | tail -n 5)"
fi
mkdir -p "$D/plans"
cat >"$D/plans/vm-libaio.fio" <<'EOF'
[randread-4k-libaio]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=4
size=16m
filename=probe.dat
runtime=2
time_based
EOF
cat >"$D/plans/vm-uring-vdb.fio" <<'EOF'
[randwrite-4k-uring-vdb]
ioengine=io_uring
direct=1
rw=randwrite
bs=4k
iodepth=4
size=64m
filename=/dev/vdb
runtime=2
time_based
EOF
# run_plan NAME DIRECTION WHAT
run_plan () {
  local name=$1 dir=$2 what=$3 out rc run iops
  cli plan add "$name" "$D/plans/$name.fio" >&3 2>&1 || { fail "plan add $name"; return; }
  out=$(cli run "$name" --agents all --wait --json 2>&3); rc=$?
  log "run $name: $out"
  run=$(jq -r .run <<<"$out" 2>/dev/null)
  if [ $rc -ne 0 ]; then
    fail "iofleet run $name --agents all --wait: exit $rc ($out)"
    return
  fi
  cli report "$run" --format json >"$D/report-$run.json" 2>&3 || { fail "report $run"; return; }
  iops=$(jq --arg d "$dir" '[.steps[0].agents[] | select(.agent == "vm1") | .targets[][$d].iops] | add // 0 | floor' \
         "$D/report-$run.json")
  if [ "${iops:-0}" -gt 0 ]; then
    ok "run $run ($what): complete, exit 0, $iops IOPS"
  else
    fail "run $run ($what): no $dir IOPS in the report"
  fi
}
run_plan vm-libaio read "libaio 4k randread QD4 O_DIRECT, probe.dat in the workdir"
run_plan vm-uring-vdb write "io_uring 4k randwrite QD4 O_DIRECT, raw /dev/vdb"

# --- 3. journal priorities; a bad key: exit 2, not restarted ---------------
journal_c >"$D/journal1.tsv"
n6=$(awk -F'\t' '$1 == 6' "$D/journal1.tsv" | wc -l)
raw=$(awk -F'\t' '$2 ~ /^<[0-7]>/' "$D/journal1.tsv" | wc -l)
prios=$(cut -f1 "$D/journal1.tsv" | sort | uniq -c | awk '{ printf "%sPRIORITY=%s: %s lines", s, $2, $1; s = ", " }')
if [ "$n6" -gt 0 ] && [ "$raw" -eq 0 ]; then
  ok "controller's journal: priorities from the daemon ($prios), no raw <N> prefixes"
else
  fail "controller's journal: $n6 lines at PRIORITY=6, $raw with a raw <N> prefix ($prios)"
fi
bad_conf
n0=$(prop "$C" NRestarts)
if systemctl restart "$C" >&3 2>&1; then restarted=yes; else restarted=no; fi
status=$(prop "$C" ExecMainStatus)
sleep 10
n1=$(prop "$C" NRestarts); st=$(systemctl is-active "$C")
uk=$(journal_c | awk -F'\t' '$2 ~ /unknown key/')
log "unknown key lines: $uk"
if [ $restarted = no ] && [ "$status" = 2 ] && [ "$n1" = "$n0" ] && [ "$st" != active ] \
   && [ -n "$uk" ] && ! awk -F'\t' '$1 != 3 { bad = 1 } END { exit !bad }' <<<"$uk"; then
  ok "bad key: systemctl restart failed, ExecMainStatus=2, NRestarts=$n1 after 10 s ($st); journal at PRIORITY=3: $(head -n1 <<<"$uk" | cut -f2)"
else
  fail "bad key: restart succeeded=$restarted, ExecMainStatus=$status, NRestarts $n0 -> $n1, $st, journal: $uk"
fi
good_conf
if systemctl restart "$C" >&3 2>&1 && active "$C"; then
  ok "configuration restored: controller active"
else
  fail "configuration restored: controller $(systemctl is-active "$C")"
fi

# --- 4. a database it cannot open: exit 3, not restarted -------------------
systemctl stop "$C"
mkdir -p "$D/saved"
for f in "$DB" "$DB-wal" "$DB-shm"; do [ ! -e "$f" ] || mv "$f" "$D/saved/"; done
for _ in $(seq 200); do echo "this is not an SQLite database"; done >"$DB"
chown iofleet:iofleet "$DB"; chmod 0600 "$DB"
n0=$(prop "$C" NRestarts)
if systemctl start "$C" >&3 2>&1; then started=yes; else started=no; fi
status=$(prop "$C" ExecMainStatus)
sleep 10
n1=$(prop "$C" NRestarts); st=$(systemctl is-active "$C")
journal_c | tail -n 5 >&3
if [ $started = no ] && [ "$status" = 3 ] && [ "$n1" = "$n0" ] && [ "$st" != active ]; then
  ok "garbage database: systemctl start failed, ExecMainStatus=3, NRestarts=$n1 after 10 s ($st)"
else
  fail "garbage database: start succeeded=$started, ExecMainStatus=$status, NRestarts $n0 -> $n1, $st"
fi
rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal"
mv "$D"/saved/* /var/lib/iofleet/
if systemctl start "$C" >&3 2>&1 && active "$C"; then
  ok "database restored: controller active"
else
  fail "database restored: controller $(systemctl is-active "$C")"
fi

# --- 5. an upgrade the configuration fails: not restarted ------------------
pid0=$(prop "$C" MainPID)
bad_conf
dpkg -i "$D"/debs/iofleet-controller_*.deb >"$D/upgrade.log" 2>&1; rc=$?
cat "$D/upgrade.log" >&3
pid1=$(prop "$C" MainPID)
msg=$(grep -m1 'not restarted' "$D/upgrade.log")
if [ $rc -eq 0 ] && [ -n "$msg" ] && [ "$pid1" = "$pid0" ] && active "$C"; then
  ok "reinstall with a bad key: dpkg exit 0, '$msg', MainPID $pid1 still active"
else
  fail "reinstall with a bad key: dpkg exit $rc, message '$msg', MainPID $pid0 -> $pid1, $(systemctl is-active "$C")"
fi
good_conf
if systemctl restart "$C" >&3 2>&1 && active "$C" && [ "$(prop "$C" MainPID)" != "$pid0" ]; then
  ok "configuration restored, restarted: MainPID $(prop "$C" MainPID)"
else
  fail "after restoring: controller $(systemctl is-active "$C")"
fi

# --- 6. a schema-11 database: backed up, migrated --------------------------
systemctl stop "$C"
rm -f "$DB-wal" "$DB-shm"
cp "$D/schema11.db" "$DB"
chown iofleet:iofleet "$DB"; chmod 0600 "$DB"
out=$(setpriv --reuid iofleet --regid iofleet --init-groups env RUNTIME_DIRECTORY=/run/iofleet \
      iofleet-controller --config "$CONF" --check-config 2>&1); rc=$?
log "check-config: $out"
note=$(grep -m1 '^# note: .*starting will back it up' <<<"$out")
if [ $rc -eq 0 ] && [ -n "$note" ]; then
  ok "--check-config as iofleet (unit stopped, no /run/iofleet): $note"
else
  fail "--check-config of the schema-11 database: exit $rc: $out"
fi
BAK=/var/lib/iofleet/iofleet.db.schema11.bak
if systemctl start "$C" >&3 2>&1 && active "$C"; then
  line=$(journal_c | grep -m1 "backup written to $BAK" | cut -f2)
  own=$(stat -c '%U %a' "$BAK" 2>&1)
  runs=$(cli runs --json 2>&3 | jq -r '.[] | select(.id == 1) | .status')
  if [ -n "$line" ] && [ "$own" = "iofleet 600" ] && [ "$runs" = complete ]; then
    ok "schema 11 migrated at start: '$line'; backup iofleet 0600; run 1 complete"
  else
    fail "schema 11: journal '$line', backup '$own', run 1 '$runs'"
  fi
else
  fail "schema 11: controller did not start: $(journal_c | tail -n 3)"
fi

# --- 7. kill -9: restarted ---------------------------------------------------
n0=$(prop "$C" NRestarts); pid0=$(prop "$C" MainPID)
kill -9 "$pid0"
restarted_once () {
  [ "$(prop "$C" NRestarts)" = $((n0 + 1)) ] && active "$C" && [ "$(prop "$C" MainPID)" != "$pid0" ]
}
t0=$SECONDS
if wait_for 15 restarted_once; then
  ok "kill -9: restarted by systemd in $((SECONDS - t0)) s (NRestarts $n0 -> $(prop "$C" NRestarts), MainPID $(prop "$C" MainPID))"
else
  fail "kill -9: NRestarts $n0 -> $(prop "$C" NRestarts), $(systemctl is-active "$C") after 15 s"
fi

# --- 8. purge ------------------------------------------------------------------
if dpkg --purge iofleet-controller iofleet-agent iofleet-cli >"$D/purge.log" 2>&1; then
  cat "$D/purge.log" >&3
  left=$(ls -d /etc/iofleet /var/lib/iofleet* /run/iofleet /usr/bin/iofleet* \
            "$UNITDIR"/iofleet-* /etc/systemd/system/iofleet-* /etc/systemd/system/*/iofleet-* 2>/dev/null)
  owned=$(find / -xdev -user iofleet 2>/dev/null | head -n 5)
  if [ -z "$left" ] && id iofleet >/dev/null 2>&1 && getent group iofleet >/dev/null && [ -z "$owned" ]; then
    ok "purge: exit 0; nothing left; user and group iofleet kept, owning no file (find / -xdev -user iofleet)"
  else
    fail "purge: left '$left'; user: $(id iofleet 2>&1); files owned by iofleet: $owned"
  fi
else
  fail "dpkg --purge: $(tail -n 5 "$D/purge.log")"
fi

echo "# end: $FAILS failed" >>"$R"
sync
GUEST
chmod 0755 "$G/check.sh"

# --- the disks and the boot -------------------------------------------------
cp "${kernels[0]}" "$W/vmlinuz"
cp "${initrds[0]}" "$W/initrd.img"
truncate -s 3G "$IMG"
mkfs.ext4 -q -F -L iofleet-vm -d "$ROOT" "$IMG" >"$W/mkfs.log" 2>&1 \
  || { cat "$W/mkfs.log" >&2; fail "mkfs.ext4 -d $ROOT"; }
truncate -s 256M "$DISK2"               # blank: the agent may write it
[ "$KEEP" = 1 ] || rm -rf --one-file-system "$ROOT"

boot=$SECONDS
say "booting the VM (qemu TCG, up to $VM_TIMEOUT s; console: $W/console.log)"
qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 1024 -nographic -no-reboot \
  -kernel "$W/vmlinuz" -initrd "$W/initrd.img" \
  -append 'root=/dev/vda rw console=ttyS0 panic=-1' \
  -drive "file=$IMG,format=raw,if=virtio" -drive "file=$DISK2,format=raw,if=virtio" \
  </dev/null >"$W/console.log" 2>&1 &
QPID=$!
timed_out=0
while kill -0 "$QPID" 2>/dev/null; do
  if [ $((SECONDS - boot)) -ge "$VM_TIMEOUT" ]; then timed_out=1; break; fi
  sleep 2
done
if [ $timed_out = 1 ]; then
  kill -TERM "$QPID" 2>/dev/null
  wait "$QPID" 2>/dev/null || true
else
  wait "$QPID" || echo "note: qemu exited with $?"
fi
QPID=
say "VM ran $((SECONDS - boot)) s"

# --- the results, from the guest's disk --------------------------------------
debugfs -R "cat $GUEST_DIR/results" "$IMG" >"$W/results" 2>"$W/debugfs.log" || true
debugfs -R "cat $GUEST_DIR/check.log" "$IMG" >"$W/check.log" 2>>"$W/debugfs.log" || true
grep -E '^(ok|FAIL): ' "$W/results" || true
bad=0
[ $timed_out = 0 ] || { echo "FAIL: the VM did not power off within $VM_TIMEOUT s"; bad=1; }
if ! grep -q '^# end: ' "$W/results"; then
  echo "FAIL: no results, or incomplete ($GUEST_DIR/results in the guest)"
  bad=1
elif grep -q '^FAIL: ' "$W/results"; then
  bad=1
fi
echo "vm-check: $((SECONDS - start)) s in all (VM $((SECONDS - boot)) s)"
if [ $bad = 1 ]; then
  { echo "--- console (last 40 lines)"; tail -n 40 "$W/console.log"
    echo "--- check.log (last 60 lines)"; tail -n 60 "$W/check.log"; } >&2
  exit 1
fi
