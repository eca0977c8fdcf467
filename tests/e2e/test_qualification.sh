#!/usr/bin/env bash
# The qualification report (iofleet report RUN --template qualification)
# of a simulated rack with three media: 4 agents x 3 virtual drives,
# NVMe, SAS and SATA in turn (iofleet-agent --simulate --media, profiles
# modelled on the tri-mode HBA report's figures: agent/sim_media.h).  A
# sweep of 4 KiB random reads and a 70/30 mix over depths 1..256:
#  - each group's mean/p95/p99/p99.9 in the template are the full report's
#    merged-histogram figures of that group and step, exactly;
#  - they follow the profile: at QD1 the p95/p99/p99.9 of each medium are
#    the report's (NVMe 0.28/0.56/1.8 ms, SAS 0.72/1.25/4.2, SATA
#    3.1/6.5/15) within 8% (histogram bound, per-drive spread of +-4%);
#    peak IOPS per drive within the report's ranges (NVMe 350-420k, SAS
#    120-180k, SATA 25-50k); the 70/30 mix costs 10-25% of peak IOPS;
#  - the knee, the mix's penalty, the SLA classes and the capacity advice
#    recomputed here (python) from the sweep's points equal the template's;
#  - large blocks against the path's ceiling: 128 KiB reads on all 12
#    drives of a host want 34.8 GB/s of links behind a 31.5 GB/s PCIe 4.0
#    x16 HBA: every host is limited by the HBA, its ceiling 16 GT/s x 16 x
#    128/130 / 8, and moves 90% of it (the profile's); the SATA drives alone
#    are limited by their own 6 Gbit links (0.6 GB/s each);
#  - the tuning checklist: SATA's nr_requests 64 fails the QD128 and QD256
#    steps on every SATA drive; NVMe's scheduler none passes.
. "$(dirname "$0")/lib.sh"
fleet_setup
I="$BIN/iofleet"
start_controller
"$BIN/iofleet-agent" --no-config --controller "$AGENT_EP" --simulate 4 --targets 12 \
  --media nvme,sas,sata --name rack >>"$T/sim.log" 2>&1 &
PIDS+=("$!")
wait_agents 4
"$I" inventory rack-00001 --json | jq -e '.inventory | [.drives[0:3][] | .transport] == ["nvme", "sas", "sata"]
    and [.drives[0:3][] | .model] == ["SIM-NVME-1", "SIM-SAS-1", "SIM-SATA-1"]
    and [.drives[0:3][] | .link_speed] == ["16.0 GT/s PCIe", "12.0 Gbit", "6.0 Gbit"]
    and .controllers[0].link_speed == "16.0 GT/s PCIe" and .controllers[0].link_width == 16' >/dev/null \
  || fail "inventory: $("$I" inventory rack-00001 --json | jq -c '[.inventory.drives[] | [.transport, .model]]')"

cat >"$T/q.fio" <<EOF2
[global]
ioengine=libaio
direct=1
filename=@all
runtime=1
time_based
stonewall

[randread]
rw=randread
bs=4k
iodepth=1,4,16,64,128,256

[randrw-70-30]
rw=randrw
rwmixread=70
bs=4k
iodepth=1,4,16,64,128,256

[seqread-128k]
rw=read
bs=128k
iodepth=32

[sata-seqread-128k]
filename=@sata
rw=read
bs=128k
iodepth=32
EOF2
"$I" plan add q "$T/q.fio" >/dev/null || fail "plan add"
run=$("$I" run q --wait --json 2>"$T/run.err" | jq -r .run) || fail "run: $(cat "$T/run.err")"
"$I" report "$run" --by drive.transport --format json >"$T/full.json" || fail "full report"
"$I" report "$run" --template qualification --format json >"$T/qual.json" || fail "template json"
"$I" report "$run" --template qualification >"$T/qual.txt" || fail "template text"

