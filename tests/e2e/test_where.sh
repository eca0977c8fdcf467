#!/usr/bin/env bash
# report --where and compare that cannot mislead: three agents (fw=A, fw=B,
# fw=B) on files.  `report --where` figures (fleet ops, IOPS, bandwidth,
# percentiles from merged histograms) equal what the database's result rows
# of the selected targets give, merged here independently (the stored
# histograms decoded in Python), in JSON, text and CSV; compare --a/--b of 1
# against 2 agents is per member with the counts shown; runs of different
# plans and a failed run are refused; unknown keys give one error naming
# the flag; an agent that refused a step is "refused", never "incomplete".
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 not found"; exit 77; }
fleet_setup
start_controller
I="$BIN/iofleet"
DB="$T/iofleet.db"
SHARED="$T/shared.dat"
start_agent a1 --label fw=A --allow "$SHARED" --allow-write "$SHARED"
start_agent a2 --label fw=B --allow "$SHARED" --allow-write "$SHARED"
start_agent a3 --label fw=B         # not allowed the shared file: refuses it
wait_agents 3
probe_plan p 1
probe_plan q 1                      # another plan, its step also named "probe"
cat >"$T/shared.fio" <<PLAN
[probe]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=2
size=8m
filename=$SHARED
runtime=1
time_based
PLAN
"$I" plan add shared "$T/shared.fio" >/dev/null || fail "plan add shared"

r1=$("$I" run p --wait --json 2>/dev/null | jq -r .run) || fail "run p"
r2=$("$I" run q --agents a1,a2 --wait --json 2>/dev/null | jq -r .run) || fail "run q"
r3=$("$I" run shared --wait --json 2>/dev/null | jq -r .run) || true
[ "$("$I" runs --json | jq -r --argjson r "$r3" '.[] | select(.id == $r) | .status')" = partial ] \
  || fail "run shared with a3 refusing is not partial"
r4=$("$I" run shared --agents a1,a3 --require-all --wait --json 2>/dev/null | jq -r .run) || true
[ "$("$I" runs --json | jq -r --argjson r "$r4" '.[] | select(.id == $r) | .status')" = failed ] \
  || fail "run shared --require-all with a3 refusing did not fail"
ok "runs: $r1 (plan p, 3 agents), $r2 (plan q), $r3 (a3 refused), $r4 (failed)"

