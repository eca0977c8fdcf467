#!/usr/bin/env bash
# iofleet import and iofleet history: JSON written by the installed fio
# (normal, json+, and client/server with two local fio servers) lands in
# the history with fio's own figures; iofleet's own runs join it, grouped
# by label and filtered; bad files are refused with the field named and
# nothing stored.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "skip: fio is not installed"; exit 77; }
fleet_setup
start_controller
I="$BIN/iofleet"

cat >"$T/job.fio" <<EOF
[global]
ioengine=libaio
direct=1
filename=$T/fio.dat
size=16m
time_based
runtime=1
[rr]
rw=randread
bs=4k
iodepth=4
[mix]
stonewall
rw=randrw
bs=4k
iodepth=2
EOF
fio --output-format=json "$T/job.fio" >"$T/normal.json" 2>"$T/fio.log" || fail "fio json"
fio --output-format=json+ "$T/job.fio" >"$T/plus.json" 2>>"$T/fio.log" || fail "fio json+"

# Two fio servers on free loopback ports, stopped by the trap.
read -r P1 P2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
for p in "$P1" "$P2"; do
  fio --server="ip:127.0.0.1,$p" >>"$T/fio-server-$p.log" 2>&1 &
  PIDS+=("$!")
done
for p in "$P1" "$P2"; do
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done
done
fio --output-format=json --client="ip:127.0.0.1,$P1" "$T/job.fio" --client="ip:127.0.0.1,$P2" "$T/job.fio" \
  >"$T/cs.json" 2>>"$T/fio.log" || fail "fio client/server"

"$I" import "$T/normal.json" --label drive.firmware=A --host h1 --json >"$T/i1" || fail "import normal"
"$I" import "$T/plus.json" --label drive.firmware=B --host h1 --json >"$T/i2" || fail "import json+"
"$I" import "$T/cs.json" --label drive.firmware=B --json >"$T/i3" || fail "import client/server"
r1=$(jq .run "$T/i1"); r2=$(jq .run "$T/i2"); r3=$(jq .run "$T/i3")
jq -e '.latency | startswith("percentiles only")' "$T/i1" >/dev/null || fail "normal import: $(cat "$T/i1")"
jq -e '.latency == "histograms"' "$T/i2" >/dev/null || fail "json+ import: $(cat "$T/i2")"
jq -e '.entries == 4 and .steps == 2' "$T/i3" >/dev/null || fail "client/server import: $(cat "$T/i3")"

# Normal: fio's figures as they were, percentiles marked as fio's.
"$I" report "$r1" --format json >"$T/r1.json" || fail "report $r1"
jq -e --slurpfile f "$T/normal.json" '
  ($f[0].jobs[] | select(.jobname == "rr") | .read) as $fr
  | .origin == "fio" and .labels["drive.firmware"] == "A"
    and (.steps[] | select(.name == "rr") | .agents[0] as $a
    | $a.agent == "fio:h1"
    and $a.targets[0].read.ops == $fr.total_ios
    and $a.targets[0].read.iops == $fr.iops
    and $a.targets[0].read.percentiles_only == true
    and $a.targets[0].read.percentiles.p99 == $fr.clat_ns.percentile["99.000000"]
    and $a.targets[0].read.lat_ns.mean == $fr.clat_ns.mean
    and .fleet.read.percentiles.p99 == $fr.clat_ns.percentile["99.000000"])' "$T/r1.json" >/dev/null \
  || fail "normal import figures: $(jq -c '.steps[0].agents[0].targets[0].read' "$T/r1.json")"
ok "fio json: ops, IOPS, mean and fio's p99 stored as fio wrote them, marked percentiles_only"

