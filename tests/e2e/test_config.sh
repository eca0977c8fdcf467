#!/usr/bin/env bash
# Configuration files, systemd integration and release skew, end to end:
# - every key of both daemons from a file (the shipped packaging/etc files
#   with every line uncommented), shown by --check-config with its line;
# - a bad value of every key that is checked: exit 2, message naming file,
#   line and key;
# - flags override the file (scalars and repeatable lists);
# - a controller and an agent configured by files alone run a plan, the
#   agent's labels and the controller's interval taken from the files;
# - sd_notify READY=1 from both daemons; journal-style log lines under
#   $JOURNAL_STREAM;
# - an agent speaking another protocol version is refused, both sides
#   naming both releases, and keeps retrying instead of exiting.
. "$(dirname "$0")/lib.sh"
fleet_setup
SRC=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$("$BIN/iofleet-agent" --version | awk '{print $2}')

# Every key a daemon has: the "KEY = VALUE  # default" lines of --check-config.
keys_of () { { "$BIN/$1" --no-config --check-config "${@:2}" 2>/dev/null || true; } | sed -n 's/^\([a-z-]*\) = .* # default$/\1/p'; }

# --- every key from a file -------------------------------------------------
uncomment () { sed -E 's/^#([a-z-]+ =)/\1/' "$1"; }
mkdir -p "$T/cfg" "$T/wd" "$T/keys"
"$BIN/iofleet" keys init "$T/keys" >/dev/null
"$BIN/iofleet" keys agent a1 "$T/keys" >/dev/null
# --check-config reads the HTTPS files' shape (PEM) and the token's (its
# mode, its length); it starts nothing with them.
printf -- '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n' >"$T/http.crt"
printf -- '-----BEGIN PRIVATE KEY-----\nMA==\n-----END PRIVATE KEY-----\n' >"$T/http.key"
echo 0123456789abcdef0123456789abcdef >"$T/http.token"
chmod 600 "$T/http.key" "$T/http.token"
uncomment "$SRC/packaging/etc/controller.conf" \
  | sed -e "s|^keys = .*|keys = $T/keys|" -e "s|^db = .*|db = $T/all.db|" \
        -e "s|^admin = .*|admin = ipc://$T/all.sock|" -e "s|^port-file = .*|port-file = $T/all.port|" \
        -e "s|^http-tls-cert = .*|http-tls-cert = $T/http.crt|" \
        -e "s|^http-tls-key = .*|http-tls-key = $T/http.key|" \
        -e "s|^http-token-file = .*|http-token-file = $T/http.token|" \
  >"$T/cfg/controller-all.conf"
uncomment "$SRC/packaging/etc/agent.conf" \
  | sed -e "s|^cert = .*|cert = $T/keys/a1.cert_secret|" \
        -e "s|^controller-key = .*|controller-key = $T/keys/controller.cert|" \
        -e "s|^workdir = .*|workdir = $T/wd|" -e "s|^spool-dir = .*|spool-dir = $T/spool|" \
  >"$T/cfg/agent-all.conf"
