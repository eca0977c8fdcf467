#!/usr/bin/env bash
# A bad link during a step (root: network namespaces and tc netem; skips
# with 77 otherwise).  Two agents, each in a network namespace of its own
# joined to the controller's bridge by a veth pair (CURVE); for the middle
# of a 10 s step agent 1's link delays every packet 200 ms and drops 5% of
# them, both ways (netem on both ends of its veth).  Every interval each
# agent reported is stored exactly once, the fleet series holds both agents
# in every interval, and the run completes with nothing missing.
. "$(dirname "$0")/lib.sh"
command -v tc >/dev/null || { echo "skip: needs tc (iproute2)"; exit 77; }
fleet_setup
netns_setup 2
netns_keys f1 f2
# netem_on / netem_off: agent 1's link, both ways.
netem_on () {
  tc qdisc add dev "${HOST_VETH[1]}" root netem delay 200ms loss 5% \
    && ip netns exec "${NS[1]}" tc qdisc add dev "${NS_VETH[1]}" root netem delay 200ms loss 5%
}
netem_off () {
  tc qdisc del dev "${HOST_VETH[1]}" root 2>/dev/null || true
  ip netns exec "${NS[1]}" tc qdisc del dev "${NS_VETH[1]}" root 2>/dev/null || true
}
AT_EXIT=("netem_off" "${AT_EXIT[@]}")
netem_on 2>"$T/tc.err" || { echo "skip: tc netem is not available here: $(cat "$T/tc.err")"; exit 77; }
netem_off
LISTEN="tcp://$NET_IP:*" start_controller --keys "$T/keys" --interval 200ms
start_ns_agent 1 f1
start_ns_agent 2 f2
wait_agents 2
I="$BIN/iofleet"
probe_plan bad 10
run=$("$I" run bad) || fail "run bad"
wait_step_running "$run"
sleep 1
netem_on || fail "tc qdisc add netem"
tc -s qdisc show dev "${HOST_VETH[1]}" | grep -q 'netem.*delay 200ms loss 5%' || fail "netem: $(tc qdisc show dev "${HOST_VETH[1]}")"
sleep 7
sent=$(tc -s qdisc show dev "${HOST_VETH[1]}" | awk '/Sent/ { print $2 " bytes, " $4 " packets"; exit }')
dropped=$(tc -s qdisc show dev "${HOST_VETH[1]}" | sed -nE 's/.*\(dropped ([0-9]+),.*/\1/p' | head -1)
netem_off
st=$(wait_run "$run")
"$I" report "$run" --format json >"$T/r.json"
"$I" report "$run" >"$T/r.txt"
[ "$st" = complete ] || fail "run across 200 ms delay and 5% loss: $st; $(jq -c '[.steps[0].agents[] | {agent, status, message, snapshots, snapshots_reported, missing_intervals}]' "$T/r.json")"
jq -e '.status == "complete" and (.steps[0] | .status == "complete" and .incomplete_agents == []
       and (.agents | length == 2 and all(.status == "done" and .incomplete == false and .missing_intervals == []
                                           and .snapshots == .snapshots_reported and .snapshots == .intervals_expected)))' \
  "$T/r.json" >/dev/null \
  || fail "report after 200 ms delay and 5% loss: $(jq -c '.steps[0] | {status, inc: .incomplete_agents, a: [.agents[] | {agent, status, message, snapshots, snapshots_reported, intervals_expected, missing_intervals}]}' "$T/r.json")"
grep -q INCOMPLETE "$T/r.txt" && fail "the text report says INCOMPLETE: $(grep INCOMPLETE "$T/r.txt")"
stored=$(nothing_lost "$run" "$T/r.json")
aligned "$run" 0 2
ok "f1's link 7 s at 200 ms delay, 5% loss (to f1: $sent, ${dropped:-0} dropped): run $run complete; intervals stored (each once) $stored; every fleet interval holds both agents"
