#!/usr/bin/env bash
# Group and fleet figures against the raw samples: three agents (grp=x, x,
# y) run a plan with write_lat_log, so every I/O the histograms counted is
# also in a per-I/O log.  For every step, group and direction, the pooled
# logs must hold exactly the group's ops, and every percentile the report
# gives must be the exact nearest-rank percentile of the pooled samples
# within the histogram's bound (common/histogram.h: the bucket midpoint is
# within 0.4% of every value in its bucket; we allow that plus 1 ns); min
# and max must be exact.  The fleet row is checked the same way over all
# samples, for slat, clat and lat.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
fleet_setup
start_controller
start_agent agent-1 --label grp=x
start_agent agent-2 --label grp=x
start_agent agent-3 --label grp=y
wait_agents 3

# ramp_time: the ramp's I/Os are in neither the figures nor the logs.
cat >"$T/groups.fio" <<'EOF'
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=4
size=32m
filename=groups.dat
ramp_time=1
runtime=2
time_based
write_lat_log=raw

[randread]
rw=randread

[randrw]
stonewall
rw=randrw
EOF
"$BIN/iofleet" plan add groups "$T/groups.fio" >/dev/null || fail "plan add groups"
run=$("$BIN/iofleet" run groups --agents all --wait --json 2>/dev/null | jq -r .run) \
  || fail "run groups did not complete"
"$BIN/iofleet" report "$run" --by label.grp --format json >"$T/report.json" \
  || fail "report $run --by label.grp exited non-zero"
ok "run $run complete: 2 steps on 3 agents, report by label.grp"

python3 - "$T" "$T/report.json" <<'EOF' || fail "group or fleet figures do not match the raw samples"
import json, math, sys
from fractions import Fraction

top, report = sys.argv[1], json.load(open(sys.argv[2]))
group_of = {"agent-1": "x", "agent-2": "x", "agent-3": "y"}
kinds = ("clat", "slat", "lat")
dirs = ("read", "write")
bad = []

def check(cond, what):
    if not cond:
        bad.append(what)
        print("  MISMATCH: " + what)

def load(agent, kind, n, runtime_ms):
    """One agent's log of a kind: [(time, value, ddir, bs)], fio's format."""
    rows = []
    path = "%s/%s/raw_%s.%d.log" % (top, agent, kind, n)
    for i, line in enumerate(open(path)):
        f = [int(x) for x in line.split(", ")]
        # An I/O issued inside the window counts, and is logged, even when
        # it completes after the end (fio drains and counts those too): a
        # lat entry's completion time less its latency (slat + clat: from
        # the moment the worker began to issue it) is inside.  Not clat's:
        # its start is when the submit call returned, which a slow
        # io_submit under load puts past the end (seen once: clat 0.95 ms
        # ending at 2002 ms of a 2000 ms window).  The slat and clat lines
        # are bound through their lat line: the check after load()
        # requires the three logs to describe the same I/Os.
        shape = len(f) == 5 and f[2] in (0, 1) and f[3] == 4096 and f[4] == 0 and f[0] >= 0
        issued = f[0] - f[1] / 1e6 if shape else 0
        check(shape and (issued < runtime_ms + 1 if kind == "lat" else True),
              "%s:%d: not 'time, value, ddir, 4096, 0' issued inside the window: %r" % (path, i + 1, line))
        rows.append(tuple(f[:4]))
    return rows

def exact(sorted_v, key):
    """Nearest rank, as histogram.h: the ceil(p/100 * N)-th smallest."""
    p = Fraction(key[1:])
    n = len(sorted_v)
    rank = min(max(math.ceil(p * n / 100), 1), n)
    return sorted_v[rank - 1]

