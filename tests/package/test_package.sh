#!/usr/bin/env bash
# The Debian packages, end to end (root only): build them with cpack, check
# their control data, install all three, start both daemons the way their
# installed systemd units say (user, directories, environment, command line:
# read from the unit files), run a plan through the installed CLI against a
# configuration written the way an operator would, then remove and purge
# and check that nothing is left but the system user and group (Debian
# practice: purge keeps them), which the test then deletes itself.
#
# Exits 77 (skipped) when not root, or when this machine already has an
# iofleet installation (packages, /etc/iofleet, /var/lib/iofleet*, the user
# or group 'iofleet'): purging at the end would delete a real database.
#
#   IOFLEET_BUILD  a configured build directory (cpack runs there)
set -euo pipefail

BUILD=${IOFLEET_BUILD:?IOFLEET_BUILD must point at a configured build directory}
PKGS=(iofleet-controller iofleet-agent iofleet-cli)
SVC_USER=iofleet

fail () { echo "FAIL: $*" >&2; exit 1; }
ok () { echo "ok: $*"; }
skip () { echo "SKIP: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "root only (installs packages, creates a system user)"
for p in "${PKGS[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv '^unknown ok not-installed$'; then
    skip "package $p is known to dpkg here ($(dpkg-query -W -f='${Status}' "$p")): not ours to purge"
  fi
done
for d in /etc/iofleet /var/lib/iofleet /var/lib/iofleet-agent /run/iofleet; do
  [ ! -e "$d" ] || skip "$d exists: an iofleet installation that is not ours; this test would delete it"
done
! getent passwd "$SVC_USER" >/dev/null || skip "user '$SVC_USER' exists: not ours to delete"
! getent group "$SVC_USER" >/dev/null || skip "group '$SVC_USER' exists: not ours to delete"
for t in cpack dpkg dpkg-deb systemd-analyze setpriv python3 jq sqlite3; do
  command -v "$t" >/dev/null || skip "$t not installed"
done

T=$(mktemp -d /tmp/iofleet-package.XXXXXX)
chmod 0755 "$T"                  # the controller's user writes its log here
# O_DIRECT needs a real file system, not tmpfs: the agent's workdir goes
# where the e2e tests put theirs.
W=$(mktemp -d "${IOFLEET_TEST_DIR:-/var/tmp}/iofleet-package-work.XXXXXX")
PIDS=()
INSTALLED=0
OUR_USER=0                       # 1: the user/group iofleet, if any, were made by this test
MOUNTS=()                        # bind mounts this test made (purge of a mount point)

# Whatever happened: stop what was started, purge what was installed, and
# remove whatever the packages would have (all of it is ours: see above).
cleanup () {
  local rc=${1:-$?}
  trap - EXIT INT TERM
  set +e
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  for m in "${MOUNTS[@]}"; do umount "$m"; done
  if [ "$INSTALLED" = 1 ]; then
    dpkg --purge "${PKGS[@]}" >"$T/purge-cleanup.log" 2>&1 \
      || { echo "cleanup: dpkg --purge failed:" >&2; cat "$T/purge-cleanup.log" >&2; }
    rm -rf /etc/iofleet /var/lib/iofleet /var/lib/iofleet-agent /run/iofleet
    rm -f /etc/systemd/system/iofleet-*.service /etc/systemd/system/*.wants/iofleet-*.service
    rm -rf /var/lib/systemd/deb-systemd-helper-enabled/*iofleet* \
           /var/lib/systemd/deb-systemd-helper-enabled/*/iofleet-* \
           /var/lib/systemd/deb-systemd-helper-masked/iofleet-*
    if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
  fi
  # Purge keeps the system user and group: they are the test's to delete
  # (none existed when it began, or it would have skipped).
  if [ "$OUR_USER" = 1 ]; then
    if getent passwd "$SVC_USER" >/dev/null; then userdel "$SVC_USER"; fi
    if getent group "$SVC_USER" >/dev/null; then groupdel "$SVC_USER"; fi
  fi
  if [ $rc -ne 0 ]; then
    for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done >&2
  fi
  rm -rf "$T" "$W"
  exit $rc
}
trap cleanup EXIT
trap 'cleanup 130' INT
trap 'cleanup 143' TERM

# --- 1. build the packages --------------------------------------------------
start=$SECONDS
(cd "$BUILD" && cpack -G DEB -B "$T/debs" --config CPackConfig.cmake) >"$T/cpack.log" 2>&1 \
  || fail "cpack in $BUILD failed (see $T/cpack.log above)"
declare -A DEB
for p in "${PKGS[@]}"; do
  DEB[$p]=$(ls "$T"/debs/"$p"_*.deb 2>/dev/null | head -n1)
  [ -f "${DEB[$p]}" ] || fail "cpack made no ${p}_*.deb: $(ls "$T/debs")"
done
ok "cpack built ${PKGS[*]} in $((SECONDS - start)) s"
# Where the units go (IOFLEET_SYSTEMD_UNITDIR; /lib/systemd/system on Debian 12).
UNITDIR=$(dpkg-deb -c "${DEB[iofleet-controller]}" \
          | awk '$6 ~ /\/iofleet-controller\.service$/ { sub(/^\./, "", $6); sub(/\/[^\/]*$/, "", $6); print $6 }')
[ -n "$UNITDIR" ] || fail "iofleet-controller has no iofleet-controller.service"

# --- 2. control data ----------------------------------------------------------
field () { dpkg-deb -f "${DEB[$1]}" "$2"; }
# has_dep PKG FIELD NAME: NAME is one of FIELD's relations (any version).
has_dep () {
  local names
  names=$(field "$1" "$2" | tr ',' '\n' | sed 's/^ *//; s/ .*//')
  grep -qx "$3" <<<"$names" || fail "$1: $2 lacks $3: '$(field "$1" "$2")'"
}
version=$(field iofleet-controller Version)
for p in "${PKGS[@]}"; do
  [ "$(field "$p" Package)" = "$p" ] || fail "${DEB[$p]}: Package is $(field "$p" Package)"
  [ "$(field "$p" Version)" = "$version" ] || fail "$p: version $(field "$p" Version), controller $version"
  [ -n "$(field "$p" Maintainer)" ] && [ -n "$(field "$p" Description)" ] || fail "$p: no Maintainer or Description"
  [ "$(field "$p" Section)" = admin ] || fail "$p: Section $(field "$p" Section)"
  has_dep "$p" Depends libc6
  has_dep "$p" Depends libzmq5
  has_dep "$p" Depends libczmq4
done
# dpkg-shlibdeps found each binary's libraries.
for l in adduser libsqlite3-0 libprotobuf-c1 libsystemd0 libzstd1; do has_dep iofleet-controller Depends "$l"; done
# The maintainer scripts call deb-systemd-helper and deb-systemd-invoke.
for p in iofleet-controller iofleet-agent; do has_dep "$p" Depends init-system-helpers; done
for l in libaio1 liburing2 libblkid1 libsystemd0 zlib1g libprotobuf-c1; do has_dep iofleet-agent Depends "$l"; done
has_dep iofleet-controller Recommends iofleet-cli
has_dep iofleet-agent Suggests iofleet-cli
# Only the controller's postinst creates a user.
! grep -q adduser <<<"$(field iofleet-agent Depends)" || fail "iofleet-agent depends on adduser"
case "$version" in *-[0-9]*) ;; *) fail "version $version has no Debian revision" ;; esac

