#!/usr/bin/env bash
# Trims, the controller's side: two agents that trim (tests/tools/
# trim_peer.c, fixed figures) run a plan of a trimwrite step (writes and
# trims) and a read step.  Trims are stored (snapshots, fleet_intervals,
# results, fleet_results) and reported as a third direction (JSON, text,
# CSV, fio-json/json+, HTML, history, import of fio's JSON); the read step
# has no trace of them.  SLA latency rules and compare's percentiles stay on
# reads and writes; iops totals count trims.
#
# trim_peer's figures, per target t (0: /dev/trimA, 1: /dev/trimB) over the
# 3 intervals (seq 0..2):
#   trims  sum(200 + 7 seq + 100 t) = 621 + 300 t  (64 KiB; 5 an interval
#          at 10 ms, the rest at 2 ms; lat = clat + 1 us; no slat)
#   writes sum(500 + seq + 100 t)   = 1503 + 300 t (4 KiB, 50 us)
#   reads  sum(1000 + 10 seq + 100 t) = 3030 + 300 t (read step)
# so per agent 1542 trims, 3306 writes, 6360 reads; the fleet twice that.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
fleet_setup
start_controller
I="$BIN/iofleet"
DB="$T/iofleet.db"
for a in trim-a trim-b; do
  "$TOOLS/trim_peer" "$AGENT_EP" "$a" >>"$T/$a.log" 2>&1 &
  PIDS+=("$!")
done
wait_agents 2

cat >"$T/trim.fio" <<'EOF'
[global]
stonewall
ioengine=libaio
filename=/dev/trimA:/dev/trimB
bs=4k
runtime=3
time_based

[trimwrite]
rw=randwrite
iofleet_sla=iops>1,p99<1ms

[reads]
rw=randread
EOF
"$I" plan add trim "$T/trim.fio" >/dev/null || fail "plan add"
out=$("$I" run trim --agents trim-a,trim-b --wait --json 2>"$T/run.err") \
  || { cat "$T/run.err" >&2; fail "run --wait exited non-zero"; }
run=$(jq -r '.run' <<<"$out")
[ "$(jq -r '.status' <<<"$out")" = complete ] || fail "run status $(jq -r .status <<<"$out")"
"$I" report "$run" --format json >"$T/r.json"
R="$T/r.json"
# DONE's totals (trims in them) equal what the controller stored: no message.
jq -e '[.steps[].agents[] | .status == "done" and .message == ""] | length == 4 and all' "$R" >/dev/null \
  || fail "agents: $(jq -c '[.steps[].agents[] | [.agent, .status, .message]]' "$R")"
ok "run $run complete; each agent's DONE totals (trims included) match its stored snapshots"

# The trimwrite step: fleet, targets, keys in direction order.
jq -e '.steps[0].fleet | keys_unsorted == ["read", "write", "trim"]
       and .trim.ops == 3084 and .trim.bytes == 3084 * 65536 and .trim.errors == 0
       and .trim.histogram_count == 3084 and .trim.agents == 2
       and .write.ops == 6612 and .read.ops == 0
       and .trim.lat_ns.min == 2000000 and .trim.lat_ns.max == 10000000
       and .trim.latency.slat.N == 0 and .trim.latency.lat.N == 3084
       and .trim.latency.lat.max == 10001000
       and (.trim.percentiles.p50 - 2000000 | fabs) <= 8000
       and (.trim.percentiles.p99 - 10000000 | fabs) <= 40000
       and .trim.iops > 0 and .trim.bw == .trim.iops * 65536' "$R" >/dev/null \
  || fail "step 1 fleet: $(jq -c '.steps[0].fleet | {keys: keys_unsorted, trim: (.trim | {ops, bytes, histogram_count, agents, lat_ns, percentiles}), write: .write.ops}' "$R")"
jq -e '[.steps[0].agents[] | .targets[] | [.target, .trim.ops, .write.ops, (keys_unsorted | index("trim") > index("write"))]]
       == [["/dev/trimA", 621, 1503, true], ["/dev/trimB", 921, 1803, true],
           ["/dev/trimA", 621, 1503, true], ["/dev/trimB", 921, 1803, true]]' "$R" >/dev/null \
  || fail "step 1 targets: $(jq -c '[.steps[0].agents[] | .targets[] | [.target, .trim.ops, .write.ops]]' "$R")"
