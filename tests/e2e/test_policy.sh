#!/usr/bin/env bash
# Run policy: an agent that refuses a step (its --allow does not cover the
# target) is left out and named, or fails the run with --require-all /
# --min-agents.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
TARGET="$T/shared.dat"
start_agent agent-1 --allow "$TARGET" --allow-write "$TARGET"   # laying it out writes it
start_agent agent-2 --allow "$TARGET" --allow-write "$TARGET"
start_agent agent-3                      # not allowed: refuses
wait_agents 3
cat >"$T/plan.fio" <<PLAN
[global]
stonewall
ioengine=libaio
direct=1
rw=randread
bs=4k
size=8m
filename=$TARGET
runtime=1
time_based
[one]
[two]
PLAN
"$BIN/iofleet" plan add p "$T/plan.fio" >/dev/null

# Default: agent-3 is left out, named with its reason; the run is partial.
if "$BIN/iofleet" run p --wait --json >"$T/r1.json" 2>/dev/null; then fail "a run with a refusal exited 0"; fi
jq -e '.status == "partial" and (.report.steps | length) == 2
  and all(.report.steps[]; (.agents[] | select(.agent == "agent-3") | .status == "refused"
                            and (.message | test("not allowed")))
                           and ([.agents[] | select(.status == "done")] | length) == 2
                           and .fleet.read.agents == 2)' "$T/r1.json" >/dev/null \
  || fail "default policy: $(jq -c '{status, s: [.report.steps[] | [.agents[] | [.agent, .status]]]}' "$T/r1.json")"
ok "a refusing agent is left out and named with its reason (run partial)"

# --require-all: the first step fails the run, the second never starts.
if "$BIN/iofleet" run p --require-all --wait --json >"$T/r2.json" 2>/dev/null; then fail "--require-all exited 0"; fi
jq -e '.status == "failed" and (.report.message | test("run policy: step 1.*2 of 3 agent"))
  and .report.steps[1].status == "pending"
  and (.report.steps[0].agents[] | select(.agent == "agent-1") | .message | test("not started"))' \
  "$T/r2.json" >/dev/null || fail "--require-all: $(jq -c '{status, m: .report.message, s: [.report.steps[].status]}' "$T/r2.json")"
ok "--require-all fails the run at the first step with a refusal"

# --min-agents 3 fails the same way; --min-agents 2 runs (partial).
if "$BIN/iofleet" run p --min-agents 3 --wait --json >"$T/r3.json" 2>/dev/null; then fail "--min-agents 3 exited 0"; fi
[ "$(jq -r .status "$T/r3.json")" = failed ] || fail "--min-agents 3: $(jq -r .status "$T/r3.json")"
"$BIN/iofleet" run p --min-agents 2 --wait --json >"$T/r4.json" 2>/dev/null || true
[ "$(jq -r .status "$T/r4.json")" = partial ] || fail "--min-agents 2: $(jq -r .status "$T/r4.json")"
if "$BIN/iofleet" run p --min-agents 4 2>"$T/err4"; then fail "--min-agents 4 of 3 accepted"; fi
grep -q "min-agents 4 but only 3 agent" "$T/err4" || fail "--min-agents 4 message: $(cat "$T/err4")"
ok "--min-agents 3 fails, 2 runs partial, 4 is refused up front"

# Every agent is idle again (the aborted step freed them): a run without
# agent-3 completes.
"$BIN/iofleet" run p --agents agent-1,agent-2 --wait >/dev/null 2>&1 || fail "run on the allowed agents"
ok "after aborts, the allowed agents run the plan to completion"
