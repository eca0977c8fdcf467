#!/usr/bin/env python3
"""Checks an HTML report of iofleet against the report JSON it came from.

    html_check.py report HTML REPORT_JSON
    html_check.py compare HTML REPORT_A_JSON REPORT_B_JSON ROWS_JSON

Stdlib only.  Exits 1 with "FAIL: ..." lines on stderr; on success prints
one line of JSON with what it counted (file size, charts, series, points).
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

errors = []
# The directions, in the report's order; "trim" only where a step trimmed.
DIRS = ("read", "write", "trim")


def fail(msg):
    errors.append(msg)


class Doc(HTMLParser):
    """Collects the attributes that could fetch something, and the text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs = []
        self.tags = {}
        self.text = []
        self.in_style = False
        self.regression_rows = 0
        self.compare_rows = 0

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.in_style = tag == "style"
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "poster", "srcset", "data",
                     "background", "formaction") and v is not None:
                self.refs.append((tag, k, v))
            if k == "style" and v and "url(" in v:
                self.refs.append((tag, "style", v))
        if tag == "tr":
            cls = dict(attrs).get("class") or ""
            if "regression" in cls.split():
                self.regression_rows += 1

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if not self.in_style:
            self.text.append(data)


def no_external(html, doc):
    for tag, attr, v in doc.refs:
        if attr == "style":
            for u in re.findall(r"url\(\s*['\"]?([^'\")]*)", v):
                if not u.startswith("#"):
                    fail(f"<{tag} style> fetches {u!r}")
        elif not v.startswith("#"):
            fail(f"<{tag} {attr}={v!r}>: a reference out of the file")
    for pat, what in ((r"(?i)https?:", "an http(s): URL"), (r"(?i)<script", "a <script>"),
                      (r"(?i)<link\b", "a <link>"), (r"(?i)@import", "a CSS @import"),
                      (r"(?i)<iframe|<object|<embed|<img\b", "an embedded object")):
        if re.search(pat, html):
            fail(f"the file holds {what}")
    for u in re.findall(r"url\(\s*['\"]?([^'\")]*)", html):
        if not u.startswith("#"):
            fail(f"url({u}) points out of the file")
    # '//' as a scheme-relative URL in any attribute.
    for m in re.finditer(r"=\s*\"\s*//", html):
        fail(f"a scheme-relative URL at offset {m.start()}")
    text = " ".join(doc.text)
    if re.search(r"(?i)\b(nan|inf|infinity)\b", text):
        fail("the text shows nan or inf: " + re.search(r"(?i).{0,40}\b(nan|inf|infinity)\b.{0,20}", text).group(0))


def charts(html):
    """Every <svg>, parsed as XML: [(kind, title, [(series, points)], [(<g>, [pt])])]."""
    out = []
    for m in re.finditer(r"<svg\b.*?</svg>", html, re.S):
        try:
            root = ET.fromstring(m.group(0))
        except ET.ParseError as e:
            fail(f"an <svg> does not parse: {e}: {m.group(0)[:120]}")
            continue
        if "chart" not in (root.get("class") or "").split() or not root.get("data-chart"):
            fail(f"an <svg> without class=chart and data-chart: {m.group(0)[:120]}")
            continue
        title = root.findtext("title") or ""
        series, elems = [], []
        for g in root.iter("g"):
            if "series" in (g.get("class") or "").split():
                pts = [e for e in g.iter() if "pt" in (e.get("class") or "").split()]
                series.append((g.get("data-series"), len(pts)))
                elems.append((g, pts))
        out.append((root.get("data-chart"), title, series, elems))
    return out


def of_kind(ch, kind):
    return [c for c in ch if c[0] == kind]


