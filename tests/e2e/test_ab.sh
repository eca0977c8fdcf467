#!/usr/bin/env bash
# compare --template ab (the backplane A/B report's shape), root only: two
# agents, each on a loop device of its own, run one plan at once; agent
# "expander" sits in a blkio/io cgroup that caps its device at 300 read
# IOPS (the slow path), agent "onboard" does not:
#  - compare RUN --a agent=onboard --b agent=expander --template ab: every
#    test's IOPS and bandwidth are down and significant, p99 is up, each
#    test's conclusion is "B worse", and the overall one names the largest
#    drop; the JSON's deltas are compare's own rows;
#  - the same side against itself: no significant difference;
#  - the text has the table and the conclusion.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "skip: not root (needs loop devices and a cgroup)"
  exit 77
fi
fleet_setup
I="$BIN/iofleet"
for d in a b; do truncate -s 64M "$T/$d.img"; done
LA=$(losetup --direct-io=on -f --show "$T/a.img")
AT_EXIT+=("losetup -d $LA")
LB=$(losetup --direct-io=on -f --show "$T/b.img")
AT_EXIT+=("losetup -d $LB")
read_throttle_cgroup iofleet-ab "$LB"
set_read_throttle 300

start_controller
start_agent onboard --allow "$LA"
start_agent expander --allow "$LB"
echo "${PIDS[-1]}" >"$CG/cgroup.procs"
wait_agents 2
cat >"$T/ab.fio" <<EOF2
[global]
ioengine=libaio
direct=1
filename=@loop
runtime=4
time_based
stonewall

[rand-4k]
rw=randread
bs=4k
iodepth=4

[seq-128k]
rw=read
bs=128k
iodepth=4
EOF2
"$I" plan add ab "$T/ab.fio" >/dev/null || fail "plan add"
run=$("$I" run ab --wait --json 2>"$T/run.err" | jq -r .run) || fail "run: $(cat "$T/run.err")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template ab --format json >"$T/ab.json" \
  || fail "compare --template ab exited $?: $(head -c 300 "$T/ab.json")"
jq -e '.ab.tests | length == 2 and all(.[];
         .conclusion == "B worse" and .iops.delta_pct < -20 and .iops.significant == true
         and .bw.delta_pct < -20 and .bw.significant == true and .p99.delta_pct > 0)' "$T/ab.json" >/dev/null \
  || { jq -c '{ab, rows: [.compare.rows[] | [.step, .group, .metric, .delta_pct, .significant]]}' "$T/ab.json" >&2; fail "ab tests"; }
jq -e '.ab.conclusion | .tests == 2 and .b_worse == 2 and (.summary | test("^B is worse than A beyond 5% in 2 of 2 test"))' "$T/ab.json" >/dev/null \
  || fail "ab conclusion: $(jq -c .ab.conclusion "$T/ab.json")"
# The template's deltas are compare's rows, not figures of its own.
jq -e '[.compare.rows[] as $r | .ab.tests[] | select(.step == $r.step) | to_entries[]
        | select(.value | type == "object") | select(.value.metric == $r.metric)
        | .value.delta_pct == $r.delta_pct] | length >= 8 and all' "$T/ab.json" >/dev/null \
  || fail "ab deltas are not compare's rows"
ok "the throttled side: $(jq -r '.ab.tests[] | "\(.step) IOPS \(.iops.delta_pct | floor)% p99 +\(.p99.delta_pct | floor)%"' "$T/ab.json" | paste -sd ';' -); $(jq -r .ab.conclusion.summary "$T/ab.json")"

"$I" compare "$run" --a agent=onboard --b agent=onboard --template ab --format json >"$T/same.json" \
  || fail "compare a side with itself"
jq -e '.ab.conclusion.same == 2 and (.ab.conclusion.summary | test("^no significant difference"))' "$T/same.json" >/dev/null \
  || fail "itself: $(jq -c .ab.conclusion "$T/same.json")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template ab >"$T/ab.txt" || fail "text"
grep -qE "^  rand-4k .* B worse$" "$T/ab.txt" && grep -q "^conclusion at 5%: B is worse than A" "$T/ab.txt" \
  || fail "text: $(cat "$T/ab.txt")"
"$I" compare "$run" --a agent=onboard --b agent=expander --template pts 2>"$T/e1" && fail "--template pts accepted by compare"
grep -q "use ab" "$T/e1" || fail "template refusal: $(cat "$T/e1")"
ok "a side against itself: no significant difference; the text table; refusals"
