#!/usr/bin/env bash
# Plans and runs as records: plan show / diff / rm, runs rm, run --label
# and --note.  Nothing an operator removes by mistake costs a result: a
# removal without --yes changes nothing, a plan version a run used is
# kept, a running run cannot be removed.
. "$(dirname "$0")/lib.sh"
fleet_setup
start_controller
start_agent agent-1
wait_agents 1
DB=$T/iofleet.db
cli () { "$BIN/iofleet" "$@"; }
rows () { sqlite3 "$DB" "$1"; }

# Two versions of one plan; show and diff.
probe_plan qual 1
probe_plan qual 1 rate_iops=200
cli plan show qual >"$T/show.txt" || fail "plan show"
grep -q "^# plan 'qual' version 2 of 2" "$T/show.txt" || fail "plan show header: $(head -2 "$T/show.txt")"
grep -qx "rate_iops=200" "$T/show.txt" || fail "plan show lacks the job text: $(cat "$T/show.txt")"
cli plan show qual --version 1 | grep -q "rate_iops" && fail "plan show --version 1 shows version 2's text"
[ "$(cli plan show qual --version 1 --json | jq -r .text)" = "$(rows "SELECT text FROM plans WHERE name='qual' AND version=1")" ] \
  || fail "plan show --json text differs from the database's"
rc=0; cli plan show qual --version 7 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "versions 1..2" "$T/err" || fail "plan show --version 7: exit $rc, $(cat "$T/err")"
cli plan diff qual 1 2 >"$T/diff.txt" || fail "plan diff"
grep -qx "+rate_iops=200" "$T/diff.txt" && grep -q "^--- qual version 1" "$T/diff.txt" \
  || fail "plan diff: $(cat "$T/diff.txt")"
cli plan diff qual 2 2 | grep -q "are the same job file" || fail "plan diff of one version with itself"
ok "plan show (newest, --version, --json equal to the stored text) and plan diff (+rate_iops=200)"

# A run with labels and a note; runs shows them, the database holds them.
run=$(cli run qual --label fw=2.1 --label hba.slot=3 --note "after the HBA swap" --wait --json 2>/dev/null | jq -r .run) \
  || fail "run --label --note"
[ "$(rows "SELECT labels || '|' || note FROM runs WHERE id=$run")" = '{"fw":"2.1","hba.slot":"3"}|after the HBA swap' ] \
  || fail "run labels/note stored: $(rows "SELECT labels, note FROM runs WHERE id=$run")"
cli runs | grep -E "^ +$run .* qual \(v2\) +complete .* fw=2.1,hba.slot=3 \"after the HBA swap\"" >/dev/null \
  || fail "runs listing: $(cli runs)"
rc=0; cli run qual --label 'bad key=1' 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "a key is 1..64 letters" "$T/err" || fail "bad label key: exit $rc, $(cat "$T/err")"
rc=0; cli run qual --label novalue 2>"$T/err" || rc=$?
[ $rc = 2 ] && grep -q "want KEY=VALUE" "$T/err" || fail "label without '=': exit $rc, $(cat "$T/err")"
[ "$(rows "SELECT COUNT(*) FROM runs")" = 1 ] || fail "a refused run was stored"
ok "run --label fw=2.1 --label hba.slot=3 --note: stored on run $run and listed by runs; bad labels refused before a run is made"

# run.KEY in the key language: a second run with another firmware label.
run2=$(cli run qual --label fw=2.2 --wait --json 2>/dev/null | jq -r .run) || fail "run --label fw=2.2"
cli report "$run" --by run.fw --format json | jq -e '[.steps[0].groups[] | .value] == ["2.1"]' >/dev/null \
  || fail "report --by run.fw: $(cli report "$run" --by run.fw --format json | jq -c '[.steps[0].groups[] | .value]')"
cli history --where run.fw=2.2 --metric iops --format json >"$T/h.json" || fail "history --where run.fw=2.2"
jq -e --argjson r "$run2" '.rows | length >= 1 and all(.[]; .run == $r)' "$T/h.json" >/dev/null \
  || fail "history --where run.fw=2.2 holds other runs: $(jq -c '[.rows[].run]' "$T/h.json")"
rc=0; cli report "$run" --where run.fw=9.9 >/dev/null 2>"$T/err" || rc=$?
[ $rc != 0 ] && grep -q "matches no" "$T/err" || fail "report --where run.fw=9.9: exit $rc, $(cat "$T/err")"
ok "run labels in the key language: report --by run.fw groups as 2.1, history --where run.fw=2.2 keeps run $run2 only, a label nobody has is refused"