jq -e '.steps[0].agents | all((.iops - ([.targets[] | .read.iops, .write.iops, .trim.iops] | add) | fabs) < 1e-6)' "$R" >/dev/null \
  || fail "an agent's iops is not the sum of its targets' directions"
ok "trimwrite step: fleet trim 3084 ops (p50 $(jq .steps[0].fleet.trim.percentiles.p50 "$R") ns, p99 $(jq .steps[0].fleet.trim.percentiles.p99 "$R") ns, no slat), per target 621/921"

# Intervals: trims per interval, and iops over every direction.
jq -e '[.steps[0].intervals[] | .trim.ops] == [1000, 1028, 1056]
       and (.steps[0].intervals | all(.trim.histogram_count == .trim.ops
            and ((.iops - .read.iops - .write.iops - .trim.iops) | fabs) < 1e-6))' "$R" >/dev/null \
  || fail "step 1 intervals: $(jq -c '[.steps[0].intervals[] | {seq, iops, trim}]' "$R")"
[ "$(sqlite3 "$DB" "SELECT group_concat(trim_ops, ',') FROM (SELECT trim_ops FROM fleet_intervals WHERE run_id = $run AND step_idx = 0 ORDER BY seq)")" = "1000,1028,1056" ] \
  || fail "fleet_intervals trim_ops: $(sqlite3 "$DB" "SELECT seq, trim_ops FROM fleet_intervals WHERE run_id = $run")"
jq -S '.steps[0].intervals' "$R" >"$T/iv.rows"
sqlite3 "$DB" "DELETE FROM fleet_intervals WHERE run_id = $run"
"$I" report "$run" --format json | jq -S '.steps[0].intervals' >"$T/iv.scan"
cmp -s "$T/iv.rows" "$T/iv.scan" || fail "intervals from fleet_intervals differ from the snapshots': $(diff "$T/iv.rows" "$T/iv.scan" | head -5)"
ok "intervals: trims 1000, 1028, 1056 (fleet_intervals = snapshots), iops counts them"

# The stored rows: trims only where there were some.
got=$(sqlite3 "$DB" "SELECT step_idx || ':' || direction || ':' || COUNT(*) || ':' || SUM(ops) FROM results WHERE run_id = $run GROUP BY step_idx, direction ORDER BY step_idx, direction" | paste -sd' ')
[ "$got" = "0:read:4:0 0:trim:4:3084 0:write:4:6612 1:read:4:12720 1:write:4:0" ] || fail "results rows: $got"
got=$(sqlite3 "$DB" "SELECT step_idx || ':' || direction || ':' || ops FROM fleet_results WHERE run_id = $run ORDER BY step_idx, direction" | paste -sd' ')
[ "$got" = "0:read:0 0:trim:3084 0:write:6612 1:read:12720 1:write:0" ] || fail "fleet_results rows: $got"
[ "$(sqlite3 "$DB" "SELECT SUM(trim_ops), SUM(trim_slat_hist IS NOT NULL), SUM(trim_hist IS NOT NULL) FROM snapshots WHERE run_id = $run GROUP BY step_idx ORDER BY step_idx" | paste -sd' ')" = "3084|0|12 0|0|0" ] \
  || fail "snapshots trim columns: $(sqlite3 "$DB" "SELECT step_idx, SUM(trim_ops), SUM(trim_slat_hist IS NOT NULL), SUM(trim_hist IS NOT NULL) FROM snapshots WHERE run_id = $run GROUP BY step_idx")"
ok "stored: trim rows for the trimwrite step only, no slat"

# The read step: no trace of trims.
jq -e '.steps[1] | (.fleet | keys_unsorted == ["read", "write"]) and .fleet.read.ops == 12720
       and ([.agents[].targets[] | has("trim")] | any | not)
       and ([.intervals[] | has("trim")] | any | not)
       and ([.groups[] | has("trim")] | any | not)' "$R" >/dev/null \
  || fail "read step: $(jq -c '.steps[1].fleet | keys' "$R")"
