#!/usr/bin/env bash
# Scheduled runs on a controller whose scheduler clock the test sets
# (--test-clock): a nightly schedule fires at 02:00, its first run becomes
# the baseline, the second (agent s2 slowed: reads held to 200 IOPS) regresses: the
# regression is recorded per agent and the --on-regression hook gets it as
# JSON; invalid cron expressions are refused naming the field; overlap
# skip; the schedules survive a controller restart and a fire missed while
# it was down runs once (catch-up), or not (--no-catch-up); gc drops
# per-interval data and reports still answer.
. "$(dirname "$0")/lib.sh"
fleet_setup
I="$BIN/iofleet"
utc () { date -u -d "$1" +%s; }
q () { sqlite3 -cmd ".timeout 5000" "$T/iofleet.db" "$1"; }
# Agents reconnect to the restarted controller: a fixed endpoint.
LISTEN="ipc://$T/agents.sock"
HOOK="cat > '$T'/hook-\$IOFLEET_FIRE.json"
start_controller --test-clock "$(utc '2026-12-01 01:58:00')" --on-regression "$HOOK"
declare -A APID
for a in s1 s2; do start_agent "$a"; APID[$a]=${PIDS[-1]}; done
wait_agents 2
probe_plan nightly 4

# --- cron expressions are checked, naming the field ---------------------------
for bad in '0 25 * * *|hour' '61 2 * * *|minute' '0 2 32 * *|day' '0 2 * 13 *|month' \
           '0 2 * * 8|week' '0 2 * *|expected 5' '*/0 2 * * *|step'; do
  expr=${bad%|*} want=${bad#*|}
  if "$I" schedule add bad --cron "$expr" --plan nightly 2>"$T/bad.err"; then
    fail "cron '$expr' accepted"
  fi
  grep -qi "$want" "$T/bad.err" || fail "cron '$expr': error does not name '$want': $(cat "$T/bad.err")"
done
"$I" schedule add bad --cron '0 2 * * *' --tz Mars/Olympus --plan nightly 2>"$T/bad.err" \
  && fail "unknown time zone accepted"
grep -q "time zone" "$T/bad.err" || fail "time zone error: $(cat "$T/bad.err")"
"$I" schedule add bad --cron '0 2 * * *' --plan nosuchplan 2>"$T/bad.err" && fail "unknown plan accepted"
"$I" schedule add bad --cron '0 2 * * *' --plan nightly --by drive.firmwre 2>"$T/bad.err" \
  && fail "unknown --by accepted"
grep -q -- "--by: unknown key 'drive.firmwre'" "$T/bad.err" || fail "--by error: $(cat "$T/bad.err")"
"$I" schedule add bad --cron '0 2 * * *' --plan nightly --baseline 999 2>"$T/bad.err" \
  && fail "unknown --baseline run accepted"
grep -q "baseline 999: no finished run" "$T/bad.err" || fail "--baseline error: $(cat "$T/bad.err")"
"$I" schedule add bad --cron '0 2 * * *' --plan nightly --agents rack=nowhere 2>"$T/bad.err" \
  && fail "--agents nobody matches accepted"
grep -q "no known agent matches --agents 'rack=nowhere'" "$T/bad.err" || fail "--agents error: $(cat "$T/bad.err")"
"$I" schedule add bad --cron '0 2 * * *' --plan nightly --agents s1,nosuch 2>"$T/bad.err" \
  && fail "--agents naming an unknown agent accepted"
grep -q "no agent named 'nosuch' has ever connected" "$T/bad.err" || fail "--agents name error: $(cat "$T/bad.err")"
[ "$(q "SELECT COUNT(*) FROM schedules WHERE name = 'bad'")" = 0 ] || fail "a refused schedule was stored"
ok "invalid cron expressions, zones and plans refused, naming the field"

"$I" schedule add nightly --cron '0 2 * * *' --plan nightly --by agent \
  --fail-on-regression 10 >"$T/add.out" || fail "schedule add"
grep -q "next fire 2026-12-01 02:00 UTC" "$T/add.out" || fail "next fire: $(cat "$T/add.out")"
"$I" schedule add nocatch --cron '30 2 * * *' --plan nightly --overlap skip --no-catch-up \
  >/dev/null || fail "schedule add nocatch"
"$I" schedule list >"$T/list.txt"
grep -qE "^ +agents all; compared by agent against the last passing run; regression beyond 10%; overlap wait; catches up missed fires$" "$T/list.txt" \
  && grep -qE "^ +agents all; compared as a fleet against the last passing run; regression beyond 10%; overlap skip; no catch-up$" "$T/list.txt" \
  || fail "schedule list does not show what each fire does: $(cat "$T/list.txt")"
ok "schedule list shows each schedule's agents, --by, baseline, threshold, overlap and catch-up"

fire_run () {   # fire_run SCHEDULE N: the run of its Nth fire, once queued
  # (a controller holds fires for 10 s after it starts, for agents to return)
  for _ in $(seq 300); do
    r=$(q "SELECT run_id FROM fires WHERE schedule = '$1' ORDER BY id LIMIT 1 OFFSET $(($2 - 1))")
    [ -n "$r" ] && { echo "$r"; return 0; }
    sleep 0.1
  done
  return 1
}
verdict () { q "SELECT verdict FROM fires WHERE run_id = $1"; }

# --- first fire: the baseline ---------------------------------------------------
"$I" test-clock "$(utc '2026-12-01 02:00:00')" >/dev/null
run1=$(fire_run nightly 1) || fail "nightly did not fire at 02:00"
[ "$(wait_run "$run1")" = complete ] || fail "run $run1 not complete"
for _ in $(seq 50); do [ -n "$(verdict "$run1")" ] && break; sleep 0.1; done
[ "$(verdict "$run1")" = no-baseline ] || fail "first run's verdict: '$(verdict "$run1")'"
ok "02:00: nightly fired run $run1 (complete, the first baseline)"
# nocatch (02:30, overlap skip) fires while nothing else runs.
"$I" test-clock "$(utc '2026-12-01 02:30:00')" >/dev/null
runn=$(fire_run nocatch 1) || fail "nocatch did not fire at 02:30"
wait_run "$runn" >/dev/null

# --- overlap skip: a fire while another run holds the fleet ---------------------
probe_plan long 4
runl=$("$I" run long) || fail "run long"
"$I" schedule run-now nocatch 2>"$T/skip.err" && fail "overlap skip: a run was queued"
grep -q "queued or running (overlap skip)" "$T/skip.err" || fail "skip reason: $(cat "$T/skip.err")"
wait_run "$runl" >/dev/null
ok "a fire while run $runl holds the fleet is skipped (--overlap skip)"

# --- second fire: agent s2 slowed (reads held to 200 IOPS): a regression -------
slow_agent "${APID[s2]}"
"$I" test-clock "$(utc '2026-12-02 02:00:00')" >/dev/null
run2=$(fire_run nightly 2) || fail "nightly did not fire on day 2"
unslow_agent_after "$run2"
for _ in $(seq 50); do [ -n "$(verdict "$run2")" ] && break; sleep 0.1; done
[ "$(verdict "$run2")" = regressed ] || fail "run $run2 verdict '$(verdict "$run2")', expected regressed"
"$I" regressions --since 1d --json >"$T/reg.json"
jq -e --argjson r "$run2" --argjson b "$run1" 'map(select(.run == $r and .baseline == $b
      and .group == "agent=s2" and .metric == "iops" and .delta_pct < -10)) | length == 1' "$T/reg.json" >/dev/null \
  || fail "no iops regression for agent=s2: $(jq -c '.[] | {group, metric, delta_pct}' "$T/reg.json")"