# runs rm: a dry run without --yes, refused while running, then removed
# with every row of it.
before=$(rows "SELECT COUNT(*) FROM snapshots WHERE run_id=$run")
[ "$before" -gt 0 ] || fail "run $run stored no snapshots"
rc=0; cli runs rm "$run" >"$T/rm.txt" 2>"$T/err" || rc=$?
[ $rc = 2 ] && grep -q "would remove" "$T/rm.txt" && grep -q "add --yes" "$T/err" || fail "runs rm without --yes: exit $rc"
[ "$(rows "SELECT COUNT(*) FROM snapshots WHERE run_id=$run")" = "$before" ] || fail "runs rm without --yes removed rows"
cli runs rm "$run" --yes >"$T/rm.txt" || fail "runs rm --yes"
grep -q "removed" "$T/rm.txt" || fail "runs rm output: $(cat "$T/rm.txt")"
for t in $(rows "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type='table' AND c.name='run_id'"); do
  [ "$(rows "SELECT COUNT(*) FROM $t WHERE run_id=$run")" = 0 ] || fail "runs rm left rows in $t"
done
[ "$(rows "SELECT COUNT(*) FROM runs WHERE id=$run")" = 0 ] || fail "runs rm left the run"
rc=0; cli runs rm "$run" --yes 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "no run $run" "$T/err" || fail "runs rm of a removed run: exit $rc"
ok "runs rm: without --yes nothing goes (exit 2); with --yes the run and its $before snapshot row(s), and every other row of it, are gone"

# plan rm: the version a run used stays (its report needs it), the name
# is hidden; adding it again brings it back.
probe_plan scratch 1
probe_plan scratch 1 bs=8k
srun=$(cli run scratch --wait --json 2>/dev/null | jq -r .run) || fail "run scratch"
rc=0; cli plan rm scratch >/dev/null 2>"$T/err" || rc=$?
[ $rc = 2 ] && [ "$(rows "SELECT COUNT(*) FROM plans WHERE name='scratch'")" = 2 ] || fail "plan rm without --yes changed something"
cli plan rm scratch --yes >"$T/prm.txt" || fail "plan rm --yes"
grep -q "deleted 1 of its 2 version" "$T/prm.txt" || fail "plan rm output: $(cat "$T/prm.txt")"
[ "$(rows "SELECT version FROM plans WHERE name='scratch'")" = 2 ] || fail "plan rm kept: $(rows "SELECT version FROM plans WHERE name='scratch'")"
cli plan list | grep -q "^scratch " && fail "plan list still shows a removed plan"
rc=0; cli run scratch 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "no plan named 'scratch'" "$T/err" || fail "run of a removed plan: exit $rc"
cli report "$srun" --format json | jq -e '.steps | length == 1' >/dev/null || fail "report of a run of a removed plan"
probe_plan scratch 1
cli plan list | grep -qE "^scratch +3 " || fail "plan add after rm: $(cli plan list)"
ok "plan rm: the version run $srun used is kept and its report still works, the other deleted, the name hidden from plan list and run until added again (version 3)"

# plan add warns of what only a run would find: no size= on a file.
printf '[nosize]\nioengine=libaio\ndirect=1\nrw=read\nbs=4k\nfilename=data.bin\n' >"$T/nosize.fio"
cli plan add nosize "$T/nosize.fio" >/dev/null 2>"$T/err" || fail "plan add nosize"
grep -q "warning: job 'nosize' has no size=: 'data.bin' must already exist on every agent" "$T/err" \
  || fail "plan add without size=: $(cat "$T/err")"
cli plan add qual2 "$T/qual.fio" >/dev/null 2>"$T/err" || fail "plan add qual2"
[ ! -s "$T/err" ] || fail "plan add with size= warned: $(cat "$T/err")"
ok "plan add warns of a job without size= on a file (it must exist on every agent), and only then"

# A run that fails says why, not only "failed": the agent's refusal.
printf '[x]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=16m\nfilename=/etc/passwd\nruntime=1\ntime_based\n' >"$T/x.fio"
cli plan add refused "$T/x.fio" >/dev/null || fail "plan add refused"
rc=0; cli run refused --wait >"$T/w.out" 2>"$T/w.err" || rc=$?
[ $rc = 1 ] || fail "run --wait of a refused run exited $rc"
grep -qE "^  x +agent agent-1 refused: '/etc/passwd'.* is not allowed on this agent" "$T/w.out" \
  || fail "run --wait of a refused run does not say why: $(cat "$T/w.out" "$T/w.err")"
grep -q "each agent's reason is in iofleet report" "$T/w.err" || fail "run --wait does not point at the report: $(cat "$T/w.err")"
ok "run --wait of a failed run prints the agent's refusal and the report command"

# Last, as it holds the controller's queue: a run in progress can be
# neither removed nor have its plan removed.
probe_plan long 20
lrun=$(cli run long) || fail "run long"
for _ in $(seq 100); do [ "$(rows "SELECT status FROM runs WHERE id=$lrun")" = running ] && break; sleep 0.1; done
rc=0; cli runs rm "$lrun" --yes 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "is running: cancel it first" "$T/err" || fail "runs rm of a running run: exit $rc, $(cat "$T/err")"
rc=0; cli plan rm long --yes 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "is running" "$T/err" || fail "plan rm of a plan being run: exit $rc, $(cat "$T/err")"
ok "runs rm and plan rm of a run in progress: refused, naming the way out"
