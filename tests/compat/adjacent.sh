#!/usr/bin/env bash
# Adjacent releases work together: builds iofleet at REV (the previous
# release, e.g. the last commit of 0.1.x) and runs a plan with
#   1. this build's controller and REV's agent,
#   2. REV's controller and this build's agent,
# each time checking that the run completes with every interval stored.
# Each side's CLI talks to its own controller.  Not part of the suite (it
# builds another release: about a minute); run it before a release:
#
#   IOFLEET_BIN=build/bin IOFLEET_FIXTURES=tests/fixtures tests/compat/adjacent.sh REV
#
# Exit 0 when both directions work, 1 otherwise.
REV=${1:?usage: adjacent.sh REV (a commit of the previous release)}
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fleet_setup
NEW=$BIN
OLD_SRC="$T/old-src"
mkdir -p "$OLD_SRC"
git -C "$SRC" archive "$REV" | tar -x -C "$OLD_SRC" || fail "cannot export $REV"
echo "building $REV ..."
cmake -S "$OLD_SRC" -B "$T/old-build" -DCMAKE_BUILD_TYPE=Release >"$T/old-build.log" 2>&1 \
  && cmake --build "$T/old-build" -j "$(nproc)" --target iofleet-controller iofleet-agent iofleet \
     >>"$T/old-build.log" 2>&1 || { tail -20 "$T/old-build.log"; fail "building $REV failed"; }
OLD="$T/old-build/bin"
echo "old: $("$OLD/iofleet-agent" --version); new: $("$NEW/iofleet-agent" --version)"

# run_pair CTL_BIN AGENT_BIN LABEL: a plan of two 2 s steps on 2 agents.
run_pair () {
  local cbin=$1 abin=$2 label=$3
  local db="$T/$label.db"
  rm -f "$T/agent-endpoint"
  "$cbin/iofleet-controller" --db "$db" --listen "tcp://127.0.0.1:*" --admin "$IOFLEET_CONTROLLER" \
    --port-file "$T/agent-endpoint" >>"$T/$label-controller.log" 2>&1 &
  local cpid=$!
  PIDS+=("$cpid")
  for _ in $(seq 100); do [ -s "$T/agent-endpoint" ] && break; sleep 0.05; done
  [ -s "$T/agent-endpoint" ] || fail "$label: controller did not start"
  local ep apids=()
  ep=$(cat "$T/agent-endpoint")
  for n in 1 2; do
    mkdir -p "$T/$label-a$n"
    "$abin/iofleet-agent" --controller "$ep" --name "$label-a$n" --workdir "$T/$label-a$n" \
      --spool-dir "$T/$label-a$n.spool" >>"$T/$label-a$n.log" 2>&1 &
    apids+=("$!")
    PIDS+=("$!")
  done
  local c=0
  for _ in $(seq 100); do
    c=$("$cbin/iofleet" agents --json 2>/dev/null | jq '[.[] | select(.connected)] | length' || echo 0)
    [ "$c" -ge 2 ] && break
    sleep 0.1
  done
  [ "$c" -ge 2 ] || fail "$label: only $c of 2 agents connected: $(tail -3 "$T/$label-a1.log")"
  "$cbin/iofleet" plan add two "$FIXTURES/jobs/e2e-two-steps.fio" >/dev/null || fail "$label: plan add"
  local run
  run=$("$cbin/iofleet" run two --agents all --wait --json 2>/dev/null | jq -r .run)
  "$cbin/iofleet" report "$run" --format json >"$T/$label.json" || fail "$label: report"
  jq -e '.status == "complete" and (.steps | length) == 2
         and all(.steps[].agents[]; .status == "done" and .snapshots == .snapshots_reported)' \
     "$T/$label.json" >/dev/null \
    || fail "$label: run $run: $(jq -c '{status, a: [.steps[].agents[] | [.name, .status, .snapshots, .snapshots_reported]]}' "$T/$label.json")"
  ok "$label: run $run complete, $(jq '[.steps[].agents[].snapshots] | add' "$T/$label.json") snapshots, all stored; agent versions seen: $("$cbin/iofleet" agents --json | jq -c '[.[].agent_version // .[].version] | unique')"
  kill -TERM "${apids[@]}" "$cpid"
  wait "${apids[@]}" "$cpid" 2>/dev/null || true
}
run_pair "$NEW" "$OLD" new-controller-old-agents
run_pair "$OLD" "$NEW" old-controller-new-agents