python3 - "$T/full.json" "$T/qual.json" <<'PY' || fail "the qualification report does not check out"
import json, math, sys
full = json.load(open(sys.argv[1])); q = json.load(open(sys.argv[2]))
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
assert q["template"] == "qualification" and q["by"] == "drive.transport"
steps = {s["name"]: s for s in full["steps"]}
# 1. The latency table is the groups' merged histograms.
rows = q["latency"]
check(len(rows) == 18, f"{len(rows)} latency rows, want 6 depths x 3 media")
for r in rows:
    g = [g for g in steps[r["step"]]["groups"] if g["value"] == r["group"]][0]["read"]
    for k in ("p95", "p99", "p99.9"):
        check(r[k] == g["percentiles"][k], f"{r['step']} {r['group']} {k}: {r[k]} vs {g['percentiles'][k]}")
    check(r["mean"] == g["lat_ns"]["mean"], f"{r['step']} {r['group']} mean")
# 2. The profile at QD1 (the seed's table), within 8%.
seed = {"nvme": (0.28e6, 0.56e6, 1.8e6), "sas": (0.72e6, 1.25e6, 4.2e6), "sata": (3.1e6, 6.5e6, 15e6)}
for r in rows:
    if r["iodepth"] != 1:
        continue
    for k, want in zip(("p95", "p99", "p99.9"), seed[r["group"]]):
        check(abs(r[k] / want - 1) <= 0.08, f"QD1 {r['group']} {k} {r[k]/1e6:.3f} ms vs the seed's {want/1e6} ms")
    print(f"QD1 {r['group']}: p95 {r['p95']/1e6:.3f} p99 {r['p99']/1e6:.3f} p99.9 {r['p99.9']/1e6:.3f} ms, mean {r['mean']/1e6:.3f} ms")
# 3. Curves: peak, knee (recomputed by the rule), per target in the seed's ranges.
ranges = {"nvme": (350e3, 420e3), "sas": (120e3, 180e3), "sata": (25e3, 50e3)}
sweeps = {(c["rw"], c["group"]): c for c in full["sweeps"] if c.get("group")}
def knee(points):
    for a, b in zip(points, points[1:]):
        gain = 100 * ((b["iops"] / a["iops"]) ** (1 / math.log2(b["iodepth"] / a["iodepth"])) - 1)
        if gain < 10:
            return a["iodepth"]
    return None
def targets(step, group):
    return [g for g in steps[step]["groups"] if g["value"] == group][0]["targets"]
for c in q["curves"]:
    pts = sweeps[(c["rw"], c["group"])]["points"]
    peak = max(pts, key=lambda p: p["iops"])
    check(c["peak_iops"] == peak["iops"] and c["peak_iodepth"] == peak["iodepth"], f"peak {c}")
    check(c["knee_iodepth"] == knee(pts), f"knee {c['group']} {c['rw']}: {c['knee_iodepth']} vs {knee(pts)}")
    per = peak["iops"] / targets(peak["step"], c["group"])
    check(abs(c["peak_iops_per_target"] - per) < 1e-6 * per, f"per target {c}")
    if c["rw"] == "randread":
        lo, hi = ranges[c["group"]]
        check(lo <= per <= hi, f"{c['group']} peak {per:.0f} IOPS per drive outside the seed's {lo:.0f}-{hi:.0f}")
        print(f"{c['group']}: peak {per/1e3:.1f}k IOPS per drive at QD{c['peak_iodepth']}, knee {c['knee_iodepth']}")
# 4. The mix's penalty.
check(len(q["mixed"]) == 3, "3 mixed rows")
for m in q["mixed"]:
    r = max(p["iops"] for p in sweeps[("randread", m["group"])]["points"])
    x = max(p["iops"] for p in sweeps[("randrw", m["group"])]["points"])
    pen = 100 * (1 - x / r)
    check(abs(m["penalty_pct"] - pen) < 1e-9 and 10 <= pen <= 25, f"penalty {m['group']}: {m['penalty_pct']} vs {pen}")
    print(f"{m['group']}: 70/30 costs {pen:.1f}% of peak IOPS")
# 5. SLA classes and capacity advice.
limits = {"OLTP": 2e6, "latency-sensitive": 1e6}
for s in q["sla_classes"]:
    pts = [p for p in sweeps[("randread", s["group"])]["points"] if p["p99"] < limits[s["class"]]]
    best = max(pts, key=lambda p: p["iops"]) if pts else None
    check(s["pass"] == (best is not None), f"class {s}")
    if best:
        check(s["capacity_iops"] == best["iops"] and s["iodepth"] == best["iodepth"], f"class capacity {s}")
