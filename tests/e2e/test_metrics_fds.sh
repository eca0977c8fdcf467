#!/usr/bin/env bash
# /metrics of a controller holding more sockets than select() can watch
# (FD_SETSIZE, 1024): 1,100 simulated agents, each its own connection,
# then a scrape.  libmicrohttpd on select() reset every such scrape (it
# refuses a socket numbered past FD_SETSIZE); on epoll it answers, with
# every agent counted and, after a 1 s step, a series per agent's drive.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl (scripts/install-deps installs it)"; exit 77; }
N=1100
fleet_setup
start_controller --http 127.0.0.1:0
for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
URL=$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+/metrics' "$T/controller.log" | cut -d' ' -f3)
[ -n "$URL" ] || fail "the controller did not log its metrics address"
"$BIN/iofleet-agent" --controller "$AGENT_EP" --simulate "$N" --targets 1 \
    --spool-dir "$T/simspool" >>"$T/sim.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 600); do
  [ "$("$BIN/iofleet" stats --json | jq '.agents.connected')" = "$N" ] && break
  sleep 0.2
done
[ "$("$BIN/iofleet" stats --json | jq '.agents.connected')" = "$N" ] || fail "not $N agents connected"
fds=$(ls "/proc/$CTL_PID/fd" | wc -l)
[ "$fds" -gt 1024 ] || fail "the controller holds $fds descriptors: not past FD_SETSIZE, the test proves nothing"
code=$(curl -s -o "$T/m.txt" -w '%{http_code}' "$URL") || true
[ "$code" = 200 ] || fail "a scrape with $fds descriptors open: HTTP '$code' ($(tail -2 "$T/controller.log"))"
grep -q "^iofleet_agents{state=\"connected\"} $N$" "$T/m.txt" || fail "agents: $(grep '^iofleet_agents' "$T/m.txt")"
ok "$N agents, $fds descriptors in the controller: /metrics answers, $N connected"

printf '[fds]\nfilename=@all\nioengine=null\nrw=randread\nbs=4k\nruntime=1\ntime_based\n' >"$T/fds.fio"
"$BIN/iofleet" plan add fds "$T/fds.fio" >/dev/null || fail "plan add"
"$BIN/iofleet" run fds --agents all --wait --json >"$T/run.json" 2>"$T/run.err" || fail "run: $(cat "$T/run.err")"
curl -sf -H 'Accept-Encoding: gzip' "$URL" | gzip -dc >"$T/m2.txt" || fail "a gzip'd scrape"
n=$(grep -c '^iofleet_target_ops_total{' "$T/m2.txt" || true)
[ "$n" = "$N" ] || fail "$n target series after the step, want $N"
ok "after a 1 s step: $N per-drive series, served gzip'd"