ok "read step: read and write only, as before trims"

# SLA: iops is over every direction; latency rules judge reads and writes
# (the writes' 50 us pass p99<1ms; the trims' 10 ms are not judged).
jq -e '.steps[0].sla | .verdict == "pass"
       and ([.fleet[] | .direction] | sort) == ["total", "write"]
       and ((.fleet[] | select(.direction == "total") | .value)
            - ($r.steps[0].fleet | .read.iops + .write.iops + .trim.iops) | fabs) < 1e-6' \
    --argjson r "$(cat "$R")" "$R" >/dev/null \
  || fail "SLA: $(jq -c '.steps[0].sla' "$R")"
ok "SLA: iops total with trims, p99 on writes only: $(jq -r '.steps[0].sla.verdict' "$R")"

# Groups: the one group and --by agent carry trims; outliers do not break.
"$I" report "$run" --by agent --format json >"$T/rg.json"
jq -e '([.steps[0].groups[] | [.value, .trim.ops, .trim.histogram_count, .targets]] | sort)
       == [["trim-a", 1542, 1542, 2], ["trim-b", 1542, 1542, 2]]
       and (.steps[0].groups | all((.intervals | length) == 3 and all(.intervals[]; .trim.ops > 0)))
       and ([.steps[1].groups[] | has("trim")] | any | not)' "$T/rg.json" >/dev/null \
  || fail "groups by agent: $(jq -c '[.steps[0].groups[] | {value, trim: .trim.ops}]' "$T/rg.json")"
jq -e '.steps[0].groups[0] | .by == "all" and .trim.ops == 3084' "$R" >/dev/null \
  || fail "the group of all: $(jq -c '.steps[0].groups[0] | {by, trim}' "$R")"
ok "groups: trims per agent 1542, in the group's intervals too"

# Text: a trim row per target and for the fleet, in the trimwrite step only.
"$I" report "$run" >"$T/r.txt"
[ "$(grep -cE '^ +trim-[ab] +/dev/trim[AB] +trim ' "$T/r.txt")" = 4 ] || fail "text: target trim rows: $(cat "$T/r.txt")"
grep -qE '^ +FLEET \(2\) +merged histograms +trim ' "$T/r.txt" || fail "text: no fleet trim row"
[ "$(grep -cE ' trim +[0-9]' "$T/r.txt")" = 5 ] || fail "text: trim rows beyond the trimwrite step"
awk '/^step 2\/2/ { s = 1 } s && / trim / { exit 1 }' "$T/r.txt" || fail "text: a trim row in the read step"
"$I" report "$run" --by agent >"$T/rg.txt"
[ "$(grep -cE '^ +agent=trim-[ab] +merged histograms +trim ' "$T/rg.txt")" = 2 ] || fail "text --by agent: group trim rows"
ok "text: 4 target rows and the fleet's trim row"

# CSV: the same rows.
"$I" report "$run" --format csv >"$T/r.csv"
[ "$(awk -F, '$7 == "trim"' "$T/r.csv" | wc -l)" = 5 ] || fail "csv trim rows: $(grep trim "$T/r.csv")"
awk -F, '$3 == "fleet" && $7 == "trim" && $8 == 3084 { f = 1 } END { exit !f }' "$T/r.csv" \
  || fail "csv: no fleet trim row of 3084 ops"
ok "csv: 5 trim rows"