for d in controller agent; do
  extra=()
  [ "$d" = agent ] && extra=(--controller tcp://127.0.0.1:1)
  all=$(keys_of "iofleet-$d" "${extra[@]}")
  # (the agent's controller was given as a flag above, so not a default)
  [ "$d" = agent ] && all="controller $all"
  [ "$(wc -w <<<"$all")" -ge 10 ] || fail "iofleet-$d: found only '$all' as keys"
  "$BIN/iofleet-$d" --config "$T/cfg/$d-all.conf" --check-config >"$T/$d-all.out" 2>"$T/$d-all.err" \
    || fail "iofleet-$d --check-config of every key: $(cat "$T/$d-all.err")"
  for k in $all; do
    grep -qE "^$k = .*# $T/cfg/$d-all.conf:[0-9]+: $k\$" "$T/$d-all.out" \
      || fail "iofleet-$d: key '$k' not taken from the file: $(grep -E "^(# )?$k[ :]" "$T/$d-all.out")"
  done
  # and the shipped file, untouched, is valid as it is (but for the
  # agent, which needs a controller)
  grep -q "# configuration OK" "$T/$d-all.out" || fail "iofleet-$d: no OK line"
  ok "iofleet-$d: every key ($(wc -w <<<"$all")) read from a file"
done
# A default is shown by its value, as in force, not by the word.
"$BIN/iofleet-controller" --no-config --db "$T/x.db" --check-config >"$T/dflt-c.out" 2>&1 || true
"$BIN/iofleet-agent" --no-config --controller tcp://127.0.0.1:1 --name dn --check-config >"$T/dflt-a.out" 2>&1 || true
for w in "^interval = 1s +# default$" "^prepare-timeout = 120s +# default$" "^lost-after = 15s +# default$" \
         "^db-sync = full +# default$" "^listen = tcp://0.0.0.0:5570 +# default$" "^verbose = no +# default$"; do
  grep -qE "$w" "$T/dflt-c.out" || fail "controller --check-config lacks '$w': $(cat "$T/dflt-c.out")"
done
for w in "^spool-max = 256m +# default$" "^spool-dir = /.+ +# default$" "^targets = 4 +# default$" \
         "^sysfs-root = /sys +# default$" "^test-protocol = 2 +# default$" "^label = \(none\) +# default$"; do
  grep -qE "$w" "$T/dflt-a.out" || fail "agent --check-config lacks '$w': $(cat "$T/dflt-a.out")"
done
if grep -qE '^# [a-z-]+: default$' "$T/dflt-c.out" "$T/dflt-a.out"; then fail "a default shown as the word, not its value"; fi
ok "--check-config shows every default by its value"
"$BIN/iofleet-controller" --config "$SRC/packaging/etc/controller.conf" --db "$T/x.db" \
  --check-config >/dev/null || fail "the shipped controller.conf does not check"
"$BIN/iofleet-agent" --config "$SRC/packaging/etc/agent.conf" --check-config >/dev/null 2>"$T/err" \
  && fail "the shipped agent.conf (no controller) was accepted"
grep -q "no controller: pass --controller ENDPOINT, or set 'controller = ENDPOINT' in $SRC/packaging/etc/agent.conf" "$T/err" \
  || fail "agent without controller: $(cat "$T/err")"

# --- a bad value of every checked key ---------------------------------------
bad () {        # bad DAEMON 'key = value' expected-message
  local f="$T/cfg/bad.conf"
  printf '# line 1\n\n%s\n' "$2" >"$f"
  local extra=()
  [ "$1" = agent ] && extra=(--controller tcp://127.0.0.1:1)
  if "$BIN/iofleet-$1" --config "$f" "${extra[@]}" --check-config >/dev/null 2>"$T/err"; then
    fail "iofleet-$1 accepted '$2'"
  fi
  local rc=0
  "$BIN/iofleet-$1" --config "$f" "${extra[@]}" --check-config >/dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "iofleet-$1 '$2': exit $rc, not 2"
  grep -F "$f:3: " "$T/err" | grep -qF "${2%% =*}" || fail "iofleet-$1 '$2': message does not name file, line and key: $(cat "$T/err")"
  grep -qF "$3" "$T/err" || fail "iofleet-$1 '$2': message lacks '$3': $(cat "$T/err")"
}
bad controller 'interval = 5x' 'expected a duration between 0.01 s and 60 s'
bad controller 'interval = 90s' 'expected a duration between 0.01 s and 60 s'
bad controller 'prepare-timeout = 0' 'expected a duration between 1 s and 3.6e+03 s'
bad controller 'lost-after = 1s' 'expected a duration between 2 s and 3.6e+03 s'
bad controller 'db-sync = off' 'full or normal'
bad controller 'test-clock = yesterday' 'Unix seconds'
bad controller 'verbose = maybe' 'yes or no'
bad controller 'lisen = tcp://127.0.0.1:1' "unknown key 'lisen'"
bad controller 'help = yes' "unknown key 'help'"
bad controller 'config = /etc/x' 'a command-line option only'
bad controller 'db =' 'has no value'
bad agent "name = $(printf 'n%.0s' $(seq 80))" '1..'
bad agent 'label = novalue' 'expected KEY=VALUE'
bad agent 'allow = dev/sd*' 'globs are absolute paths'
bad agent 'allow-write = relative' 'globs are absolute paths'
bad agent 'allow-write-formatted = x' 'globs are absolute paths'
bad agent 'spool-max = 1k' 'a size of at least 64k'
bad agent 'simulate = 0' 'a number, 1..100000'
bad agent 'targets = many' 'a number, 1..'
bad agent 'clock-shift-ms = 1h' 'milliseconds'
bad agent 'test-protocol = 0' 'a protocol version'
bad agent 'verbose = 2' 'yes or no'
bad agent 'controler = tcp://x:1' "unknown key 'controler'"
printf '[agent]\ninterval = 1s\n' >"$T/cfg/sect.conf"
"$BIN/iofleet-controller" --config "$T/cfg/sect.conf" --check-config >/dev/null 2>"$T/err" \
  && fail "controller read an [agent] section"
grep -qF "$T/cfg/sect.conf:1: section [agent]: this file is read by iofleet-controller, whose section is [controller]" "$T/err" \
  || fail "section message: $(cat "$T/err")"
printf 'db = a\ndb = b\n' >"$T/cfg/twice.conf"
"$BIN/iofleet-controller" --config "$T/cfg/twice.conf" --check-config >/dev/null 2>"$T/err" \
  && fail "controller took a key twice"
grep -qF "twice.conf:2: key 'db' given twice (first on line 1)" "$T/err" || fail "twice: $(cat "$T/err")"
"$BIN/iofleet-controller" --config "$T/cfg/none.conf" --check-config >/dev/null 2>"$T/err" \
  && fail "a missing --config file was accepted"
grep -qF "cannot read configuration file $T/cfg/none.conf" "$T/err" || fail "missing file: $(cat "$T/err")"
ok "bad values, unknown keys, sections, repeats, missing file: exit 2 naming file and line"

# --- flags override the file ------------------------------------------------
printf '[controller]\ninterval = 2s\ndb = %s/file.db\nlisten = tcp://127.0.0.1:1\n' "$T" >"$T/cfg/prec.conf"
"$BIN/iofleet-controller" --config "$T/cfg/prec.conf" --interval 500ms --check-config >"$T/prec.out"
grep -qE "^interval = 500ms +# --interval$" "$T/prec.out" || fail "flag did not override: $(cat "$T/prec.out")"
grep -qE "^db = $T/file.db +# $T/cfg/prec.conf:3: db$" "$T/prec.out" || fail "file value lost: $(cat "$T/prec.out")"
printf 'label = rack=r1\nlabel = row=2\nallow = /dev/nvme*n1\n' >"$T/cfg/rep.conf"
"$BIN/iofleet-agent" --config "$T/cfg/rep.conf" --controller tcp://127.0.0.1:1 --label rack=r9 \
  --check-config >"$T/rep.out"
[ "$(grep -c '^label = ' "$T/rep.out")" = 1 ] && grep -qE '^label = rack=r9 +# --label$' "$T/rep.out" \
  || fail "a --label did not replace the file's labels: $(grep label "$T/rep.out")"
grep -qE "^allow = /dev/nvme\*n1 +# $T/cfg/rep.conf:3: allow$" "$T/rep.out" || fail "allow from file lost"
ok "flags override the file; a repeatable flag replaces the file's list"

# The admin socket's directory: one that cannot be made is a problem, but
# not when it is the unit's RuntimeDirectory= (systemd makes it at start
# and removes it at stop, when the package's postinst checks).
gone=/nonexistent-iofleet-$$/iofleet
"$BIN/iofleet-controller" --no-config --db "$T/x.db" --listen tcp://127.0.0.1:1 \
  --admin "ipc://$gone/admin.sock" --check-config >/dev/null 2>"$T/err" && fail "an admin directory that cannot be made passed"
grep -qF "admin '$gone': its directory" "$T/err" || fail "admin directory: $(cat "$T/err")"
RUNTIME_DIRECTORY=$gone "$BIN/iofleet-controller" --no-config --db "$T/x.db" --listen tcp://127.0.0.1:1 \
  --check-config >"$T/rt.out" 2>&1 || fail "the unit's runtime directory, not there yet, failed the check: $(cat "$T/rt.out")"
ok "--check-config: a missing admin directory is a problem unless it is the unit's RuntimeDirectory="

# --- daemons configured by files alone run a plan ---------------------------
NOTIFY="$T/notify.sock"
python3 - "$NOTIFY" >"$T/notify.txt" 2>&1 <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
ready = 0
try:
    while ready < 2:
        m = s.recv(4096).decode()
        print(m.replace("\n", " | "), flush=True)
        ready += "READY=1" in m
except socket.timeout:
    pass
EOF
PIDS+=("$!")
for _ in $(seq 50); do [ -S "$NOTIFY" ] && break; sleep 0.1; done
cat >"$T/cfg/controller.conf" <<EOF
[controller]
db = $T/iofleet.db
listen = tcp://127.0.0.1:*
admin = $IOFLEET_CONTROLLER
port-file = $T/agent-endpoint
interval = 500ms
EOF
touch "$T/controller.log"
# JOURNAL_STREAM names the log file's device and inode, as systemd does for
# the journal's stream: lines then carry a priority and no time.
JS=$(stat -c '%d:%i' "$T/controller.log")
NOTIFY_SOCKET="$NOTIFY" JOURNAL_STREAM="$JS" "$BIN/iofleet-controller" --config "$T/cfg/controller.conf" \
  >>"$T/controller.log" 2>&1 &
CTL_PID=$!
PIDS+=("$CTL_PID")
for _ in $(seq 100); do [ -s "$T/agent-endpoint" ] && break; sleep 0.05; done
[ -s "$T/agent-endpoint" ] || fail "controller configured by file did not write its port file"
EP=$(cat "$T/agent-endpoint")
mkdir -p "$T/cf1"
cat >"$T/cfg/agent.conf" <<EOF
[agent]
controller = $EP
name = cf1
label = rack=r7
label = hba=lsi-9500
workdir = $T/cf1
spool-dir = $T/cf1.spool
EOF
NOTIFY_SOCKET="$NOTIFY" "$BIN/iofleet-agent" --config "$T/cfg/agent.conf" >>"$T/cf1.log" 2>&1 &
PIDS+=("$!")
wait_agents 1
"$BIN/iofleet" agents --json | jq -e '.[] | select(.name == "cf1") | .labels.rack == "r7" and .labels.hba == "lsi-9500"' >/dev/null \
  || fail "labels from agent.conf not seen: $("$BIN/iofleet" agents --json | jq -c '.[].labels')"
"$BIN/iofleet" agents | grep -qE "^cf1 +connected +[^ ]+ +$VERSION " \
  || fail "iofleet agents does not show cf1's release: $("$BIN/iofleet" agents)"
grep -q "agent 'cf1' (id [0-9]*, host .*, iofleet $VERSION, 2 label(s)) connected" "$T/controller.log" \
  || fail "the controller did not log cf1's release: $(grep cf1 "$T/controller.log" | head -2)"
probe_plan cfgplan 2
run=$("$BIN/iofleet" run cfgplan --agents all --wait --json 2>/dev/null | jq -r .run)
"$BIN/iofleet" report "$run" --format json >"$T/report.json"
jq -e '.status == "complete" and .steps[0].agents[0].status == "done"' "$T/report.json" >/dev/null \
  || fail "run by file-configured daemons: $(jq -c '{status, a: .steps[0].agents[0].status}' "$T/report.json")"
# interval = 500ms from the file: about 4 snapshots in 2 s, not 2
snaps=$(jq '.steps[0].agents[0].snapshots' "$T/report.json")
[ "$snaps" -ge 3 ] || fail "interval from controller.conf not used: $snaps snapshots in 2 s"
ok "controller and agent configured by files alone: run $run complete, labels and interval (500ms: $snaps snapshots) from the files"

for _ in $(seq 50); do [ "$(grep -c READY=1 "$T/notify.txt")" -ge 2 ] && break; sleep 0.1; done
grep -q "READY=1 | STATUS=agents on $EP" "$T/notify.txt" || fail "no READY=1 from the controller: $(cat "$T/notify.txt")"
grep -q "READY=1 | STATUS=agent 'cf1', controller $EP" "$T/notify.txt" || fail "no READY=1 from the agent: $(cat "$T/notify.txt")"
ok "sd_notify: READY=1 from both daemons"
grep -qE '^<6>iofleet-controller 0\.[0-9.]+: database ' "$T/controller.log" \
  || fail "journal-style line missing: $(head -3 "$T/controller.log")"
if grep -vE '^<[3467]>' "$T/controller.log" | grep -q .; then
  fail "lines without a priority (or with a time stamp) under JOURNAL_STREAM: $(grep -vE '^<[3467]>' "$T/controller.log" | head -3)"
fi
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T.* iofleet-agent I ' "$T/cf1.log" \
  || fail "agent (not under the journal) lost its time stamps: $(head -2 "$T/cf1.log")"
ok "under JOURNAL_STREAM: <priority> lines without time stamps; elsewhere time-stamped lines"

# --- another protocol version: refused, both releases named -----------------
mkdir -p "$T/old"
"$BIN/iofleet-agent" --no-config --controller "$EP" --name old1 --workdir "$T/old" \
  --spool-dir "$T/old.spool" --test-protocol 1 >>"$T/old.log" 2>&1 &
OLD=$!
PIDS+=("$OLD")
want="agent old1 runs iofleet $VERSION (protocol 1), controller runs iofleet $VERSION (protocol 2)"
for _ in $(seq 100); do grep -qF "$want" "$T/old.log" && break; sleep 0.1; done
grep -qF "the controller refuses this agent: protocol version mismatch: $want" "$T/old.log" \
  || fail "agent of protocol 1 did not show the refusal: $(cat "$T/old.log")"
grep -qF "$want" "$T/controller.log" || fail "controller did not log the refusal naming both: $(tail -5 "$T/controller.log")"
sleep 1
kill -0 "$OLD" 2>/dev/null || fail "the refused agent exited (it should keep retrying for an upgrade)"
"$BIN/iofleet" agents --json | jq -e 'all(.[]; .name != "old1")' >/dev/null || fail "the refused agent was registered"
ok "protocol 1 agent refused with both releases named; it keeps retrying"
grep -qF "controller iofleet $VERSION, agent iofleet $VERSION, protocol 2" "$T/cf1.log" \
  || fail "the agent did not log the controller's release: $(grep connected "$T/cf1.log")"
ok "agent logs the controller's release when welcomed"

# --- a second controller on the same admin socket ----------------------------
# ZeroMQ's ipc bind would replace the socket file: the second one must
# refuse, before it touches a database, and the first keeps serving.
rc=0
"$BIN/iofleet-controller" --no-config --db "$T/second.db" --listen 'tcp://127.0.0.1:*' \
  --admin "$IOFLEET_CONTROLLER" >"$T/second.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a second controller on the same admin socket exited $rc: $(cat "$T/second.out")"
grep -qF "admin '$IOFLEET_CONTROLLER' is in use: another controller is running there" "$T/second.out" \
  || fail "second controller: $(cat "$T/second.out")"
[ ! -e "$T/second.db" ] || fail "the refused controller created its database"
"$BIN/iofleet" agents --json | jq -e 'any(.[]; .name == "cf1")' >/dev/null \
  || fail "the first controller stopped answering after the refused one"
ok "a second controller on a served admin socket is refused before touching anything"