# The figures of the selected targets, from the database: result rows
# summed, their histograms decoded and merged (common/histogram.c's wire
# form and percentile rule, written again here).
expect () {   # expect RUN AGENT... -> JSON {ops, iops, bw, agents, targets, p50, p99, p99.9}
  local run=$1; shift
  local list
  list=$(printf "'%s'," "$@"); list=${list%,}
  sqlite3 -separator ' ' "$DB" "SELECT a.name, r.target, r.ops, r.iops, r.bw, hex(r.hist)
    FROM results r JOIN agents a ON a.id = r.agent_id
    WHERE r.run_id = $run AND r.step_idx = 0 AND r.direction = 'read' AND a.name IN ($list)" |
  python3 -c '
import json, math, sys
from fractions import Fraction
def varints(b, pos, n):
    out = []
    for _ in range(n):
        v = shift = 0
        while True:
            x = b[pos]; pos += 1
            v |= (x & 0x7f) << shift; shift += 7
            if not x & 0x80: break
        out.append(v)
    return out, pos
count = overflow = 0; lo = None; hi = 0; buckets = {}
ops = 0; iops = bw = 0.0; agents = set(); targets = 0
for line in sys.stdin:
    agent, target, o, i, w, blob = line.split()
    ops += int(o); iops += float(i); bw += float(w); agents.add(agent); targets += 1
    b = bytes.fromhex(blob)
    assert b[0] == 1, "histogram wire version"
    head, pos = varints(b, 1, 8)
    c, ov, mn, mx = head[:4]
    count += c; overflow += ov
    if c: lo = mn if lo is None else min(lo, mn); hi = max(hi, mx)
    nxt = 0
    for _ in range(head[7]):
        (d, k), pos = varints(b, pos, 2)
        buckets[nxt + d] = buckets.get(nxt + d, 0) + k; nxt = nxt + d + 1
def low(i): return i if i < 256 else (128 + i % 128) << (i // 128 - 1)
def width(i): return 1 if i < 256 else 1 << (i // 128 - 1)
def pct(p):
    rank = min(max(math.ceil(Fraction(p) * count / 100), 1), count)
    if rank > count - overflow: return hi
    seen = 0
    for i in sorted(buckets):
        seen += buckets[i]
        if seen >= rank: return min(max(low(i) + width(i) // 2, lo), hi)
out = {"ops": ops, "iops": iops, "bw": bw, "agents": len(agents), "targets": targets}
for p in ("50", "99", "99.9"): out["p" + p] = pct(p)
print(json.dumps(out))'
}

# --- report --where: JSON, text, CSV -----------------------------------------
"$I" report "$r1" --format json >"$T/all.json" || fail "report $r1"
for sel in "agent=a1:a1" "label.fw=B:a2 a3"; do
  cond=${sel%%:*}; agents=${sel#*:}
  # shellcheck disable=SC2086
  want=$(expect "$r1" $agents) || fail "expected figures of $agents"
  "$I" report "$r1" --where "$cond" --format json >"$T/w.json" || fail "report --where $cond"
  jq -e --argjson w "$want" --arg names "$agents" '
    def close(a; b): ((a - b) | fabs) <= 1e-6 * ((b | fabs) + 1);
    .where == [$ARGS.named.cond] and
    (.steps[0] | (.agents | map(.agent) | join(" ")) == $names
      and .fleet.read.ops == $w.ops and close(.fleet.read.iops; $w.iops) and close(.fleet.read.bw; $w.bw)
      and .fleet.read.agents == $w.agents and .members.agents == $w.agents and .members.targets == $w.targets
      and .fleet.read.percentiles.p50 == $w.p50 and .fleet.read.percentiles.p99 == $w.p99
      and .fleet.read.percentiles["p99.9"] == $w["p99.9"]
      and .groups[0].targets == $w.targets and .groups[0].read.ops == $w.ops
      and ([.intervals[].read.ops] | add) == $w.ops)' --arg cond "$cond" "$T/w.json" >/dev/null \
    || fail "report --where $cond: $(jq -c '.steps[0] | {agents: [.agents[].agent], fleet: .fleet.read | {ops, iops, bw, agents, percentiles}, members}' "$T/w.json") want $want"
  # The unfiltered fleet is not the selection's: --where changed the figures.
  [ "$(jq '.steps[0].fleet.read.ops' "$T/all.json")" != "$(jq -r .ops <<<"$want")" ] || fail "--where $cond: the fleet of all agents has the same ops"
  "$I" report "$r1" --where "$cond" >"$T/w.txt" || fail "report --where $cond text"
  # FLEET (N) ... read IOPS: the selection's agents and IOPS (3 digits shown).
  python3 - "$T/w.txt" "$want" <<'PY' || fail "text --where $cond: $(grep FLEET "$T/w.txt")"
import json, sys
want = json.loads(sys.argv[2])
f = [l.split() for l in open(sys.argv[1]) if l.startswith("    FLEET (")]
assert len(f) == 1 and f[0][1] == "(%d)" % want["agents"] and f[0][4] == "read", f
v = f[0][5]
v = float(v[:-1]) * {"k": 1e3, "M": 1e6}[v[-1]] if v[-1] in "kM" else float(v)
assert abs(v - want["iops"]) <= 0.01 * want["iops"] + 1, (v, want["iops"])
PY
  grep -q -- "--where $cond: every figure below" "$T/w.txt" || fail "text --where $cond names no selection"
  "$I" report "$r1" --where "$cond" --format csv >"$T/w.csv" || fail "report --where $cond csv"
  [ "$(awk -F, '$3 == "fleet" && $7 == "read" { print $8 }' "$T/w.csv")" = "$(jq -r .ops <<<"$want")" ] \
    || fail "csv --where $cond: $(grep fleet "$T/w.csv")"
  [ "$(awk -F, '$3 == "target"' "$T/w.csv" | wc -l)" = "$(jq -r .targets <<<"$want")" ] \
    || fail "csv --where $cond: target rows $(awk -F, '$3 == "target"' "$T/w.csv")"
  ok "report --where $cond: fleet ops $(jq -r .ops <<<"$want"), IOPS, bw, p50/p99/p99.9 $(jq -r '"\(.p50)/\(.p99)/\(.["p99.9"])"' <<<"$want") ns equal the database's rows of $agents (JSON, text, CSV)"
done
"$I" report "$r1" --where agent=a1 --format fio-json >"$T/w.fio.json" || fail "fio-json --where"
want=$(expect "$r1" a1)
jq -e --argjson w "$want" '[.jobs[] | {hostname, ios: .read.total_ios}] == [{hostname: "a1", ios: $w.ops}]' \
  "$T/w.fio.json" >/dev/null || fail "fio-json --where agent=a1: $(jq -c '[.jobs[] | {hostname, ios: .read.total_ios}]' "$T/w.fio.json") want $want"
"$I" report "$r1" --where agent=a1 --format json >"$T/w1.json" || fail "report --where agent=a1"
"$I" report "$r1" --where agent=a1 --format html -o "$T/w1.html" || fail "html --where agent=a1"
python3 "$(dirname "$0")/../html_check.py" report "$T/w1.html" "$T/w1.json" >/dev/null || fail "html --where: see above"
grep -q '<dt>Selection</dt><dd>--where agent=a1 (step 1: 1 of 3 agents, 1 of 3 targets)' "$T/w1.html" \
  || fail "html --where names no selection"
if grep -q '<td class="l">a[23]</td>' "$T/w1.html"; then fail "html --where agent=a1 shows a2 or a3"; fi
ok "report --where agent=a1 --format fio-json: one job, a1's, with its $(jq -r .ops <<<"$want") reads; html: a1 alone, its charts as its JSON"

# --- compare --a/--b: 1 agent against 2, per member ---------------------------
wa=$(expect "$r1" a1); wb=$(expect "$r1" a2 a3)
"$I" compare "$r1" --a label.fw=A --b label.fw=B --format json >"$T/g.json" || fail "compare --a/--b exited $?"
jq -e --argjson a "$wa" --argjson b "$wb" '
  def close(x; y): ((x - y) | fabs) <= 1e-6 * ((y | fabs) + 1);
  def row(m): .rows[] | select(.metric == m);
  .figures == "per_member" and .a.where == ["label.fw=A"] and .b.where == ["label.fw=B"]
  and .a.plan == "p" and .a.plan_version == 1
  and (row("iops_per_target") | close(.a; $a.iops) and close(.b; $b.iops / 2)
       and .a_agents == 1 and .a_targets == 1 and .b_agents == 2 and .b_targets == 2
       and .group == "label.fw=A vs label.fw=B")
  and (row("iops_per_agent") | close(.b; $b.iops / 2))
  and (row("p99") | .a == $a.p99 and .b == $b.p99)
  and ([.rows[] | select(.metric == "iops")] | length) == 0' "$T/g.json" >/dev/null \
  || fail "compare --a/--b: $(jq -c '.rows[] | {metric, a, b, a_agents, b_agents}' "$T/g.json") want A $wa B $wb"
"$I" compare "$r1" --a label.fw=A --b label.fw=B >"$T/g.txt" || fail "compare --a/--b text"
grep -Eq "^probe +label.fw=A vs label.fw=B +iops_per_target .* 1/1 -> 2/2$" "$T/g.txt" || fail "text --a/--b: $(cat "$T/g.txt")"
grep -q "plan 'p' v1.*--a label.fw=A" "$T/g.txt" || fail "text --a/--b header: $(head -3 "$T/g.txt")"
"$I" compare "$r1" --a label.fw=A --b label.fw=B --sum --format json >"$T/gs.json" || fail "compare --sum"
jq -e --argjson b "$wb" 'def close(x; y): ((x - y) | fabs) <= 1e-6 * ((y | fabs) + 1);
  .figures == "sum" and (.rows[] | select(.metric == "iops") | close(.b; $b.iops))' "$T/gs.json" >/dev/null \
  || fail "compare --sum: $(jq -c '.rows[] | select(.metric == "iops")' "$T/gs.json")"
rc=0; "$I" compare "$r1" --a label.fw=C --b label.fw=A >/dev/null 2>"$T/none.err" || rc=$?
[ "$rc" -ne 0 ] || fail "a group nobody matches exited 0"
grep -q -- "--a 'label.fw=C' matches no target or agent of run $r1 (label.fw there: A, B)" "$T/none.err" \
  || fail "empty group: $(cat "$T/none.err")"
ok "compare --a fw=A --b fw=B: per target and per agent with 1/1 -> 2/2 members, p99 from merged histograms, as the database gives; --sum for totals; an empty group exits $rc naming --a"

# --- one key language ---------------------------------------------------------
msg () { sed -n 's/.*unknown key/unknown key/p' "$1"; }
"$I" report "$r1" --where drive.foo=x 2>"$T/k1" && fail "--where drive.foo accepted"
"$I" report "$r1" --by drive.foo 2>"$T/k2" && fail "--by drive.foo accepted"
"$I" run p --agents drive.foo=x 2>"$T/k3" && fail "--agents drive.foo accepted"
"$I" compare "$r1" --a drive.foo=x --b agent=a1 2>"$T/k4" && fail "--a drive.foo accepted"
for f in "k1:--where" "k2:--by" "k3:--agents" "k4:--a"; do
  grep -q -- "${f#*:}: unknown key 'drive.foo': keys are agent, host, host.FIELD, transport, drive.FIELD" "$T/${f%%:*}" \
    || fail "${f#*:} unknown key: $(cat "$T/${f%%:*}")"
done
[ "$(msg "$T/k1")" = "$(msg "$T/k2")" ] && [ "$(msg "$T/k1")" = "$(msg "$T/k3")" ] && [ "$(msg "$T/k1")" = "$(msg "$T/k4")" ] \
  || fail "the unknown-key messages differ: $(cat "$T/k1" "$T/k2" "$T/k3" "$T/k4")"
# drive.transport is a key of every flag: here nothing matches, but it is no error of the key.
"$I" report "$r1" --where drive.transport=loop 2>"$T/k5" && fail "--where drive.transport=loop matched file targets"
grep -q "matches no target or agent" "$T/k5" || fail "--where drive.transport: $(cat "$T/k5")"
"$I" run p --agents drive.transport=nosuch 2>"$T/k6" && fail "--agents drive.transport=nosuch ran"
grep -q "no connected agent matches" "$T/k6" || fail "--agents drive.transport: $(cat "$T/k6")"
ok "unknown keys: one message for --where, --by, --agents and --a ($(msg "$T/k1" | cut -c1-60)...); drive.transport is a key everywhere"

# --- runs that are not alike ----------------------------------------------------
rc=0; "$I" compare "$r1" "$r2" >"$T/pq.txt" 2>"$T/pq.err" || rc=$?
[ "$rc" = 2 ] || fail "compare of plans p and q exited $rc: $(cat "$T/pq.txt" "$T/pq.err")"
grep -q "run $r1 is plan 'p' v1 and run $r2 is plan 'q' v1: different plans.*--steps A_STEP=B_STEP.*--force" "$T/pq.err" \
  || fail "plans p and q: $(cat "$T/pq.err")"
[ ! -s "$T/pq.txt" ] || fail "a refused compare printed rows: $(cat "$T/pq.txt")"
"$I" compare "$r1" "$r2" --force --format json >"$T/pqf.json" || true
jq -e '.forced and (.rows | length) > 0 and all(.rows[]; .a_plan == "p v1" and .b_plan == "q v1"
       and .a_step == "probe" and .b_step == "probe") and .a.plan == "p" and .b.plan == "q"' "$T/pqf.json" >/dev/null \
  || fail "--force rows: $(jq -c '.rows[0]' "$T/pqf.json")"
"$I" compare "$r1" "$r2" --force >"$T/pqf.txt" || true
[ "$(grep -c '^p v1:probe -> q v1:probe ' "$T/pqf.txt")" = "$(jq '.rows | length' "$T/pqf.json")" ] \
  || fail "--force text rows do not name both steps: $(cat "$T/pqf.txt")"
"$I" compare "$r1" "$r2" --steps probe=probe --format csv >"$T/pqs.csv" || true
head -1 "$T/pqs.csv" | grep -q '^step,group,metric,a,b,delta_pct,significant,a_plan,a_step,b_plan,b_step,a_agents,a_targets,b_agents,b_targets$' \
  || fail "csv header: $(head -1 "$T/pqs.csv")"
grep -q '^probe,fleet,iops,.*,p v1,probe,q v1,probe,3,3,2,2$' "$T/pqs.csv" || fail "--steps csv: $(cat "$T/pqs.csv")"
rc=0; "$I" compare "$r1" "$r4" >"$T/f.txt" 2>"$T/f.err" || rc=$?
[ "$rc" = 2 ] || fail "compare against a failed run exited $rc"
grep -q "run $r4 (B) is failed and measured nothing" "$T/f.err" || fail "failed run: $(cat "$T/f.err")"
if grep -q -- '-100' "$T/f.txt"; then fail "a failed run shown as -100%"; fi
ok "compare of plans p and q refused (exit 2) naming both; --force and --steps rows name both steps; a failed run is refused: $(cut -c1-90 "$T/f.err")..."

# --- a refused agent is refused, not incomplete ---------------------------------
"$I" report "$r3" --format json >"$T/r3.json" || true
jq -e '.steps[0] | (.agents[] | select(.agent == "a3") | .status == "refused" and .incomplete == false
       and .missing_intervals == []) and .refused_agents[0].agent == "a3"
       and (.refused_agents[0].reason | test("not allowed")) and .incomplete_agents == []
       and all(.outside_window[]; .agent != "a3")' "$T/r3.json" >/dev/null \
  || fail "refused agent in JSON: $(jq -c '.steps[0] | {a: [.agents[] | {agent, status, incomplete}], refused_agents, incomplete_agents, outside_window}' "$T/r3.json")"
"$I" report "$r3" >"$T/r3.txt" || true
grep -Eq '^    a3 +refused: .*not allowed' "$T/r3.txt" || fail "text: no refused line for a3: $(cat "$T/r3.txt")"
if grep -qi 'incomplete\|missing interval' "$T/r3.txt"; then fail "text calls the refused agent incomplete: $(grep -i 'incomplete\|missing' "$T/r3.txt")"; fi
"$I" report "$r3" --format html -o "$T/r3.html" || true
grep -q '>refused: a3</td>' "$T/r3.html" || fail "html summary: $(grep -o 'agents refused or incomplete.*' "$T/r3.html" | head -c 300)"
if grep -q 'INCOMPLETE\|outside the measured window' "$T/r3.html"; then fail "html lists the refused agent as incomplete or outside the window"; fi
n=$(sed -n '/<section id="summary">/,/<\/section>/p' "$T/r3.html" | grep -o '<li><b>a3</b>[^<]*' | wc -l)
[ "$n" = 1 ] || fail "the html summary lists a3 $n times"
ok "an agent that refused a step is refused (JSON refused_agents, text, HTML once), not incomplete"