for c in controller agent; do
  p=iofleet-$c
  mkdir -p "$T/ctl-$c"
  dpkg-deb -e "${DEB[$p]}" "$T/ctl-$c"
  [ "$(cat "$T/ctl-$c/conffiles")" = "/etc/iofleet/$c.conf" ] \
    || fail "$p conffiles: '$(cat "$T/ctl-$c/conffiles")'"
  for s in postinst prerm postrm; do
    [ "$(stat -c %a "$T/ctl-$c/$s")" = 755 ] || fail "$p: $s has mode $(stat -c %a "$T/ctl-$c/$s")"
    sh -n "$T/ctl-$c/$s" || fail "$p: $s is not valid sh"
  done
done
[ ! -e "$T/ctl-cli/conffiles" ] || fail "iofleet-cli has conffiles"
ok "control data: version $version, Depends from dpkg-shlibdeps (+adduser, +init-system-helpers), conffiles, scripts 0755"

# Contents: root:root, modes, and nothing outside these places.
# expect_files PKG PATH:MODE...: exactly these regular files.
expect_files () {
  local p=$1 want got
  shift
  want=$(printf '%s\n' "$@" | sort)
  got=$(dpkg-deb -c "${DEB[$p]}" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 ":" $1 }' | sort)
  [ "$got" = "$want" ] || fail "$p contents:"$'\n'"$got"$'\n'"wanted:"$'\n'"$want"
  dpkg-deb -c "${DEB[$p]}" | awk '$2 != "root/root" { bad = 1; print } END { exit bad }' >&2 \
    || fail "$p: entries not owned by root/root"
  dpkg-deb -c "${DEB[$p]}" | awk '$1 ~ /^d/ && $1 != "drwxr-xr-x" { bad = 1; print } END { exit bad }' >&2 \
    || fail "$p: directories not 0755"
}
R=-rw-r--r--
X=-rwxr-xr-x
expect_files iofleet-controller /usr/bin/iofleet-controller:$X \
  $UNITDIR/iofleet-controller.service:$R /etc/iofleet/controller.conf:$R \
  /usr/share/doc/iofleet-controller/README.md:$R /usr/share/doc/iofleet-controller/deploy.md:$R \
  /usr/share/man/man8/iofleet-controller.8.gz:$R \
  "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/iofleet/iofleet_sqlite.so:$R"
