#!/usr/bin/env bash
# --http under a flood of idle and slow connections from one address
# (issue 40, item 2), real sockets on loopback: 1,000 connections held
# open (each reopened as soon as the controller drops it), a fifth of
# them trickling a request one byte a second, and /metrics must still
# answer, every time, within the issue's 2 s.  Then the same against a
# pool too small for the flood (the controller's open-file limit 1024:
# a pool of 256), where the connections idle longest are evicted for the
# newcomers.  The controller survives and counts what it closed.  Then
# the 400s of item 7: a NUL in the path or the query, a run id past
# int64, a by= key the command line refuses.
#
# Timing, and why it cannot flake: the fault is a lockout, not slowness.
# Before, libmicrohttpd stopped accepting at 64 connections and a probe
# waited in the kernel's backlog until a slot freed (10 s, and never
# while the flood reopened): no answer at all.  Here a probe is answered
# in milliseconds (times printed).  Each probe gets curl --max-time 10,
# far past any slow machine's scrape, so a lockout fails it and a busy
# CI does not; the 2 s of the issue is asserted on the median of the
# probes, which one stall of a loaded machine does not move.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl (scripts/install-deps installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
N=1000
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge $((N + 100)) ] \
  || { echo "skip: open-file limit $(ulimit -n): $N connections need more"; exit 77; }
fleet_setup

# flood.py HOST PORT N SECONDS SLOW_EVERY OUT: N connections held for
# SECONDS (reopened when dropped); every SLOW_EVERY-th sends a request's
# first line and then one header byte a second, never its end.
cat >"$T/flood.py" <<'EOF'
import selectors, socket, sys, time
host, port, n, secs, slow_every, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
sel = selectors.DefaultSelector()
opened = dropped = refused = 0
slow = {}
def connect(i):
    global opened, refused
    s = socket.socket(); s.setblocking(False)
    try:
        s.connect_ex((host, port))
    except OSError:
        refused += 1; s.close(); return
    sel.register(s, selectors.EVENT_READ, i); opened += 1
    if slow_every and i % slow_every == 0:
        slow[s] = True
        try: s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        except OSError: pass
for i in range(n):
    connect(i)
end = time.monotonic() + secs
next_tick = time.monotonic() + 1
while time.monotonic() < end:
    for key, _ in sel.select(timeout=0.2):
        s = key.fileobj
        try: data = s.recv(4096)
        except OSError: data = b""
        if not data:            # dropped by the server: reopen, as an attacker would
            sel.unregister(s); slow.pop(s, None); s.close(); dropped += 1
            connect(key.data)
    if time.monotonic() >= next_tick:
        next_tick += 1
        for s in list(slow):
            try: s.send(b"a")
            except OSError: pass
with open(out, "w") as f:
    f.write("opened %d dropped %d refused %d held %d\n" % (opened, dropped, refused,
                                                          len(sel.get_map())))
EOF

# metrics_url: the controller's /metrics URL from its log.
metrics_url () {
  for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
  grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+/metrics' "$T/controller.log" | tail -1 | cut -d' ' -f3
}

# probe_under_flood NAME: N connections from flood.py for 14 s; 8 probes
# of /metrics, one a second from the 3rd; each must answer 200 (10 s at
# most), their median under 2 s.
probe_under_flood () {
  local name=$1 port times=() codes=() t
  port=$(echo "$URL" | sed -E 's|.*:([0-9]+)/metrics|\1|')
  python3 "$T/flood.py" 127.0.0.1 "$port" "$N" 14 5 "$T/flood-$name.txt" &
  local fpid=$!
  PIDS+=("$fpid")
  sleep 3
  held=$(ls "/proc/$CTL_PID/fd" | wc -l)
  for _ in $(seq 8); do
    t=$(curl -s -o "$T/m-$name.txt" --max-time 10 -w '%{http_code} %{time_total}' "$URL") || true
    codes+=("${t%% *}")
    times+=("${t##* }")
    sleep 1
  done
  wait "$fpid" || fail "$name: the flood script failed"
  echo "$name: probe times (s): ${times[*]}; HTTP ${codes[*]}; the controller held $held descriptors 3 s in; flood: $(cat "$T/flood-$name.txt")"
  for c in "${codes[@]}"; do
    [ "$c" = 200 ] || fail "$name: /metrics under $N connections answered '${codes[*]}' (times ${times[*]})"
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)
  awk -v m="$median" 'BEGIN { exit !(m < 2) }' \
    || fail "$name: median /metrics time $median s under $N connections, past 2 s (times ${times[*]})"
  kill -0 "$CTL_PID" || fail "$name: the controller died"
}