def html_escape(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def check_report(html, rep, ch):
    steps = rep.get("steps") or []
    # Sweeps: per swept job one IOPS and one p99 chart, a series per group,
    # a point per depth.
    sw = rep.get("sweeps") or []
    keys = []
    for s in sw:
        k = (s.get("sweep"), s.get("rw"), s.get("bs"))
        if k not in keys:
            keys.append(k)
    # The knee's rule is the controller's, rendered as it wrote it.
    if sw and sw[0].get("knee_rule") and html_escape(sw[0]["knee_rule"]) not in html:
        fail("the sweep section lacks the controller's knee rule %r" % sw[0]["knee_rule"])
    for kind in ("sweep-iops", "sweep-p99"):
        got = of_kind(ch, kind)
        if len(got) != len(keys):
            fail(f"{len(got)} {kind} charts for {len(keys)} swept jobs")
        for k, c in zip(keys, got):
            curves = [s for s in sw if (s.get("sweep"), s.get("rw"), s.get("bs")) == k]
            grouped = [s for s in curves if "group" in s]
            want = grouped or curves
            names = [s.get("group", "fleet") for s in want]
            if [n for n, _ in c[2]] != names:
                fail(f"{kind} {k}: series {[n for n, _ in c[2]]}, want {names}")
            for (n, npt), s in zip(c[2], want):
                if npt != len(s["points"]):
                    fail(f"{kind} {k} series {n}: {npt} points for {len(s['points'])} depths")
    # Per step: percentiles, intervals, heatmap, in step order.
    pc, ic, hc = of_kind(ch, "percentiles"), of_kind(ch, "intervals-iops"), of_kind(ch, "heatmap")
    measured = [s for s in steps if any((s.get("fleet") or {}).get(d, {}).get("ops", 0) > 0
                                        for d in DIRS)]
    if len(pc) != len(measured):
        fail(f"{len(pc)} percentile charts for {len(measured)} steps with I/O")
    for s, c in zip(measured, pc):
        groups = [g for g in s.get("groups") or [] if g.get("by") != "all"]
        dirs = [d for d in DIRS if s["fleet"].get(d, {}).get("ops", 0) > 0]
        want = len(groups) * len(dirs) if groups else len(dirs)
        if len(c[2]) != want:
            fail(f"percentiles of {s['name']}: {len(c[2])} series, want {want}")
        for n, npt in c[2]:
            if npt != 5:
                fail(f"percentiles of {s['name']} series {n}: {npt} points, want 5")
    with_iv = [s for s in steps if s.get("intervals")]
    if len(ic) != len(with_iv):
        fail(f"{len(ic)} interval charts for {len(with_iv)} steps with intervals")
    for s, c in zip(with_iv, ic):
        npt = dict(c[2]).get("fleet")
        if npt != len(s["intervals"]):
            fail(f"intervals of {s['name']}: {npt} points for {len(s['intervals'])} intervals")
    # Drive temperature: a chart per step with health; the fleet's highest
    # and mean and each hot drive's own, a point per interval with a reading.
    tc = of_kind(ch, "temperature")
    # (A step whose drives have no sensor gets a line saying so, no chart.)
    with_h = [s for s in steps if s.get("health")
              and s["health"]["not_sent"] != s["health"]["drives_total"]
              and s["health"].get("temperature")]
    if len(tc) != len(with_h):
        fail(f"{len(tc)} temperature charts for {len(with_h)} steps with health")
    for s, c in zip(with_h, tc):
        t = s["health"]["temperature"]
        want = [("fleet highest", sum(v is not None for v in t["max_c"])),
                ("fleet mean", sum(v is not None for v in t["mean_c"]))]
        want += [(f"{d['agent']} {d['target'].rsplit('/', 1)[-1]}",
                  sum(v is not None for v in d["c"])) for d in t["drives"]]
        if c[2] != want:
            fail(f"temperature of {s['name']}: series {c[2]}, want {want}")
    if len(hc) != len(measured):
        fail(f"{len(hc)} heatmaps for {len(measured)} steps with I/O")
    for s, c in zip(measured, hc):
        hosts = len(s["agents"])
        targets = len({t["target"].rsplit("/", 1)[-1] for a in s["agents"] for t in a["targets"]})
        cells = sum(n for _, n in c[2])
        if len(c[2]) != hosts or cells != hosts * targets:
            fail(f"heatmap of {s['name']}: {len(c[2])} rows, {cells} cells; want {hosts} x {targets}")
    # Each cell is measured against the median p99 of its own group's
    # targets ("group" on the target, with --by), else of the step's.
    info = {"heatmap_cells": 0, "heatmap_grouped_cells": 0, "heatmap_groups": 0}
    for s, c in zip(measured, hc):
        fl = s["fleet"]
        dn = next((d for d in DIRS if fl.get(d, {}).get("ops", 0) > 0), "read")

        def p99(t):
            d = t.get(dn) or {}
            v = (d.get("percentiles") or {}).get("p99")
            return v if d.get("ops", 0) > 0 and isinstance(v, (int, float)) and v > 0 else None

        def median(g):
            v = sorted(p99(t) for a in s["agents"] for t in a["targets"]
                       if p99(t) is not None and (g is None or t.get("group") == g))
            n = len(v)
            return None if not n else v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
        cols = list(dict.fromkeys(t["target"].rsplit("/", 1)[-1] for a in s["agents"] for t in a["targets"]))
        groups = set()
        for a, (g, pts) in zip(s["agents"], c[3]):
            want = []
            for col in cols:
                ts = [t for t in a["targets"] if t["target"].rsplit("/", 1)[-1] == col]
                t = ts[-1] if ts else None
                if t is not None and p99(t) is not None and median(t.get("group")):
                    want.append(t)
            if len(want) != len(pts):
                fail(f"heatmap of {s['name']} row {a['agent']}: {len(pts)} cells, want {len(want)}")
                continue
            for t, e in zip(want, pts):
                grp, med = t.get("group"), median(t.get("group"))
                if e.get("data-group") != grp:
                    fail(f"heatmap of {s['name']} {a['agent']} {t['target']}: data-group "
                         f"{e.get('data-group')!r}, the JSON says {grp!r}")
                try:
                    got = float(e.get("data-median"))
                except (TypeError, ValueError):
                    got = None
                if got is None or abs(got - med) > 1e-6 * med:
                    fail(f"heatmap of {s['name']} {a['agent']} {t['target']}: data-median "
                         f"{e.get('data-median')}, want {med} (median p99 of "
                         f"{'group ' + grp if grp else 'the step'})")
                info["heatmap_cells"] += 1
                if grp is not None:
                    info["heatmap_grouped_cells"] += 1
                    groups.add(grp)
        info["heatmap_groups"] += len(groups)
    for s in steps:
        if f'id="step-{steps.index(s)}"' not in html:
            fail(f"no section for step {s['name']}")
    return info


def check_histograms(a, b, step_names, ch):
    """One overlaid histogram chart per step and direction both runs
    measured: series A and B, a point per bin (data-bins, from the JSON),
    fractions (data-frac) summing to 1."""
    def step(rep, name):
        return next((s for s in rep.get("steps") or [] if s.get("name") == name), {})
    want = [(n, d) for n in step_names for d in DIRS
            if all(((step(r, n).get("fleet") or {}).get(d) or {}).get("ops", 0) > 0 for r in (a, b))]
    hist = of_kind(ch, "compare-histogram")
    if len(hist) != len(want):
        fail(f"{len(hist)} overlaid histogram charts for {len(want)} step directions both runs measured")
    bins = 0
    for (n, d), c in zip(want, hist):
        if f": {n}" not in c[1] or f" {d} " not in c[1]:
            fail(f"histogram chart {c[1]!r} is not {d} of {n}")
        names = [sn for sn, _ in c[2]]
        want_names = [f"A (run {a.get('run')})", f"B (run {b.get('run')})"]
        if names != want_names:
            fail(f"histogram {c[1]}: series {names}, want {want_names}")
        for g, pts in c[3]:
            nb = g.get("data-bins")
            if nb is None or int(float(nb)) != len(pts) or not pts:
                fail(f"histogram {c[1]} {g.get('data-series')}: {len(pts)} points for data-bins={nb}")
            bins += len(pts)
            try:
                total = sum(float(e.get("data-frac")) for e in pts)
            except (TypeError, ValueError):
                fail(f"histogram {c[1]} {g.get('data-series')}: a point without data-frac")
                continue
            if abs(total - 1) > 1e-6:
                fail(f"histogram {c[1]} {g.get('data-series')}: fractions sum to {total!r}")
    return len(hist), bins


def check_compare(html, a, b, rows, ch, doc):
    if isinstance(rows, dict):      # iofleet compare --format json: the envelope
        rows = rows["rows"]
    step_names = []
    for r in rows:
        if r["step"] not in step_names:
            step_names.append(r["step"])
    bars = of_kind(ch, "compare-delta")
    if len(bars) != len(step_names):
        fail(f"{len(bars)} change charts for {len(step_names)} steps")
    for name, c in zip(step_names, bars):
        rs = [r for r in rows if r["step"] == name]
        metrics = list(dict.fromkeys(r["metric"] for r in rs))
        if [n for n, _ in c[2]] != metrics:
            fail(f"change chart of {name}: series {[n for n, _ in c[2]]}, want {metrics}")
        for n, npt in c[2]:
            want = len([r for r in rs if r["metric"] == n and r.get("delta_pct") is not None])
            if npt != want:
                fail(f"change chart of {name} {n}: {npt} bars, want {want}")
    curves = of_kind(ch, "compare-percentiles")
    if len(curves) != len(step_names):
        fail(f"{len(curves)} overlaid percentile charts for {len(step_names)} steps")
    for c in curves:
        if len(c[2]) < 2 or any(n != 5 for _, n in c[2]):
            fail(f"overlaid percentiles {c[1]}: {c[2]}")
        if not any(s.startswith("A ") for s, _ in c[2]) or not any(s.startswith("B ") for s, _ in c[2]):
            fail(f"overlaid percentiles {c[1]}: not both A and B: {c[2]}")
    worse = [r for r in rows if r.get("significant") is True
             and ((r["delta_pct"] > 0) if r["metric"].startswith("p") else (r["delta_pct"] < 0))]
    if doc.regression_rows != len(worse):
        fail(f"{doc.regression_rows} rows highlighted as regressions, want {len(worse)}")
    nh, nbins = check_histograms(a, b, step_names, ch)
    return {"regressions": len(worse), "histogram_charts": nh, "histogram_bins": nbins}


def main():
    mode, path = sys.argv[1], sys.argv[2]
    html = open(path, encoding="utf-8").read()
    doc = Doc()
    doc.feed(html)
    doc.close()
    no_external(html, doc)
    ch = charts(html)
    info = {"file": os.path.basename(path), "bytes": os.path.getsize(path), "charts": len(ch),
            "series": sum(len(c[2]) for c in ch), "points": sum(n for c in ch for _, n in c[2]),
            "kinds": {}}
    for c in ch:
        info["kinds"][c[0]] = info["kinds"].get(c[0], 0) + 1
    if mode == "report":
        rep = json.load(open(sys.argv[3]))
        info.update(check_report(html, rep, ch))
    elif mode == "compare":
        a, b, rows = (json.load(open(p)) for p in sys.argv[3:6])
        info.update(check_compare(html, a, b, rows, ch, doc))
    else:
        fail(f"unknown mode {mode}")
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(json.dumps(info, sort_keys=True))


if __name__ == "__main__":
    main()