passes = {(s["class"], s["group"]): s["pass"] for s in q["sla_classes"]}
check(passes[("OLTP", "nvme")] and passes[("latency-sensitive", "nvme")], "NVMe meets both classes")
check(not passes[("OLTP", "sata")], "SATA (p99 6.5 ms at QD1) fails OLTP")
for a in q["capacity"]:
    lim = limits[a["class"]] * 0.7
    pts = [p for p in sweeps[("randread", a["group"])]["points"] if p["p99"] <= lim]
    if not pts:
        check(a["targets_needed"] is None, f"advice {a}")
        continue
    best = max(pts, key=lambda p: p["iops"] / targets(p["step"], a["group"]))
    per = best["iops"] / targets(best["step"], a["group"])
    check(a["targets_needed"] == math.ceil(200000 / per), f"advice {a} vs {math.ceil(200000 / per)}")
    print(f"{a['class']} {a['group']}: {per/1e3:.1f}k IOPS per drive at QD{best['iodepth']} under {lim/1e6:.2f} ms: {a['targets_needed']} drive(s) for 200k")
# 6. Large blocks against the path's ceiling.
paths = {p["step"]: p for p in q["paths"]}
check(sorted(paths) == ["sata-seqread-128k", "seqread-128k"], f"paths of {sorted(paths)}")
link = {"nvme": 16e9 * 128 / 130 / 8 * 4, "sas": 12e9 * 0.8 / 8, "sata": 6e9 * 0.8 / 8}
hba = 16e9 * 128 / 130 / 8 * 16
for name, want_by, n in (("seqread-128k", "hba", 12), ("sata-seqread-128k", "drives", 4)):
    p = paths[name]
    agents = {a["agent"]: a for a in steps[name]["agents"]}
    check(p["limited_by"][want_by] == 4 and sum(p["limited_by"].values()) == 4, f"{name} limited_by {p['limited_by']}")
    for h in p["hosts"]:
        tg = agents[h["agent"]]["targets"]
        bw = sum(t["read"]["bw"] + t["write"]["bw"] for t in tg)
        ceiling = hba if want_by == "hba" else n * link["sata"]
        check(h["targets"] == n and abs(h["bw"] - bw) < 1e-6 * bw, f"{name} {h['agent']} bw {h['bw']} vs {bw}")
        check(h["limited_by"] == want_by and abs(h["ceiling_bps"] - ceiling) < 1e-6 * ceiling, f"{name} {h}")
        check(0.85 <= h["bw"] / ceiling <= 0.95 and abs(h["used_pct"] - 100 * h["bw"] / ceiling) < 1e-9,
              f"{name} {h['agent']} moves {h['bw'] / ceiling:.3f} of its ceiling, the profile 0.9")
    for g in p["groups"]:
        want = g["targets"] * link[g["group"]]
        check(abs(g["drive_links_bps"] - want) < 1e-6 * want, f"{name} group {g}")
    print(f"{name}: {p['hosts'][0]['bw']/1e9:.2f} GB/s of a {p['hosts'][0]['ceiling_bps']/1e9:.2f} GB/s ceiling ({p['hosts'][0]['limit']})")
hb = {g["group"]: g["used_pct"] for g in paths["seqread-128k"]["groups"]}
check(all(v < 85 for v in hb.values()), f"behind the full HBA the drives use under 85% of their links: {hb}")
# 7. The tuning checklist.
cl = {(r["rule"], g["group"]): g for r in q["checklist"] for g in r["groups"]}
check(cl[("nr_requests", "sata")]["failing"] == 16 and cl[("nr_requests", "sata")]["checked"] == 16
      and "nr_requests 64 is below the job's iodepth x numjobs = 128" in cl[("nr_requests", "sata")]["example"],
      f"nr_requests sata {cl[('nr_requests', 'sata')]}")
check(cl[("nr_requests", "nvme")]["failing"] == 0 and cl[("nr_requests", "nvme")]["checked"] == 16, "nr_requests nvme")
check(cl[("scheduler", "nvme")]["checked"] == 16 and cl[("scheduler", "nvme")]["failing"] == 0
      and cl[("scheduler", "sata")]["checked"] == 0, "scheduler")