def compare(label, row, values, pct, lat):
    """row: the report's figures (ops or N, percentiles, min/max/mean)."""
    values = sorted(values)
    n = len(values)
    check(n == row["count"], "%s: %d samples in the logs, the report counts %d"
          % (label, n, row["count"]))
    if n == 0:
        print("  %-26s N=0 (no I/O, nothing to compare)" % label)
        return
    check(lat["min"] == values[0] and lat["max"] == values[-1],
          "%s: min/max %d/%d, samples %d/%d" % (label, lat["min"], lat["max"], values[0], values[-1]))
    mean = sum(values) / n
    check(abs(lat["mean"] - mean) <= 1e-9 * mean + 1e-6,
          "%s: mean %.3f, samples %.3f" % (label, lat["mean"], mean))
    worst = 0.0
    cells = []
    for key, got in pct.items():
        want = exact(values, key)
        err = abs(got - want)
        worst = max(worst, err / want if want else 0.0)
        check(err <= 0.004 * want + 1, "%s %s: reported %d, exact %d (off %.3f%%, bound 0.4%% + 1 ns)"
              % (label, key, got, want, 100.0 * err / want if want else 0))
        cells.append("%s %d/%d" % (key, got, want))
    print("  %-26s N=%-6d min %d max %d | %s | worst %.3f%%"
          % (label, n, values[0], values[-1], ", ".join(cells), 100 * worst))

first = 1
for s in report["steps"]:
    job = s["job"]
    runtime_ms = job["runtime_ns"] // 1000000
    n = first                       # fio numbers workers over the whole file
    first += job["numjobs"]
    print("step %s (logs raw_*.%d.log; reported/exact in ns):" % (s["name"], n))
    logs = {a: {k: load(a, k, n, runtime_ms) for k in kinds} for a in group_of}
    for a, by_kind in logs.items():
        c, sl, l = by_kind["clat"], by_kind["slat"], by_kind["lat"]
        same = len(c) == len(sl) == len(l) and all(
            x[0] == y[0] == z[0] and x[2:] == y[2:] == z[2:] and z[1] == x[1] + y[1]
            for x, y, z in zip(c, sl, l))
        check(same, "%s: the clat, slat and lat logs do not describe the same I/Os "
              "(lat = slat + clat line by line)" % a)
    def pooled(agents, kind, d):
        return [r[1] for a in agents for r in logs[a][kind] if r[2] == d]
    groups = {g["value"]: g for g in s["groups"]}
    check(sorted(groups) == ["x", "y"], "step %s: groups %s, want x and y" % (s["name"], sorted(groups)))
    for value, g in sorted(groups.items()):
        members = [a for a in group_of if group_of[a] == value]
        for d, dname in enumerate(dirs):
            r = g[dname]
            check(r["ops"] == r["histogram_count"], "group %s %s: ops %d, histogram_count %d"
                  % (value, dname, r["ops"], r["histogram_count"]))
            compare("group %s %s clat" % (value, dname), dict(r, count=r["ops"]),
                    pooled(members, "clat", d), r["percentiles"], r["lat_ns"])
    for d, dname in enumerate(dirs):
        f = s["fleet"][dname]
        for kind in kinds:
            k = f["latency"][kind]
            check(k["N"] == f["ops"], "fleet %s %s: N %d, ops %d" % (dname, kind, k["N"], f["ops"]))
            compare("fleet %s %s" % (dname, kind), dict(k, count=f["ops"]),
                    pooled(group_of, kind, d), k["percentiles"], k)
if bad:
    print("%d mismatch(es)" % len(bad))
    sys.exit(1)
EOF
ok "every group and fleet percentile within 0.4% + 1 ns of the pooled raw samples; counts, min, max, mean exact"

# A prefix outside the agents' --workdir (and no --allow): every agent
# refuses the step, naming the option and the file, and writes nothing.
probe_plan outside 1 "write_lat_log=$T/outside"
if "$BIN/iofleet" run outside --wait --json >"$T/outside.json" 2>/dev/null; then
  fail "a log prefix outside the workdir was accepted"
fi
jq -e --arg f "$T/outside_clat.1.log" '[.report.steps[0].agents[] | select(.status == "refused"
       and (.message | startswith("write_lat_log: '"'"'" + $f + "'"'"'"))
       and (.message | contains("is not allowed on this agent")))] | length == 3' "$T/outside.json" >/dev/null \
  || fail "refusal: $(jq -c '[.report.steps[0].agents[] | {agent, status, message}]' "$T/outside.json")"
[ -e "$T/outside_clat.1.log" ] && fail "a refused agent created $T/outside_clat.1.log"
ok "write_lat_log outside the workdir: refused by all 3 agents, naming the file"