"$I" regressions --since 1d >"$T/reg.txt"
grep -q "agent=s2 .*iops" "$T/reg.txt" || fail "text regressions: $(cat "$T/reg.txt")"
for _ in $(seq 100); do ls "$T"/hook-*.json >/dev/null 2>&1 && break; sleep 0.1; done
hook=$(ls "$T"/hook-*.json 2>/dev/null | head -1)
[ -n "$hook" ] || fail "the --on-regression hook did not run"
for _ in $(seq 50); do
  [ "$(q "SELECT hook_status FROM fires WHERE run_id = $run2")" = ok ] && break
  sleep 0.1
done
jq -e --argjson r "$run2" '.run == $r and .schedule == "nightly"
      and (.regressions | map(select(.group == "agent=s2" and .metric == "iops")) | length == 1)' \
  "$hook" >/dev/null || fail "hook input: $(cat "$hook")"
[ "$(q "SELECT hook_status FROM fires WHERE run_id = $run2")" = ok ] \
  || fail "hook status: $(q "SELECT hook_status FROM fires WHERE run_id = $run2")"
d=$(jq --argjson r "$run2" '.[] | select(.run == $r and .group == "agent=s2" and .metric == "iops") | .delta_pct' "$T/reg.json")
ok "day 2: run $run2 regressed against run $run1: agent=s2 IOPS ${d%.*}%; recorded; hook ran with it (exit 0)"