check(all(cl[("pcie_link", m)]["checked"] == 16 and cl[("pcie_link", m)]["failing"] == 0 for m in link), "pcie_link")
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
ok "the template's figures are the merged histograms', follow the media profiles, and recompute"
grep -q "^latency of random reads" "$T/qual.txt" && grep -qE "^  latency-sensitive +1.00 ms sata +4k +FAIL" "$T/qual.txt" \
  && grep -q "^capacity advice: targets (drives) per group for 200.0k IOPS, each with 30% p99 headroom" "$T/qual.txt" \
  && grep -qE "^  rack-00001 +0000:01:00.0 +12 .* hba: PCIe 16 GT/s x16$" "$T/qual.txt" \
  && grep -qE "^    sata +FAIL +16/16  e.g. rack-0000[1-4]: step randread-qd128: " "$T/qual.txt" \
  || fail "text: $(cat "$T/qual.txt")"
ok "text: the tables, SATA failing the latency-sensitive class"

# Options: other classes, target and headroom; refusals name the flag.
"$I" report "$run" --template qualification --format json --target-iops 1000000 --headroom 20 \
  --sla-class 'tight:p99<500us' >"$T/q2.json" || fail "template with options"
jq -e '.options.target_iops == 1000000 and .options.headroom_pct == 20
       and [.sla_classes[] | .class] == ["tight", "tight", "tight"]' "$T/q2.json" >/dev/null \
  || fail "options: $(jq -c .options "$T/q2.json")"
"$I" report "$run" --template qualification --headroom 100 2>"$T/e1" && fail "--headroom 100 accepted"
grep -q -- "--headroom: give a percent of the p99 limit" "$T/e1" || fail "headroom error: $(cat "$T/e1")"
"$I" report "$run" --template bogus 2>"$T/e2" && fail "--template bogus accepted"
grep -q -- "--template 'bogus': use qualification or pts" "$T/e2" || fail "template error: $(cat "$T/e2")"
"$I" report "$run" --target-iops 5 2>"$T/e3" && fail "--target-iops without --template accepted"
grep -q "go with --template qualification" "$T/e3" || fail "option error: $(cat "$T/e3")"
ok "options and refusals"

# The page: written by the CLI, rendered by a real headless Chromium (its
# DOM holds both charts, one series per group and rw; no console message).
"$I" report "$run" --template qualification --format html -o "$T/qual.html" || fail "template html"
for id in latency curves mixed classes paths checklist capacity; do
  grep -q "<section id=\"$id\">" "$T/qual.html" || fail "the page has no $id section"
done
if chrome_found; then
  chrome --dump-dom "file://$T/qual.html" >"$T/qual.dom" 2>"$T/chrome-dom.log" || fail "chromium --dump-dom exited $?"
  if grep -E 'CONSOLE|Uncaught|net::ERR|Failed to load|Refused to' "$T/chrome-dom.log"; then fail "console or load errors"; fi
  for kind in qual-iops qual-p99; do
    n=$(grep -o "data-chart=\"$kind\"" "$T/qual.dom" | wc -l)
    s=$(python3 -c "import re,sys; d=open(sys.argv[1]).read(); m=re.search(r'data-chart=\"$kind\".*?</svg>', d, re.S); print(len(re.findall(r'class=\"series\"', m.group(0))) if m else 0)" "$T/qual.dom")
    [ "$n" = 1 ] && [ "$s" = 6 ] || fail "chromium's DOM: chart $kind $n time(s), $s series (want 1, 6: 3 media x 2 rw)"
  done
  n=$(grep -o 'data-chart="qual-paths"' "$T/qual.dom" | wc -l)
  [ "$n" = 2 ] || fail "chromium's DOM: $n path charts (want 2: a large-block step each)"
  if [ -n "${IOFLEET_QUAL_SCREENSHOT:-}" ]; then
    chrome --screenshot="$IOFLEET_QUAL_SCREENSHOT" --window-size=1280,3900 "file://$T/qual.html" >/dev/null 2>&1 \
      || fail "screenshot"
  fi
  ok "HTML: the seven sections; chromium's DOM has both curve charts with a series per medium and rw, and a path chart per large-block step"
else
  echo "note: no chromium here: the page was checked as written only"
fi
