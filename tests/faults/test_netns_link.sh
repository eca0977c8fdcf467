#!/usr/bin/env bash
# A network partition mid-step (root: network namespaces; skips with 77
# otherwise).  Two agents, each in a network namespace of its own joined to
# the controller's bridge by a veth pair (CURVE, as off loopback it must
# be); agent 1's link is set down for 5 s in the middle of a 10 s step,
# then up.  It keeps measuring and spooling and, once the link is back,
# resends: every interval each agent reported is stored exactly once, the
# fleet series holds both agents in every interval, and, a 5 s outage
# being no loss under the default --lost-after (15 s), the run completes
# with no agent incomplete and nothing missing in the report.
. "$(dirname "$0")/lib.sh"
fleet_setup
netns_setup 2
netns_keys f1 f2
LISTEN="tcp://$NET_IP:*" start_controller --keys "$T/keys" --interval 200ms
[[ $AGENT_EP == "tcp://$NET_IP:"* ]] || fail "controller listens on $AGENT_EP, not on $NET_IP"
start_ns_agent 1 f1
start_ns_agent 2 f2
wait_agents 2
I="$BIN/iofleet"
probe_plan part 10
run=$("$I" run part) || fail "run part"
wait_step_running "$run"
sleep 2
ip link set "${HOST_VETH[1]}" down
t0=$(date +%s%N)
sleep 5
ip link set "${HOST_VETH[1]}" up
down_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
st=$(wait_run "$run")
"$I" report "$run" --format json >"$T/r.json"
"$I" report "$run" >"$T/r.txt"
[ "$st" = complete ] || fail "run across a 5 s partition: $st; $(jq -c '[.steps[0].agents[] | {agent, status, message, snapshots, snapshots_reported, missing_intervals}]' "$T/r.json")"
jq -e '.status == "complete" and (.steps[0] | .status == "complete" and .incomplete_agents == []
       and (.agents | length == 2 and all(.status == "done" and .incomplete == false and .missing_intervals == []
                                           and .snapshots == .snapshots_reported and .snapshots == .intervals_expected)))' \
  "$T/r.json" >/dev/null \
  || fail "report after a 5 s partition: $(jq -c '.steps[0] | {status, inc: .incomplete_agents, a: [.agents[] | {agent, status, message, snapshots, snapshots_reported, intervals_expected, missing_intervals}]}' "$T/r.json")"
grep -q INCOMPLETE "$T/r.txt" && fail "the text report says INCOMPLETE: $(grep INCOMPLETE "$T/r.txt")"
stored=$(nothing_lost "$run" "$T/r.json")
aligned "$run" 0 2
# What f1 made of it (not asserted: whether it gave up on the connection
# before the link came back is a matter of milliseconds).
seen=$(grep -c "no answer from the controller" "$T/f1.log" || true)
# Welcomed before, f1 does not blame its keys for the network.
grep -q "KEYDIR/agents" "$T/f1.log" && fail "f1 blamed its keys after a partition: $(grep "KEYDIR/agents" "$T/f1.log" | head -1)"
ok "f1's link down ${down_ms} ms mid-step: run $run complete; intervals stored (each once) $stored; every fleet interval holds both agents; f1 said hello again $seen time(s)"