# --- restart: schedules kept; the missed 02:00 fire of day 3 runs once ----------
slow_agent "${APID[s2]}"
stop_controller
# This time the hook fails: its exit status is recorded, the verdict stands.
start_controller --test-clock "$(utc '2026-12-03 04:00:00')" --on-regression 'cat >/dev/null; exit 3'
wait_agents 2
"$I" schedule list --json >"$T/list.json"
jq -e 'map(.name) == ["nightly", "nocatch"]' "$T/list.json" >/dev/null || fail "schedules lost: $(cat "$T/list.json")"
run3=$(fire_run nightly 3) || fail "no catch-up fire"
[ "$(q "SELECT kind || ' ' || due_at FROM fires WHERE run_id = $run3")" = "catch-up $(utc '2026-12-03 02:00:00')" ] \
  || fail "catch-up fire: $(q "SELECT kind, due_at FROM fires WHERE run_id = $run3")"
unslow_agent_after "$run3"
for _ in $(seq 100); do
  [ "$(q "SELECT hook_status FROM fires WHERE run_id = $run3")" = "failed: exit 3" ] && break
  sleep 0.1
done
[ "$(verdict "$run3")" = regressed ] || fail "run $run3 verdict '$(verdict "$run3")'"
[ "$(q "SELECT baseline_run FROM fires WHERE run_id = $run3")" = "$run1" ] \
  || fail "run $run3's baseline is not the last pass ($run1)"
[ "$(q "SELECT hook_status FROM fires WHERE run_id = $run3")" = "failed: exit 3" ] \
  || fail "failing hook status: $(q "SELECT hook_status FROM fires WHERE run_id = $run3")"
n=$(q "SELECT COUNT(*) FROM fires WHERE schedule = 'nocatch'")
[ "$n" = 2 ] || fail "nocatch (--no-catch-up) fired after the restart: $n fires"
[ "$(q "SELECT COUNT(*) FROM fires WHERE schedule = 'nightly'")" = 3 ] \
  || fail "the missed fire ran more than once"
jq -e --arg n "$(utc '2026-12-04 02:30:00')" '.[] | select(.name == "nocatch") | .next_fire == ($n | tonumber)' \
  <("$I" schedule list --json) >/dev/null || fail "nocatch's next fire"
ok "after a restart: both schedules kept; nightly's missed 02:00 ran once at 04:00 (catch-up, run $run3, regressed against the last pass $run1; the failing hook recorded as 'failed: exit 3'); nocatch (--no-catch-up) waits for Dec 4 02:30"

# --- gc: per-interval data goes, results stay; baselines keep theirs ---------
# Baselines now: run $run1 (nightly's last pass), run $runn (nocatch's first).
keep="$run1, $runn"
drop=$(q "SELECT COUNT(*) FROM snapshots WHERE run_id NOT IN ($keep)")
kept=$(q "SELECT COUNT(*) FROM snapshots WHERE run_id IN ($keep)")
[ "$drop" -gt 0 ] && [ "$kept" -gt 0 ] || fail "nothing to gc ($drop) or keep ($kept)"
"$I" gc --keep-intervals 0 >"$T/gc.out" || fail "gc"
grep -qE "gc: [0-9]+ runs?, $drop snapshot rows? dropped; database .* MiB -> .* MiB" "$T/gc.out" \
  || fail "gc output: $(cat "$T/gc.out") (expected $drop rows)"
[ "$(q "SELECT COUNT(*) FROM snapshots")" = "$kept" ] || fail "gc touched the baselines' intervals"
"$I" report "$run2" --format json | jq -e '.steps[0].fleet.read.iops > 0 and .intervals_dropped_at > 0' >/dev/null \
  || fail "report of run $run2 lost its results after gc"
"$I" report "$run2" | grep -q "removed by the retention policy or iofleet gc" || fail "text report does not say gc removed the intervals"
"$I" report "$run2" --format fio-json >/dev/null 2>"$T/fj.err" && fail "fio-json of a gc'd run"
grep -q "removed by the retention policy or iofleet gc" "$T/fj.err" || fail "fio-json error: $(cat "$T/fj.err")"
ok "$(cat "$T/gc.out"); baselines $keep kept their $kept rows; run $run2's report still has its results"