expect_files iofleet-agent /usr/bin/iofleet-agent:$X \
  $UNITDIR/iofleet-agent.service:$R /etc/iofleet/agent.conf:$R \
  /usr/share/doc/iofleet-agent/deploy.md:$R /usr/share/man/man8/iofleet-agent.8.gz:$R
# The user guide and the generated reference beside the README, under
# the paths its links name (docs/guide/..., docs/reference/cli.md).
guide=()
for g in 01-operating-a-fleet 02-plans 03-reports-and-templates 04-nightly-and-history \
         05-deployment 06-security; do
  guide+=("/usr/share/doc/iofleet-cli/docs/guide/$g.md:$R")
done
expect_files iofleet-cli /usr/bin/iofleet:$X /usr/share/doc/iofleet-cli/README.md:$R \
  "${guide[@]}" /usr/share/doc/iofleet-cli/docs/reference/cli.md:$R \
  /usr/share/man/man1/iofleet.1.gz:$R /usr/share/bash-completion/completions/iofleet:$R
# The manual pages are the programs' own help, with the files they use.
for m in man8/iofleet-controller.8:--check-config:/etc/iofleet/controller.conf \
         man8/iofleet-agent.8:--check-config:/etc/iofleet/agent.conf man1/iofleet.1:report:IOFLEET_CONTROLLER; do
  IFS=: read -r page opt file <<<"$m"
  deb=${DEB[$( case $page in *controller*) echo iofleet-controller ;; *agent*) echo iofleet-agent ;; *) echo iofleet-cli ;; esac )]}
  # roff escapes dashes (\-): read it without backslashes
  text=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/share/man/$page.gz" | gzip -dc | tr -d '\\')
  grep -qF -- "$opt" <<<"$text" && grep -qF -- "$file" <<<"$text" \
    || fail "man page $page lacks '$opt' or '$file'"
done
# The bash completion is iofleet's own, for bash.
dpkg-deb --fsys-tarfile "${DEB[iofleet-cli]}" | tar -xO ./usr/share/bash-completion/completions/iofleet \
  >"$T/completion.bash"
bash -n "$T/completion.bash" && grep -q '^complete -F _iofleet iofleet$' "$T/completion.bash" \
  || fail "the bash completion of iofleet-cli: $(head -3 "$T/completion.bash")"
ok "contents: root:root, binaries 0755, units, configuration, manual pages and completion 0644"

# --- 3. install ---------------------------------------------------------------
# dpkg_do ARGS...: dpkg, waiting out another dpkg holding the lock.
dpkg_do () {
  local out
  for _ in $(seq 30); do
    if out=$(dpkg "$@" 2>&1); then printf '%s\n' "$out" >>"$T/dpkg.log"; return 0; fi
    printf '%s\n' "$out" >>"$T/dpkg.log"
    grep -qE '(is|was) locked by another process' <<<"$out" || return 1
    sleep 2
  done
  return 1
}
INSTALLED=1
OUR_USER=1
dpkg_do -i "${DEB[@]}" \
  || fail "dpkg -i failed: $(grep -E 'depends on|dpkg: error' "$T/dpkg.log" | head -n 5)
(a library missing? scripts/install-deps installs what iofleet links)"
for p in "${PKGS[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ] || fail "$p not installed"
done
getent passwd "$SVC_USER" >/dev/null || fail "postinst created no user $SVC_USER"
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd "$SVC_USER")
[ "$uid" -lt 1000 ] || fail "user $SVC_USER has uid $uid: not a system user"
[ "$(getent group "$gid" | cut -d: -f1)" = "$SVC_USER" ] || fail "user $SVC_USER's group is not $SVC_USER"
[ "$home" = /var/lib/iofleet ] || fail "user $SVC_USER's home is $home"
case "$shell" in */nologin|/bin/false) ;; *) fail "user $SVC_USER has shell $shell" ;; esac
[ "$(stat -c '%U:%G %a' /var/lib/iofleet)" = "$SVC_USER:$SVC_USER 750" ] \
  || fail "/var/lib/iofleet is $(stat -c '%U:%G %a' /var/lib/iofleet)"
[ "$(stat -c '%U:%G %a' /var/lib/iofleet-agent)" = "root:root 700" ] \
  || fail "/var/lib/iofleet-agent is $(stat -c '%U:%G %a' /var/lib/iofleet-agent)"