# json+: the bins are a histogram: every I/O counted, percentiles within
# fio's own bin width (<= 1/64 of the value) plus ours (1/256) of fio's.
"$I" report "$r2" --format json >"$T/r2.json" || fail "report $r2"
jq -e --slurpfile f "$T/plus.json" '
  [ $f[0].jobs[] | {name: .jobname, r: .read, w: .write} ] as $jobs
  | (.steps | length == 2)
  and all(.steps[]; . as $s
      | ($jobs[] | select(.name == $s.name)) as $j
      | all(["read", "write"][]; . as $dn
          | ($j | if $dn == "read" then .r else .w end) as $fd
          | if $fd.total_ios == 0 then true else
            ($s.fleet[$dn]) as $m
            | $m.histogram_count == $fd.total_ios
            and $m.ops == $fd.total_ios
            and ($m.percentiles_only | not)
            and all(["50.000000", "90.000000", "99.000000", "99.900000"][]; . as $q
                | ($fd.clat_ns.percentile[$q]) as $want
                | ($m.percentiles["p" + ($q | tonumber | tostring)]) as $got
                | (($got - $want) | fabs) <= $want * (1 / 64 + 1 / 256) + 1)
            end))' "$T/r2.json" >/dev/null \
  || fail "json+ import: iofleet $(jq -c '[.steps[] | {name, r: .fleet.read | {ops, histogram_count, percentiles}, w: .fleet.write | {ops, histogram_count, percentiles}}]' "$T/r2.json") against fio $(jq -c '[.jobs[] | {jobname, r: {n: .read.total_ios, p: .read.clat_ns.percentile, min: .read.clat_ns.min, max: .read.clat_ns.max}, w: {n: .write.total_ios, p: .write.clat_ns.percentile, min: .write.clat_ns.min, max: .write.clat_ns.max}}]' "$T/plus.json"); fio's json+ kept as $(cp "$T/plus.json" "${TMPDIR:-/tmp}/iofleet-history-plus.json" && echo "${TMPDIR:-/tmp}/iofleet-history-plus.json")"
ok "fio json+: bins became histograms (every I/O counted; p50..p99.9 within fio's bin width of fio's)"

# Client/server: one host per server, fio's "All clients" sum not counted twice.
"$I" report "$r3" --format json >"$T/r3.json" || fail "report $r3"
# fio prints "<host> ..." lines before the document in this mode.
sed -n '/^{/,$p' "$T/cs.json" >"$T/cs-doc.json"
jq -e --slurpfile f "$T/cs-doc.json" --arg a "fio:127.0.0.1:$P1" --arg b "fio:127.0.0.1:$P2" '
  ($f[0].client_stats | map(select(.jobname == "rr"))) as $rr
  | ($rr | map(select(.jobname != "All clients")) | map(.read.total_ios) | add) as $sum
  | (.steps[] | select(.name == "rr")) as $s
  | ([$s.agents[].agent] | sort) == ([$a, $b] | sort)
  and $s.fleet.read.ops == $sum
  and $s.fleet.read.agents == 2' "$T/r3.json" >/dev/null \
  || fail "client/server import: $(jq -c '.steps[0] | {agents: [.agents[].agent], fleet: .fleet.read.ops}' "$T/r3.json")"
ok "fio client/server: two hosts (ports $P1, $P2), fleet ops = the sum of both servers"

# The same file twice is refused; nothing new is stored.
if "$I" import "$T/plus.json" 2>"$T/dup.err"; then fail "a second import of the same file was accepted"; fi
grep -q "imported already, as run $r2" "$T/dup.err" || fail "duplicate import: $(cat "$T/dup.err")"
ok "importing a file twice: $(cat "$T/dup.err")"

# Bad files: the error names the file and field; the controller stays up.
echo 'not json' >"$T/bad1.json"
echo '{"fio version": "fio-3.33", "jobs": [{"jobname": "x", "read": {"io_bytes": -1}}]}' >"$T/bad2.json"
jq '.jobs[0].read.clat_ns.bins = {"abc": 1}' "$T/plus.json" >"$T/bad3.json"
echo '{"hello": 1}' >"$T/bad4.json"
for b in 1 2 3 4; do
  if "$I" import "$T/bad$b.json" 2>"$T/bad$b.err"; then fail "bad$b.json was imported"; fi
