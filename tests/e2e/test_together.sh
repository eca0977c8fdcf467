#!/usr/bin/env bash
# On a fleet, job sections without stonewall between them are one step, run
# together on every agent; each job's targets keep rows of their own, even
# when both jobs use the same file.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
start_agent agent-2
wait_agents 2
cat >"$T/plan.fio" <<'PLAN'
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=4
size=8m
filename=shared.dat
runtime=2
time_based
[reader]
rw=randread
[writer]
rw=randwrite
[after]
stonewall
rw=randread
runtime=1
PLAN
"$BIN/iofleet" plan add t "$T/plan.fio" | grep -q "2 step" || fail "plan add did not count 2 steps"
out=$("$BIN/iofleet" run t --wait --json 2>/dev/null) || fail "run exited non-zero: $(jq -c .status <<<"$out")"
jq -e '.report.steps | length == 2 and .[0].name == "reader+writer" and .[1].name == "after"' <<<"$out" >/dev/null \
  || fail "steps: $(jq -c '[.report.steps[].name]' <<<"$out")"
jq -e '.report.steps[0].agents | all((.targets | map(.target | split(":")[0]) | sort) == ["reader", "writer"]
        and (.targets[] | select(.target | startswith("reader:")) | .read.ops > 0 and .write.ops == 0)
        and (.targets[] | select(.target | startswith("writer:")) | .write.ops > 0 and .read.ops == 0))' \
  <<<"$out" >/dev/null || fail "targets of the joint step: $(jq -c '[.report.steps[0].agents[0].targets[] | [.target, .read.ops, .write.ops]]' <<<"$out")"
# Both jobs measured over the same 2 s: the step has 2 intervals, not 4.
jq -e '.report.steps[0] | (.intervals | length) == 2 and all(.intervals[]; .read.ops > 0 and .write.ops > 0)' \
  <<<"$out" >/dev/null || fail "joint step intervals: $(jq -c '[.report.steps[0].intervals[] | [.seq, .read.ops, .write.ops]]' <<<"$out")"
ok "reader+writer ran together as one step on both agents; 'after' (stonewall) ran alone"

# fio's JSON of the run: one entry per step and agent, named after the
# step's first job; the joint step's entry holds both jobs' I/O.
"$BIN/iofleet" report "$(jq -r .run <<<"$out")" --format fio-json >"$T/fio.json"
jq -e '(.jobs | length) == 4 and ([.jobs[].jobname] | unique) == ["after", "reader"]
       and all(.jobs[] | select(.jobname == "reader"); .read.total_ios > 0 and .write.total_ios > 0)' \
  "$T/fio.json" >/dev/null || fail "fio-json of a joint step: $(jq -c '[.jobs[] | [.jobname, .hostname, .read.total_ios, .write.total_ios]]' "$T/fio.json")"
ok "report --format fio-json: the joint step is one entry per agent with both jobs' I/O"

# exitall on a fleet: when a's 1 s ends, b (3 s) stops with it on each agent.
printf '[global]\nioengine=psync\ndirect=1\nrw=read\nbs=4k\nsize=8m\nfilename=ea.dat\nrate_iops=100\ntime_based\n[a]\nruntime=1\n[b]\nruntime=3\nexitall\n' >"$T/ea.fio"
"$BIN/iofleet" plan add ea "$T/ea.fio" >/dev/null || fail "plan add ea"
out=$("$BIN/iofleet" run ea --wait --json 2>/dev/null) || fail "exitall run: $(jq -c .status <<<"$out")"
jq -e '.report.steps[0].agents | length == 2 and all(.targets[] | select(.target | startswith("b:")) | .read.ops > 50 and .read.ops < 150)' \
  <<<"$out" >/dev/null || fail "exitall: b's reads $(jq -c '[.report.steps[0].agents[].targets[] | [.target, .read.ops]]' <<<"$out"), want about 100 (stopped with a at 1 s), not 300"
ok "exitall on agents: b stopped with a after 1 s ($(jq -c '[.report.steps[0].agents[].targets[] | select(.target | startswith("b:")) | .read.ops]' <<<"$out") reads)"