# counter NAME FILE: a /metrics sample's value.
counter () { grep -E "^$1 " "$2" | awk '{print $2}'; }

# 1. A pool larger than the flood (the open-file limit raised to the hard one).
start_controller --http 127.0.0.1:0
URL=$(metrics_url)
[ -n "$URL" ] || fail "the controller did not log its metrics address"
curl -sf "$URL" -o "$T/m0.txt" || fail "a first scrape"
limit=$(counter iofleet_http_connections_limit "$T/m0.txt")
soft=$(awk '/Max open files/ {print $4}' "/proc/$CTL_PID/limits")
echo "controller: open-file limit $soft (hard $(ulimit -Hn)), --http pool $limit"
[ "$soft" = "$(ulimit -Hn)" ] || fail "the controller's soft open-file limit $soft, not the hard $(ulimit -Hn)"
[ "$limit" -gt 64 ] || fail "a pool of $limit connections"
probe_under_flood large
sleep 1
curl -sf "$URL" -o "$T/m1.txt" || fail "a scrape after the flood"
slow=$(counter 'iofleet_http_connections_closed_total\{why="slow"\}' "$T/m1.txt")
acc=$(counter iofleet_http_connections_accepted_total "$T/m1.txt")
echo "large pool: accepted $acc, closed slow $slow, evicted $(counter 'iofleet_http_connections_closed_total\{why="evicted"\}' "$T/m1.txt")"
[ "$acc" -ge "$N" ] || fail "accepted $acc connections, fewer than the $N of the flood"
[ "$slow" -gt 0 ] || fail "no connection closed as slow: the trickling ones were kept past 5 s"
ok "a pool of $limit: /metrics answers under $N idle and slow connections; $slow slow ones closed"

# A request whose headers are in but whose body trickles, a byte a second,
# is not a whole request: closed on its 5 s deadline (swept as the next
# connection comes, one a second here), not kept as one being answered.
python3 - "$(echo "$URL" | sed -E 's|.*:([0-9]+)/metrics|\1|')" >"$T/trickle.txt" <<'EOF' \
  || fail "a POST trickling its body: $(cat "$T/trickle.txt")"
import socket, sys, time
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
s.settimeout(1)
t0 = time.monotonic()
while time.monotonic() - t0 < 20:
    try:
        s.send(b"a")
        if not s.recv(4096):
            break
    except socket.timeout:
        pass
    except OSError:
        break
    socket.create_connection(("127.0.0.1", port)).close()
else:
    print("still open after 20 s"); sys.exit(1)
print("closed after %.1f s" % (time.monotonic() - t0))
EOF
ok "a body trickled a byte a second: $(cat "$T/trickle.txt") (deadline 5 s)"

# 2. A pool smaller than the flood: the controller's open-file limit 1024.
stop_controller
: >"$T/controller.log"
(ulimit -n 1024; ulimit -Hn 1024; start_controller --http 127.0.0.1:0; echo "$CTL_PID" >"$T/ctl.pid"; wait "$CTL_PID") &
PIDS+=("$!")
for _ in $(seq 100); do [ -s "$T/ctl.pid" ] && break; sleep 0.05; done
CTL_PID=$(cat "$T/ctl.pid")
PIDS+=("$CTL_PID")
AGENT_EP=$(cat "$T/agent-endpoint")
URL=$(metrics_url)
[ -n "$URL" ] || fail "the controller (open-file limit 1024) did not log its metrics address"
curl -sf "$URL" -o "$T/m2.txt" || fail "a first scrape (open-file limit 1024)"
limit=$(counter iofleet_http_connections_limit "$T/m2.txt")
[ "$limit" -lt "$N" ] || fail "a pool of $limit with an open-file limit of 1024: the flood fits, nothing is evicted"
probe_under_flood small
curl -sf "$URL" -o "$T/m3.txt" || fail "a scrape after the flood (small pool)"
ev=$(counter 'iofleet_http_connections_closed_total\{why="evicted"\}' "$T/m3.txt")
echo "small pool: accepted $(counter iofleet_http_connections_accepted_total "$T/m3.txt"), evicted $ev"
[ "$ev" -gt 0 ] || fail "a pool of $limit under $N connections evicted none"
ok "a pool of $limit: the connections idle longest evicted ($ev), /metrics answers"
# libmicrohttpd says a line per connection a client drops: at most one a
# minute reaches the log (before: a line per dropped connection).
said=$(grep -c -- ' --http: ' "$T/controller.log" || true)
[ "$said" -le 2 ] || fail "$said lines of libmicrohttpd's in the controller's log under the flood"