done
grep -q "bad1.json: no JSON document" "$T/bad1.err" || fail "bad1: $(cat "$T/bad1.err")"
grep -q "bad2.json: jobs\[0\].read.io_bytes" "$T/bad2.err" || fail "bad2: $(cat "$T/bad2.err")"
grep -q "bad3.json: jobs\[0\].read.clat_ns.bins: 'abc'" "$T/bad3.err" || fail "bad3: $(cat "$T/bad3.err")"
grep -q "bad4.json: no \"fio version\"" "$T/bad4.err" || fail "bad4: $(cat "$T/bad4.err")"
n=$("$I" runs --json | jq length)
[ "$n" -eq 3 ] || fail "bad imports left runs behind: $n runs"
ok "bad files refused: $(head -c 100 "$T/bad2.err")..."

# History over the imports: one row per run and group, fio's figures.
"$I" history --step rr --metric iops --by drive.firmware --format json >"$T/h.json" || fail "history"
jq -e --slurpfile n "$T/normal.json" --slurpfile p "$T/plus.json" --argjson r1 "$r1" --argjson r2 "$r2" --argjson r3 "$r3" '
  .rows | length == 3
  and (map(.run) == [$r1, $r2, $r3])
  and (map(.group) == ["A", "B", "B"])
  and all(.[]; .step == "rr" and .metric == "iops" and .direction == "read" and (.time | test("Z$")))
  and .[0].value == ($n[0].jobs[] | select(.jobname == "rr") | .read.iops)
  and .[1].value == ($p[0].jobs[] | select(.jobname == "rr") | .read.iops)' "$T/h.json" >/dev/null \
  || fail "history rows: $(jq -c .rows "$T/h.json")"
"$I" history --step rr --metric p99 --where drive.firmware=A --format csv >"$T/h.csv" || fail "history csv"
[ "$(head -1 "$T/h.csv")" = "run,time,plan,origin,step,group,direction,metric,value,percentiles_only" ] \
  || fail "csv header: $(head -1 "$T/h.csv")"
[ "$(wc -l <"$T/h.csv")" -eq 2 ] || fail "--where drive.firmware=A: $(cat "$T/h.csv")"
p99=$(jq '.jobs[] | select(.jobname == "rr") | .read.clat_ns.percentile["99.000000"]' "$T/normal.json")
grep -q ",rr,all,read,p99,$p99,true$" "$T/h.csv" || fail "csv row: $(tail -1 "$T/h.csv") (fio p99 $p99)"
"$I" history --since 2100-01-01 --format json | jq -e '.rows == []' >/dev/null || fail "--since in the future"
if "$I" history --metric p42x 2>"$T/m.err"; then fail "--metric p42x accepted"; fi
grep -q "metric 'p42x'" "$T/m.err" || fail "metric error: $(cat "$T/m.err")"
ok "history: iops by drive.firmware A,B,B = fio's; --where, --since and CSV"

# iofleet's own runs join the same history, grouped by an agent label.
start_agent agent-a --label fw=A
start_agent agent-b --label fw=B
wait_agents 2
probe_plan probe 1
for _ in 1 2; do "$I" run probe --wait --json >/dev/null 2>&1 || fail "run probe"; done
"$I" history --plan probe --step probe --metric iops --by label.fw --format json >"$T/hp.json" || fail "history probe"
jq -e '.rows | length == 4 and (map(.group) | sort) == ["A", "A", "B", "B"]
       and all(.[]; .origin == "iofleet" and .value > 0)' "$T/hp.json" >/dev/null \
  || fail "history of iofleet runs: $(jq -c .rows "$T/hp.json")"
last=$(jq '.rows[-1].run' "$T/hp.json")
"$I" report "$last" --by label.fw --format json >"$T/rp.json"
want=$(jq '.steps[0].groups[] | select(.value == "B") | .read.iops' "$T/rp.json")
jq -e --argjson w "$want" '.rows | map(select(.group == "B"))[-1].value == $w' "$T/hp.json" >/dev/null \
  || fail "history value $(jq '.rows[-1]' "$T/hp.json") != report group B iops $want"
"$I" history --step probe --metric p99 >"$T/hp.txt"
grep -Eq "probe +fleet +read +[0-9.]+ (us|ms)" "$T/hp.txt" || fail "history text: $(cat "$T/hp.txt")"
ok "history of iofleet runs: 2 runs x 2 label groups, values equal to the reports'"