# fio's formats: trim with real figures where the step trimmed, zeros elsewhere.
"$I" report "$run" --format fio-json >"$T/f.json"
"$I" report "$run" --format fio-json+ >"$T/fp.json"
jq -e '[.jobs[] | [.jobname, .trim.total_ios, .trim.io_bytes, .trim.slat_ns.N, .trim.clat_ns.N, .trim.lat_ns.N,
                   (.trim.clat_ns.percentile | length)]]
       == [["trimwrite", 1542, 1542 * 65536, 0, 1542, 1542, 17], ["trimwrite", 1542, 1542 * 65536, 0, 1542, 1542, 17],
           ["reads", 0, 0, 0, 0, 0, 0], ["reads", 0, 0, 0, 0, 0, 0]]
       and (.jobs[0].trim | keys_unsorted) == (.jobs[0].read | keys_unsorted)
       and .jobs[0].trim.clat_ns.max == 10000000 and .jobs[0].trim.iops > 0
       and .jobs[0].trim.iops_samples == 3
       and (.jobs[2].trim | .iops == 0 and .bw_samples == 0 and .iops_samples == 0)' "$T/f.json" >/dev/null \
  || fail "fio-json trim: $(jq -c '[.jobs[] | [.jobname, .trim.total_ios, .trim.clat_ns.N, .trim.bw_samples]]' "$T/f.json")"
jq -e '[.jobs[] | .trim.clat_ns.bins // {} | [.[]] | add // 0] == [1542, 1542, 0, 0]' "$T/fp.json" >/dev/null \
  || fail "fio-json+ trim bins: $(jq -c '[.jobs[] | .trim.clat_ns.bins]' "$T/fp.json")"
ok "fio-json: trim 1542 ops per agent entry, slat N 0, clat with percentiles (json+: bins)"

# History offers trims (and names them in its error).
"$I" history --direction trim --metric ops --format json >"$T/h.json"
jq -e '[.rows[] | [.step, .direction, .value]] == [["trimwrite", "trim", 3084]]' "$T/h.json" >/dev/null \
  || fail "history trim: $(jq -c '.rows' "$T/h.json")"
if "$I" history --direction discard 2>"$T/h.err" >/dev/null; then fail "history --direction discard accepted"; fi
grep -q "use read, write or trim" "$T/h.err" || fail "history error: $(cat "$T/h.err")"
ok "history: a trim row of 3084 ops; --direction names trim"

# Import of fio's JSON: the json+ export imported again keeps its trims.
"$I" import "$T/fp.json" --plan trim-import --host fiohost --json >"$T/imp.json" || fail "import"
irun=$(jq -r '.run' "$T/imp.json")
"$I" report "$irun" --format json >"$T/ri.json"
jq -e '.steps[0].fleet | keys_unsorted == ["read", "write", "trim"] and .trim.ops == 3084
       and .trim.histogram_count == 3084 and .write.ops == 6612' "$T/ri.json" >/dev/null \
  || fail "imported trims: $(jq -c '.steps[0].fleet | {keys: keys_unsorted, trim: .trim.ops, hc: .trim.histogram_count}' "$T/ri.json")"
jq -e '.steps[1].fleet | keys_unsorted == ["read", "write"]' "$T/ri.json" >/dev/null \
  || fail "imported read step has $(jq -c '.steps[1].fleet | keys' "$T/ri.json")"
jq -e '.steps[0].agents[0].targets | all(.trim.ops == 1542)' "$T/ri.json" >/dev/null \
  || fail "imported targets: $(jq -c '[.steps[0].agents[].targets[] | [.target, .trim.ops]]' "$T/ri.json")"
ok "import: fio's trim sections (total_ios > 0) stored as trims, none for the read step"

# Compare (live against the import, another plan: --force): iops totals
# count trims; the HTML report and comparison match their JSON
# (html_check.py knows trims).
"$I" compare "$run" "$irun" --force --format json >"$T/rows.json" || true
jq -e --argjson r "$(cat "$R")" '[.rows[] | select(.step == "trimwrite" and .group == "fleet" and .metric == "iops")][0].a
       - ($r.steps[0].fleet | .read.iops + .write.iops + .trim.iops) | fabs < 1e-6' "$T/rows.json" >/dev/null \
  || fail "compare iops: $(jq -c '[.rows[] | select(.step == "trimwrite")]' "$T/rows.json")"