for f in /etc/iofleet/controller.conf /etc/iofleet/agent.conf; do
  [ "$(stat -c '%U:%G %a' "$f")" = "root:root 644" ] || fail "$f is $(stat -c '%U:%G %a' "$f")"
done
# The agent's file sets nothing: the agent has no controller to guess.
! grep -vE '^[[:space:]]*([#;].*)?$|^[[:space:]]*\[agent\][[:space:]]*$' /etc/iofleet/agent.conf >&2 \
  || fail "the shipped agent.conf sets something (above)"
for u in iofleet-controller iofleet-agent; do
  [ -L /etc/systemd/system/multi-user.target.wants/$u.service ] || fail "postinst did not enable $u"
done
# Booted with systemd, postinst started the controller (the shipped file
# passes --check-config): this test runs the units' commands itself.
if [ -d /run/systemd/system ]; then
  systemctl stop iofleet-controller.service iofleet-agent.service
fi
ok "installed: system user $SVC_USER (uid $uid), /var/lib/iofleet $SVC_USER 0750, units enabled"

systemd-analyze verify $UNITDIR/iofleet-controller.service $UNITDIR/iofleet-agent.service \
  >"$T/verify.log" 2>&1 || { cat "$T/verify.log" >&2; fail "systemd-analyze verify"; }
[ ! -s "$T/verify.log" ] || { cat "$T/verify.log" >&2; fail "systemd-analyze verify warned"; }
ok "systemd-analyze verify: both units clean"

# --- 4. start both as their units would --------------------------------------
# unit_get UNIT KEY: the values of KEY= in the [Service] section, one a line.
unit_get () {
  awk -v k="$2" '/^\[/ { s = ($0 == "[Service]") }
                 s && index($0, k "=") == 1 { print substr($0, length(k) + 2) }' "$UNITDIR/$1.service"
}
# unit_one UNIT KEY [DEFAULT]: the one value of KEY (a unit's last one wins).
unit_one () { local v; v=$(unit_get "$1" "$2" | tail -n1); echo "${v:-${3:-}}"; }