# CSV of a report and of a comparison: parsed back, they carry the JSON's figures.
"$I" report "$last" --by label.fw --format csv >"$T/rp.csv" || fail "report csv"
python3 - "$T/rp.csv" "$T/rp.json" <<'PY' || fail "report csv does not match the JSON"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
step = rep["steps"][0]
want = []
for a in step["agents"]:
    for t in a["targets"]:
        want.append(("target", a["agent"], t["target"], "", t["read"]))
for g in step["groups"]:
    want.append(("group", "", "", "label.fw=" + g["value"], g["read"]))
want.append(("fleet", "", "", "", step["fleet"]["read"]))
got = [r for r in rows if r["direction"] == "read"]
assert len(got) == len(want), (len(got), len(want))
for r, (scope, agent, target, group, d) in zip(got, want):
    assert (r["scope"], r["agent"], r["target"], r["group"]) == (scope, agent, target, group), r
    assert int(r["ops"]) == d["ops"] and abs(float(r["iops"]) - d["iops"]) <= 1e-9 * d["iops"], r
    assert int(r["p99_ns"]) == d["percentiles"]["p99"], r
print("ok: report csv: %d rows match the JSON" % len(rows))
PY
"$I" compare "$(jq ".rows[0].run" "$T/hp.json")" "$last" --format csv >"$T/cmp.csv" 2>"$T/cmp.err" || true
[ "$(head -1 "$T/cmp.csv")" = "step,group,metric,a,b,delta_pct,significant,a_plan,a_step,b_plan,b_step,a_agents,a_targets,b_agents,b_targets" ] || fail "compare csv: $(head -2 "$T/cmp.csv")"
grep -Eq '^probe,fleet,iops,[0-9.]+,[0-9.]+,-?[0-9.e-]+,(true|false|),probe v1,probe,probe v1,probe,2,2,2,2$' "$T/cmp.csv" || fail "compare csv rows: $(cat "$T/cmp.csv" "$T/cmp.err")"
ok "compare csv: $(grep -c . "$T/cmp.csv") lines"

# The history index: the controller indexes every ended run while idle;
# history then reads the fleet and --by drive.firmware/model/hba.firmware
# from it, with the very figures it computes without it (--no-index).
for _ in $(seq 100); do
  [ "$("$I" history --format json | jq '.steps.computed')" = 0 ] && break
  sleep 0.1
done
"$I" stats --json | jq -e '.history_index.steps > 0 and .history_index.working == false' >/dev/null \
  || fail "stats history_index: $("$I" stats --json | jq -c .history_index)"
for q in "--metric p99" "--metric iops --by drive.firmware" "--metric p99.9 --by drive.model" \
         "--metric mean --by hba.firmware" "--step rr --metric bw --by drive.firmware --direction read"; do
  # shellcheck disable=SC2086
  "$I" history $q --format json >"$T/hi.json" || fail "history $q"
  # shellcheck disable=SC2086
  "$I" history $q --no-index --format json >"$T/hc.json" || fail "history $q --no-index"
  jq -e '.steps.indexed > 0 and .steps.computed == 0' "$T/hi.json" >/dev/null \
    || fail "history $q did not read the index: $(jq -c .steps "$T/hi.json")"
  jq -e '.steps.indexed == 0 and .steps.computed > 0' "$T/hc.json" >/dev/null \
    || fail "history $q --no-index read the index: $(jq -c .steps "$T/hc.json")"
  [ "$(jq -cS .rows "$T/hi.json")" = "$(jq -cS .rows "$T/hc.json")" ] && [ "$(jq '.rows | length' "$T/hi.json")" -gt 0 ] \
    || fail "history $q: the index says $(jq -c .rows "$T/hi.json"), the results $(jq -c .rows "$T/hc.json")"
done
"$I" history --metric iops --by label.fw --format json | jq -e '.steps.indexed == 0 and .steps.computed > 0' >/dev/null \
  || fail "--by label.fw (not indexed) was not computed"
"$I" history --metric iops --where drive.firmware=A --format json | jq -e '.steps.indexed == 0' >/dev/null \
  || fail "--where read the index"
ok "history index: $("$I" stats --json | jq .history_index.steps) steps indexed; fleet and --by drive.firmware, drive.model, hba.firmware read from it equal --no-index row for row; label keys and --where computed"