CHECK="$(dirname "$0")/../html_check.py"
"$I" report "$run" --format html -o "$T/r.html" || fail "report html"
python3 "$CHECK" report "$T/r.html" "$R" >"$T/r.check" || fail "html report: see above"
grep -q '<td class="l">trim</td>' "$T/r.html" || fail "html: no trim row"
"$I" report "$irun" --format json >"$T/ri.json"
"$I" compare "$run" "$irun" --force --format html -o "$T/cmp.html" || fail "compare html"
python3 "$CHECK" compare "$T/cmp.html" "$R" "$T/ri.json" "$T/rows.json" >"$T/cmp.check" || fail "html compare: see above"
grep -q 'Fleet trim latency histograms' "$T/cmp.html" || fail "html compare: no trim histogram"
ok "compare: iops with trims; html report and comparison check out ($(cat "$T/cmp.check"))"

# The agent's side, for real (root only: a loop device): randtrim and
# trimwrite plans on a real agent issue BLKDISCARDs that its report counts
# as trims; a trim plan on a file is refused before anything is opened, and
# a read_iolog plan without replay_redirect before it is stored.
if [ "$(id -u)" != 0 ]; then
  ok "skipped the real agent's trims (not root: no loop device)"
  exit 0
fi
truncate -s 64M "$T/disk.img"
LOOPDEV=$(losetup --direct-io=on -f --show "$T/disk.img")
AT_EXIT+=("losetup -d $LOOPDEV")
start_agent real-a --allow '/dev/loop*' --allow-write '/dev/loop*'
wait_agents 3
cat >"$T/real.fio" <<EOF2
[global]
stonewall
ioengine=libaio
direct=1
iodepth=4
filename=$LOOPDEV
bs=64k

[rtrim]
rw=randtrim
size=16m

[tw]
rw=trimwrite
size=8m
EOF2
"$I" plan add realtrim "$T/real.fio" >/dev/null || fail "plan add realtrim"
out=$("$I" run realtrim --agents real-a --wait --json 2>"$T/real.err") \
  || { cat "$T/real.err" >&2; fail "realtrim run exited non-zero"; }
rrun=$(jq -r '.run' <<<"$out")
"$I" report "$rrun" --format json >"$T/real.json"
jq -e '.steps[0].fleet | .trim.ops == 256 and .trim.bytes == 16777216 and .trim.errors == 0
       and ((.write.ops // 0) == 0) and ((.read.ops // 0) == 0)' "$T/real.json" >/dev/null \
  || fail "randtrim on $LOOPDEV: $(jq -c '.steps[0].fleet | {r: .read.ops, w: .write.ops, t: .trim.ops}' "$T/real.json")"
jq -e '.steps[1].fleet | .trim.ops == 128 and .write.ops == 128' "$T/real.json" >/dev/null \
  || fail "trimwrite on $LOOPDEV: $(jq -c '.steps[1].fleet | {w: .write.ops, t: .trim.ops}' "$T/real.json")"
ok "a real agent's randtrim (256 of 64k over 16m) and trimwrite (128 + 128) on $LOOPDEV, counted as trims"

printf '[f]\nrw=trim\nbs=4k\nsize=1m\nfilename=trim.dat\n' >"$T/file.fio"
"$I" plan add filetrim "$T/file.fio" >/dev/null || fail "plan add filetrim"
out=$("$I" run filetrim --agents real-a --wait --json 2>"$T/ft.err") && fail "a trim plan on a file ran"
frun=$(jq -r '.run' <<<"$out")
"$I" report "$frun" --format json >"$T/ft.json"
jq -e '.steps[0].agents[0].message | test("only a block device takes")' "$T/ft.json" >/dev/null \
  || fail "trim on a file: $(jq -c '.steps[0].agents[0] | [.status, .message]' "$T/ft.json")"
[ ! -e "$T/real-a/trim.dat" ] || fail "the refused trim plan created trim.dat"
ok "a trim plan on a file is refused before the file is made"

printf '[r]\nread_iolog=r.log\n' >"$T/replay.fio"
if "$I" plan add replay "$T/replay.fio" >/dev/null 2>"$T/replay.err"; then
  fail "a read_iolog plan without replay_redirect was stored"
fi
grep -q "read_iolog without replay_redirect" "$T/replay.err" || fail "replay refusal: $(cat "$T/replay.err")"
ok "a read_iolog plan without replay_redirect is refused at plan add"