# 3. Item 7's 400s, naming the input.
start_agent a1
wait_agents 1
probe_plan j 1
"$BIN/iofleet" run j --agents all --wait >/dev/null 2>"$T/run.err" || fail "run: $(cat "$T/run.err")"
# expect_400 PATH TEXT: PATH answers 400 with TEXT in its body.
expect_400 () {
  local code
  code=$(curl -s -o "$T/b.txt" --max-time 10 -w '%{http_code}' "${URL%/metrics}$1") || true
  [ "$code" = 400 ] || fail "$1: HTTP $code, want 400 ($(head -c 300 "$T/b.txt"))"
  # The pages' text HTML-escaped, back.
  sed -i "s/&#39;/'/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&amp;/\&/g" "$T/b.txt"
  grep -qF -- "$2" "$T/b.txt" || fail "$1: the answer does not name '$2': $(head -c 300 "$T/b.txt")"
  echo "$1 -> 400: $(grep -oF -- "$2" "$T/b.txt" | head -1)"
}
curl -sf -o /dev/null "${URL%/metrics}/runs/1/live" || fail "/runs/1/live itself"
expect_400 '/runs/1%00/live' "'/runs/1%00/live': a NUL byte"
expect_400 '/api/runs/1%00' "'/api/runs/1%00': a NUL byte"
expect_400 '/runs/1?by=agent%00x' "'/runs/1?by=agent%00x': a NUL byte"
# A raw NUL byte in the request line (no client sends one; a socket can).
python3 - "$(echo "$URL" | sed -E 's|.*:([0-9]+)/metrics|\1|')" >"$T/rawnul.txt" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /runs/1\x00/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
s.settimeout(10)
d = b""
while True:
    c = s.recv(4096)
    if not c:
        break
    d += c
sys.stdout.write(d.decode("latin-1"))
EOF
head -1 "$T/rawnul.txt" | grep -q '^HTTP/1.1 400' || fail "GET /runs/1<NUL>/live: $(head -1 "$T/rawnul.txt")"
grep -q "'/runs/1' then a NUL byte" "$T/rawnul.txt" || fail "GET /runs/1<NUL>/live: $(tail -1 "$T/rawnul.txt")"
echo "GET /runs/1<NUL>/live -> $(tail -1 "$T/rawnul.txt")"
expect_400 '/api/runs/9223372036854775808' "run id '9223372036854775808' does not fit in 64 bits"
expect_400 '/runs/99999999999999999999/live' "run id '99999999999999999999' does not fit"
expect_400 '/api/compare?a=1&b=9223372036854775808' "run id '9223372036854775808' does not fit"
curl -s "${URL%/metrics}/api/runs/9223372036854775807" | grep -q 'no run 9223372036854775807' \
  || fail "the largest run id is not looked up as itself"
expect_400 '/runs/1?by=drive.nope' "by: unknown key 'drive.nope'"
expect_400 '/api/runs/1?by=%3Cscript%3E%20x=1' "by: unknown key '<script> x=1'"
expect_400 '/history?by=label.a=b' "by: key 'label.a=b'"
curl -sf -o /dev/null "${URL%/metrics}/runs/1?by=agent" || fail "/runs/1?by=agent refused"
# A bare label key of printable characters is a key on the command line
# too (--by '<script>...' groups by that label, which no agent has): the
# page groups by it and writes it escaped, never as markup.
curl -sf -o "$T/xss.html" "${URL%/metrics}/runs/1?by=%3Cscript%3Ealert(7)%3C/script%3E" \
  || fail "/runs/1?by=<script>alert(7)</script>: not 200"
grep -q '<script' "$T/xss.html" && fail "the by= key written into the page as markup"
grep -q '&lt;script&gt;alert(7)' "$T/xss.html" || fail "the by= key not on the page, escaped"
curl -sf "$URL" -o "$T/m4.txt" || fail "a scrape after the 400s"
bad=$(counter iofleet_http_bad_requests_total "$T/m4.txt")
[ "$bad" = 4 ] || fail "iofleet_http_bad_requests_total $bad, want 4 (the NULs)"
ok "a NUL in the path or query, a run id past int64, a by= key the CLI refuses: 400 naming it"