# notify_listen NAME: a NOTIFY_SOCKET @iofleet-package-test-PID-NAME
# (abstract, so any user can send) whose datagrams land in $T/NAME.notify,
# one a line.
notify_listen () {
  python3 - "iofleet-package-test-$$-$1" "$T/$1.notify" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    out.write("LISTENING\n")
    while True:
        out.write(s.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
PY
  PIDS+=("$!")
  for _ in $(seq 50); do grep -q LISTENING "$T/$1.notify" 2>/dev/null && return 0; sleep 0.1; done
  fail "notify listener for $1 did not start"
}

# Capability numbers (linux/capability.h), by the names units use
# (lowercased, without CAP_).
declare -A CAPBIT=()
i=0
for c in chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap \
         linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner \
         sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice \
         sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap \
         mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf \
         checkpoint_restore; do
  CAPBIT[$c]=$i
  i=$((i + 1))
done

# unit_caps UNIT: UNIT_CAPS= the capabilities of the unit's
# CapabilityBoundingSet=, lowercased without CAP_ (none: an empty set);
# status 1 when the unit sets none (the bounding set is left whole).
# Assignments add up; an empty one resets to the empty set.
unit_caps () {
  local line c
  declare -A set=()
  UNIT_CAPS=()
  [ "$(unit_get "$1" CapabilityBoundingSet | wc -l)" -gt 0 ] || return 1
  while IFS= read -r line; do
    [ -n "$line" ] || { set=(); continue; }
    case $line in '~'*) fail "$1: CapabilityBoundingSet=~... (a deny list): this test cannot follow it" ;; esac
    for c in $line; do
      c=${c,,}
      c=${c#cap_}
      [ -n "${CAPBIT[$c]:-}" ] || fail "$1: CapabilityBoundingSet= names '$c', unknown to this test"
      set[$c]=1
    done
  done < <(unit_get "$1" CapabilityBoundingSet)
  [ "${#set[@]}" -eq 0 ] || mapfile -t UNIT_CAPS < <(printf '%s\n' "${!set[@]}" | sort)
}

# cap_mask NAME...: the mask of those capabilities, as /proc/PID/status
# shows it (16 hex digits).
cap_mask () {
  local m=0 c
  for c in "$@"; do m=$((m | (1 << CAPBIT[$c]))); done
  printf '%016x' "$m"
}

# start_unit UNIT: runs ExecStart= as systemd would for this unit: as
# User=/Group= with its groups, NoNewPrivileges=, CapabilityBoundingSet=
# (no inheritable capabilities, as without AmbientCapabilities=), UMask=,
# LimitNOFILE=; StateDirectory= and
# RuntimeDirectory= created and owned by that user, with their modes;
# a clean environment holding Environment=, STATE_DIRECTORY,
# RUNTIME_DIRECTORY, NOTIFY_SOCKET and JOURNAL_STREAM (its stderr: the log).
# Sets PID_<UNIT> (dashes as underscores) and waits for READY=1.
start_unit () {
  local u=$1 user group umask nofile d mode log="$T/$1.log" var
  local -a cmd env setpriv_opts
  user=$(unit_one "$u" User root)
  group=$(unit_one "$u" Group "$(id -gn "$user")")
  umask=$(unit_one "$u" UMask 0022)
  nofile=$(unit_one "$u" LimitNOFILE)
  [ "$(unit_get "$u" ExecStart | wc -l)" = 1 ] || fail "$u: not one ExecStart="
  read -r -a cmd <<<"$(unit_get "$u" ExecStart)"
  case "${cmd[*]}" in *\"*|*\'*|[-@+!:]*) fail "$u: ExecStart= quotes or prefixes this test cannot follow" ;; esac
  env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
       "HOME=$(getent passwd "$user" | cut -d: -f6)" "USER=$user" "LOGNAME=$user"
       "SHELL=$(getent passwd "$user" | cut -d: -f7)" "INVOCATION_ID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')")
  local states=() runtimes=()
  for d in $(unit_get "$u" StateDirectory); do
    mode=$(unit_one "$u" StateDirectoryMode 0755)
    install -d -o "$user" -g "$group" -m "$mode" "/var/lib/$d"
    states+=("/var/lib/$d")
  done
  for d in $(unit_get "$u" RuntimeDirectory); do
    mode=$(unit_one "$u" RuntimeDirectoryMode 0755)
    install -d -o "$user" -g "$group" -m "$mode" "/run/$d"
    runtimes+=("/run/$d")
  done
  [ ${#states[@]} -eq 0 ] || env+=("STATE_DIRECTORY=$(IFS=:; echo "${states[*]}")")
  [ ${#runtimes[@]} -eq 0 ] || env+=("RUNTIME_DIRECTORY=$(IFS=:; echo "${runtimes[*]}")")
  while read -r -a var; do
    for v in "${var[@]}"; do v=${v#\"}; env+=("${v%\"}"); done
  done < <(unit_get "$u" Environment)
  notify_listen "$u"
  env+=("NOTIFY_SOCKET=@iofleet-package-test-$$-$u")
  : >"$log"
  chmod 0666 "$log"
  env+=("JOURNAL_STREAM=$(stat -c '%d:%i' "$log")")
  setpriv_opts=("--reuid=$user" "--regid=$group" --init-groups)
  [ "$(unit_one "$u" NoNewPrivileges)" != yes ] || setpriv_opts+=(--no-new-privs)
  if unit_caps "$u"; then
    local bnd=-all c
    for c in "${UNIT_CAPS[@]}"; do bnd+=",+$c"; done
    setpriv_opts+=("--bounding-set=$bnd")
    printf -v "CAPBND_${u//-/_}" '%s' "$(cap_mask "${UNIT_CAPS[@]}")"
    printf -v "CAPS_${u//-/_}" '%s' "$(IFS=,; echo "${UNIT_CAPS[*]:-none}")"
  else
    printf -v "CAPBND_${u//-/_}" '%s' ''
  fi
  [ -z "$(unit_get "$u" AmbientCapabilities | tr -d ' ')" ] \
    || fail "$u: AmbientCapabilities= this test does not follow"
  setpriv_opts+=(--inh-caps=-all)
  (
    umask "$umask"
    # (a container's hard limit may be lower than the unit's: keep that)
    [ -z "$nofile" ] || ulimit -n "$nofile" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    exec /usr/bin/env -i "${env[@]}" /usr/bin/setpriv "${setpriv_opts[@]}" "${cmd[@]}"
  ) >>"$log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  printf -v "PID_${u//-/_}" '%s' "$pid"
  for _ in $(seq 100); do
    grep -q 'READY=1' "$T/$u.notify" && return 0
    kill -0 "$pid" 2>/dev/null || fail "$u exited at start"
    sleep 0.1
  done
  fail "$u sent no READY=1 in 10 s (Type=$(unit_one "$u" Type))"
}

# stop_unit UNIT: SIGTERM, as systemctl stop; it must exit 0.  Removes its
# RuntimeDirectory=, as systemd does.
stop_unit () {
  local u=$1 var="PID_${1//-/_}" rc=0 d
  kill -TERM "${!var}"
  wait "${!var}" || rc=$?
  [ $rc -eq 0 ] || fail "$u exited with $rc on SIGTERM"
  for d in $(unit_get "$u" RuntimeDirectory); do rm -rf "/run/$d"; done
}

for u in iofleet-controller iofleet-agent; do
  [ "$(unit_one $u Type)" = notify ] || fail "$u: Type=$(unit_one $u Type), not notify"
  unit_get $u RestartPreventExitStatus | tr ' ' '\n' | grep -qx 2 || fail "$u: no RestartPreventExitStatus=2"
done
[ "$(unit_one iofleet-controller User)" = "$SVC_USER" ] || fail "the controller's unit does not run as $SVC_USER"
[ -z "$(unit_one iofleet-agent User)" ] || fail "the agent's unit sets User= (it needs root for raw devices)"

# as_unit UNIT CMD...: CMD as the unit's user with its Environment= (for
# --check-config and the database).
as_unit () {
  local u=$1 user
  shift
  user=$(unit_one "$u" User root)
  local -a envs=()
  while read -r -a var; do envs+=("${var[@]}"); done < <(unit_get "$u" Environment)
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${envs[@]}" \
    setpriv --reuid="$user" --regid="$(unit_one "$u" Group "$(id -gn "$user")")" --init-groups "$@"
}

install -d -o "$SVC_USER" -g "$SVC_USER" /run/iofleet
# As shipped, the controller would start (postinst starts it under systemd),
# on loopback only since it has no keys; the agent has no controller and
# refuses with 2 (postinst leaves it stopped; systemd would not restart it).
as_unit iofleet-controller /usr/bin/iofleet-controller --config /etc/iofleet/controller.conf \
  --check-config >"$T/check0.log" 2>&1 || fail "controller --check-config of the shipped file failed"
grep -qE '^listen = (tcp://(127\.0\.0\.1|\[::1\]|localhost):|ipc://)' "$T/check0.log" \
  || fail "the shipped controller.conf does not listen on loopback: $(grep listen "$T/check0.log")"
rc=0; as_unit iofleet-agent /usr/bin/iofleet-agent --config /etc/iofleet/agent.conf \
  --check-config >>"$T/check0.log" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "agent --check-config of the shipped file: $rc, not 2"
ok "as shipped: the controller would start on loopback, the agent refuses (status 2)"

# What an operator writes: a local fleet on loopback, on a free port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if grep -qE '^[[:space:]]*listen[[:space:]]*=' /etc/iofleet/controller.conf; then
  sed -i -E "s|^[[:space:]]*listen[[:space:]]*=.*|listen = tcp://127.0.0.1:$port|" /etc/iofleet/controller.conf
else
  printf '\nlisten = tcp://127.0.0.1:%s\n' "$port" >>/etc/iofleet/controller.conf
fi
cat >>/etc/iofleet/agent.conf <<EOF

controller = tcp://127.0.0.1:$port
name = pkgtest-agent
workdir = $W
label = role=package-test
EOF
as_unit iofleet-controller /usr/bin/iofleet-controller --config /etc/iofleet/controller.conf \
  --check-config >"$T/check.log" 2>&1 || fail "controller --check-config: $(cat "$T/check.log")"
as_unit iofleet-agent /usr/bin/iofleet-agent --config /etc/iofleet/agent.conf \
  --check-config >>"$T/check.log" 2>&1 || fail "agent --check-config: $(cat "$T/check.log")"
rm -rf /run/iofleet
ok "operator's configuration passes --check-config"

start_unit iofleet-controller
start_unit iofleet-agent
ok "both daemons started as their units say and sent READY=1"

# proc_caps PID FIELD: the capability mask FIELD (CapBnd, CapEff...) of PID.
proc_caps () { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
[ -n "$CAPBND_iofleet_controller" ] || fail "the controller's unit sets no CapabilityBoundingSet="
[ "$CAPBND_iofleet_controller" = 0000000000000000 ] \
  || fail "the controller's unit allows capabilities: $CAPS_iofleet_controller"
[ -n "$CAPBND_iofleet_agent" ] || fail "the agent's unit sets no CapabilityBoundingSet="
for u in iofleet-controller iofleet-agent; do
  pid=PID_${u//-/_} want=CAPBND_${u//-/_}
  got=$(proc_caps "${!pid}" CapBnd)
  [ "$got" = "${!want}" ] || fail "$u: CapBnd $got, its unit says ${!want}"
  [ "$(proc_caps "${!pid}" CapInh)" = 0000000000000000 ] || fail "$u: CapInh $(proc_caps "${!pid}" CapInh)"
done
[ "$(proc_caps "$PID_iofleet_controller" CapEff)" = 0000000000000000 ] \
  || fail "the controller has capabilities: CapEff $(proc_caps "$PID_iofleet_controller" CapEff)"
ok "capabilities: agent's CapBnd $CAPBND_iofleet_agent ($CAPS_iofleet_agent, its unit's), controller's $CAPBND_iofleet_controller"

[ "$(ps -o user= -p "$PID_iofleet_controller")" = "$SVC_USER" ] \
  || fail "the controller runs as $(ps -o user= -p "$PID_iofleet_controller")"
[ "$(ps -o user= -p "$PID_iofleet_agent")" = root ] || fail "the agent runs as $(ps -o user= -p "$PID_iofleet_agent")"
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$PID_iofleet_controller/status" || fail "controller: no_new_privs unset"
[ -S /run/iofleet/admin.sock ] || fail "no admin socket /run/iofleet/admin.sock"
[ "$(stat -c '%U %a' /run/iofleet/admin.sock)" = "$SVC_USER 600" ] \
  || fail "admin socket is $(stat -c '%U %a' /run/iofleet/admin.sock)"
# Under systemd (JOURNAL_STREAM is its stderr) lines carry a syslog priority.
grep -q '^<[0-7]>' "$T/iofleet-controller.log" || fail "controller log lines lack <N> priorities"
grep -q '^<[0-7]>' "$T/iofleet-agent.log" || fail "agent log lines lack <N> priorities"
ok "controller runs as $SVC_USER (no_new_privs), agent as root; admin socket $SVC_USER 0600; journal priorities"

# --- 5. a plan through the installed CLI, as root ----------------------------
# The CLI's default for root is /run/iofleet/admin.sock; a login session's
# XDG_RUNTIME_DIR would move it, so the caller's environment stays out.
cli () { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /usr/bin/iofleet "$@"; }
n=0
for _ in $(seq 100); do
  n=$(cli agents --json 2>/dev/null | jq '[.[] | select(.connected and .name == "pkgtest-agent")] | length' || echo 0)
  [ "$n" = 1 ] && break
  sleep 0.1
done
[ "$n" = 1 ] || fail "the agent did not connect: $(cli agents 2>&1)"
cat >"$T/pkgtest.fio" <<'EOF'
[randread-4k]
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
cli plan add pkgtest "$T/pkgtest.fio" >/dev/null || fail "plan add"
out=$(cli run pkgtest --agents all --wait --json 2>"$T/run.log") || fail "run --wait exited non-zero"
run=$(jq -r .run <<<"$out")
[ "$(jq -r .status <<<"$out")" = complete ] || fail "run $run: status $(jq -r .status <<<"$out")"
cli report "$run" --format json >"$T/report.json" || fail "report $run"
ops=$(jq '[.steps[0].agents[] | select(.agent == "pkgtest-agent") | .targets[].read.ops] | add // 0' "$T/report.json")
[ "$ops" -gt 0 ] || fail "report: no reads by pkgtest-agent"
cli report "$run" | grep -q randread-4k || fail "text report lacks the step"
ok "run $run complete: $ops reads of 4k reported"

# Stored in the database of the unit's StateDirectory=, by its user.
DB=/var/lib/iofleet/iofleet.db
[ "$(stat -c '%U:%G %a' "$DB")" = "$SVC_USER:$SVC_USER 600" ] || fail "$DB is $(stat -c '%U:%G %a' "$DB")"
stored=$(as_unit iofleet-controller sqlite3 -readonly "$DB" \
  "SELECT status || ' ' || (SELECT SUM(ops) FROM results WHERE run_id = $run AND direction = 'read')
   FROM runs WHERE id = $run") || fail "sqlite3 $DB"
[ "$stored" = "complete $ops" ] || fail "$DB has run $run as '$stored', the report says complete $ops"
[ -d /var/lib/iofleet-agent/spool ] || fail "the agent's spool is not in its StateDirectory"
# docs/deploy.md: backups go to the state directory (all the unit lets it write).
cli db backup /var/lib/iofleet/backup.db >"$T/backup.log" 2>&1 || fail "db backup: $(cat "$T/backup.log")"
[ "$(stat -c '%U %a' /var/lib/iofleet/backup.db)" = "$SVC_USER 600" ] \
  || fail "backup is $(stat -c '%U %a' /var/lib/iofleet/backup.db)"
ok "results in $DB ($SVC_USER, 0600); agent spool in /var/lib/iofleet-agent/spool; db backup there"

stop_unit iofleet-agent
stop_unit iofleet-controller
grep -q 'STOPPING=1' "$T/iofleet-controller.notify" || fail "controller sent no STOPPING=1"
[ -z "$(find /var/lib/iofleet ! -user "$SVC_USER")" ] || fail "files in /var/lib/iofleet not owned by $SVC_USER: $(find /var/lib/iofleet ! -user "$SVC_USER")"
ok "both stopped on SIGTERM with status 0"

# --- 6. upgrade (reinstall), remove, purge ------------------------------------
sum=$(md5sum </etc/iofleet/controller.conf)
dpkg_do -i "${DEB[iofleet-controller]}" || fail "reinstalling iofleet-controller: $(tail -n 5 "$T/dpkg.log")"
[ "$(md5sum </etc/iofleet/controller.conf)" = "$sum" ] || fail "an upgrade replaced the edited controller.conf"
[ "$(id -u "$SVC_USER")" = "$uid" ] || fail "an upgrade changed $SVC_USER's uid"
[ -f "$DB" ] || fail "an upgrade lost the database"
ok "upgrade in place keeps the edited conffile, the user and the database"

dpkg_do -r "${PKGS[@]}" || fail "dpkg -r: $(tail -n 5 "$T/dpkg.log")"
for f in /usr/bin/iofleet /usr/bin/iofleet-controller /usr/bin/iofleet-agent \
         $UNITDIR/iofleet-controller.service $UNITDIR/iofleet-agent.service; do
  [ ! -e "$f" ] || fail "dpkg -r left $f"
done
[ -f "$DB" ] || fail "dpkg -r deleted the database"
[ -f /etc/iofleet/controller.conf ] || fail "dpkg -r deleted controller.conf"
getent passwd "$SVC_USER" >/dev/null || fail "dpkg -r deleted the user"
ok "remove: programs and units gone; database, configuration and user kept"

# A state directory that is a mount point (its own file system, say): purge
# empties it, leaves the directory and succeeds.  A bind mount onto itself
# makes one, where this machine lets root mount.
for d in /var/lib/iofleet /var/lib/iofleet-agent; do
  if mount --bind "$d" "$d" 2>/dev/null; then MOUNTS+=("$d"); fi
done
dpkg_do --purge "${PKGS[@]}" || fail "dpkg --purge: $(tail -n 5 "$T/dpkg.log")"
for d in "${MOUNTS[@]}"; do
  [ -d "$d" ] || fail "purge removed the mount point $d (how?)"
  [ -z "$(ls -A "$d")" ] || fail "purge left in the mount point $d: $(ls -A "$d")"
  grep -qF "$d emptied but not removed" "$T/dpkg.log" || fail "purge did not say it kept the mount point $d"
  umount "$d"
  rmdir "$d" || fail "under the mount point, purge left $d: $(ls -A "$d")"
done
mounted=${MOUNTS[*]}
MOUNTS=()
if [ -n "$mounted" ]; then
  ok "purge with mount points (${mounted// /, }): emptied and kept, purge succeeded"
else
  echo "note: root cannot mount here: the purge of a mount point was not tried"
fi
left=$(ls -d /usr/bin/iofleet* /etc/iofleet /var/lib/iofleet /var/lib/iofleet-agent /run/iofleet \
          $UNITDIR/iofleet-* /etc/systemd/system/iofleet-* /etc/systemd/system/*/iofleet-* \
          /var/lib/systemd/deb-systemd-helper-*/*iofleet* /var/lib/systemd/deb-systemd-helper-*/*/iofleet* \
          /usr/share/doc/iofleet-* /usr/share/man/man*/iofleet* \
          /usr/share/bash-completion/completions/iofleet 2>/dev/null || true)
[ -z "$left" ] || fail "purge left: $left"
[ -z "$(dpkg-query -W 'iofleet*' 2>/dev/null)" ] || fail "dpkg still lists: $(dpkg-query -W 'iofleet*')"
# Debian practice: the user and group stay (files it owns may remain; a
# new user given its uid would own them).
[ "$(id -u "$SVC_USER" 2>/dev/null)" = "$uid" ] || fail "purge deleted the user $SVC_USER"
getent group "$SVC_USER" >/dev/null || fail "purge deleted the group $SVC_USER"
ok "purge: nothing left (programs, units, /etc/iofleet, database, spool, dpkg's records) but the user and group $SVC_USER"

# Deleting the user as docs/deploy.md says: nothing of its own left first.
owned=$(find /etc /var /run /srv -xdev -user "$SVC_USER" 2>/dev/null | head -n 5 || true)
[ -z "$owned" ] || fail "files owned by $SVC_USER after purge: $owned"
if command -v deluser >/dev/null; then
  deluser --system "$SVC_USER" >"$T/deluser.log" 2>&1 || fail "deluser --system $SVC_USER: $(cat "$T/deluser.log")"
else
  userdel "$SVC_USER" || fail "userdel $SVC_USER"
fi
if getent group "$SVC_USER" >/dev/null; then groupdel "$SVC_USER" || fail "groupdel $SVC_USER"; fi
! getent passwd "$SVC_USER" >/dev/null || fail "the user $SVC_USER is still there"
! getent group "$SVC_USER" >/dev/null || fail "the group $SVC_USER is still there"
OUR_USER=0
ok "the test deleted the user and group $SVC_USER (deluser --system), as deploy.md says"
echo "package test: $((SECONDS - start)) s in all"
