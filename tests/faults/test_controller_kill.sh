#!/usr/bin/env bash
# kill -9 the controller in the middle of a 3-step run and start it again
# on the same database and port (moved from tests/e2e/test_restart.sh): the
# run is resumed and completes, every (agent, step, target, interval) each
# agent reported is stored exactly once, what the agents spooled while it
# was down included: zero lost, zero duplicated; and the run's message, in
# `iofleet runs`, the JSON report and the text report, names the restart:
# "resumed at step 2/3 after a controller restart".
. "$(dirname "$0")/lib.sh"
fleet_setup
# An ipc endpoint: the restarted controller must find it free, and no other
# process can take it in between (a TCP port could be).
LISTEN="ipc://$T/agents.sock" start_controller
for k in 1 2 3; do start_agent "agent-$k"; done
wait_agents 3
I="$BIN/iofleet"
{
  printf '[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=4\nsize=16m\n'
  printf 'filename=probe.dat\nruntime=3\ntime_based\nstonewall\n'
  printf '[one]\n[two]\n[three]\n'
} >"$T/three.fio"
"$I" plan add three "$T/three.fio" >/dev/null || fail "plan add"
run=$("$I" run three) || fail "run"

# Kill it while step 2 runs.
for _ in $(seq 200); do
  [ "$(sqlite3 "$T/iofleet.db" "SELECT status FROM steps WHERE run_id = $run AND idx = 1" 2>/dev/null)" = running ] && break
  sleep 0.05
done
sleep 1
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
killed_at=$(sqlite3 "$T/iofleet.db" "SELECT group_concat(status) FROM (SELECT status FROM steps WHERE run_id = $run ORDER BY idx)")
sleep 2
LISTEN=$AGENT_EP start_controller
[ "$AGENT_EP" = "$(cat "$T/agent-endpoint")" ] || fail "the controller came back on another port"

s=""
for _ in $(seq 600); do
  s=$("$I" runs --json 2>/dev/null | jq -r --argjson r "$run" '.[] | select(.id == $r) | .status')
  [ "$s" = running ] || [ "$s" = queued ] || [ -z "$s" ] || break
  sleep 0.1
done
grep -q "run $run: resuming at step 2/3" "$T/controller.log" || fail "no resume in the log: $(grep -i resum "$T/controller.log")"
[ "$s" = complete ] || fail "run after the restart: $s; $("$I" report "$run" --format json | jq -c '[.steps[] | {name, status, a: [.agents[] | [.agent, .status, .message, .snapshots, .snapshots_reported]]}]')"

# Every interval each agent reported (DONE) stored once.
rows=$(sqlite3 "$T/iofleet.db" "SELECT s.step_idx, a.name, sa.snapshots, COUNT(DISTINCT s.seq), COUNT(*)
  FROM snapshots s JOIN agents a ON a.id = s.agent_id
  JOIN step_agents sa ON sa.run_id = s.run_id AND sa.step_idx = s.step_idx AND sa.agent_id = s.agent_id
  WHERE s.run_id = $run GROUP BY s.step_idx, s.agent_id ORDER BY s.step_idx, a.name")
[ "$(wc -l <<<"$rows")" -eq 9 ] || fail "want 3 steps x 3 agents, got: $rows"
lost=0; dup=0; total=0
while IFS='|' read -r step agent reported distinct all; do
  [ "$reported" -ge 3 ] || fail "step $step $agent reported $reported intervals"
  lost=$((lost + reported - distinct)); dup=$((dup + all - distinct)); total=$((total + distinct))
done <<<"$rows"
[ "$lost" -eq 0 ] && [ "$dup" -eq 0 ] || fail "lost $lost, duplicated $dup: $rows"
"$I" report "$run" --format json | jq -e '.steps | length == 3 and all(.status == "complete")
  and all(.[]; all(.agents[]; .status == "done" and .incomplete == false))' >/dev/null \
  || fail "report after the restart: $("$I" report "$run" --format json | jq -c "[.steps[] | {status, a: [.agents[] | [.agent, .status, .incomplete, .missing_intervals]]}]")"
ok "controller killed with steps at ($killed_at), restarted: run $run complete, $total intervals stored of $total reported, 0 lost, 0 duplicated"
# The controller answers each message it had queued from an agent it no
# longer knows with "send hello first": one hello and one line per agent
# for the lot (there were 5-6 per reconnection).
for k in 1 2 3; do
  n=$(grep -c "controller: .*hello first" "$T/agent-$k.log" || true)
  [ "$n" -le 1 ] || fail "agent-$k said hello again $n times after one restart: $(grep "hello first" "$T/agent-$k.log")"
done
ok "after the restart: at most one 'send hello first' line per agent"
# The run names what happened, wherever it is read.
want="resumed at step 2/3 after a controller restart"
got=$("$I" runs --json | jq -r --argjson r "$run" '.[] | select(.id == $r) | .message')
[ "$got" = "$want" ] || fail "iofleet runs: run $run's message '$got', want '$want'"
"$I" report "$run" --format json >"$T/r.json"
jq -e --arg m "$want" '.status == "complete" and .message == $m' "$T/r.json" >/dev/null \
  || fail "the JSON report: $(jq -c '{status, message}' "$T/r.json")"
"$I" report "$run" >"$T/r.txt"
sed -n 2p "$T/r.txt" | grep -qxF "  $want" || fail "the text report's head: $(head -3 "$T/r.txt")"
ok "run $run: complete, its message in runs, the JSON and the text report: $want"
