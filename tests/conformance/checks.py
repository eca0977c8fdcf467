"""The checks a case names: each compares what the two tools issued or
reported (check(kind, ...) says how, and its tolerance)."""
import os
from cases import KIB
from checks_region import check_region
from syscalls import CALLS, TIMES, blocks, flat, iolog_ios, region_bytes, total_ios
from tools import replay

# The run's work directory and loop device, set by conformance.main.
WORK = None
DEVICE = None


def check(kind, arg, case, fio_s, iof_s, fio_j, iof_j):
    """Returns (ok for fio, ok for iofleet, figures) for one check."""
    f, i = flat(fio_s), flat(iof_s)
    if kind == "exact":
        same = f == i
        first = next((n for n, (a, b) in enumerate(zip(f, i)) if a != b), min(len(f), len(i)))
        return True, same, "fio %d I/Os, iofleet %d; first difference at #%d" % (
            len(f), len(i), first) if not same else "%d I/Os, identical" % len(f)
    if kind == "exact_files":
        # The same I/Os in the same order, each on the file of the same name.
        same = f == i
        first = next((n for n, (a, b) in enumerate(zip(f, i)) if a != b), min(len(f), len(i)))
        return set(io[3] for io in f) == set(case["files"]), same, \
            "%d I/Os over %s, identical" % (len(f), sorted(case["files"])) if same else \
            "fio %d I/Os, iofleet %d; first difference at #%d: fio %s iofleet %s" % (
                len(f), len(i), first, f[first] if first < len(f) else None,
                i[first] if first < len(i) else None)
    if kind == "per_file":
        # Per file the same I/O in the same order, and each file's I/O from
        # one thread: the files a tool touched must be the ones made for it.
        def per_file(streams):
            by, owner, shared = {}, {}, set()
            for tid in sorted(streams):
                for d, ln, off, name in streams[tid]:
                    by.setdefault(name, []).append((d, ln, off))
                    if owner.setdefault(name, tid) != tid:
                        shared.add(name)
            return by, shared
        (fb, fsh), (ib, ish) = per_file(fio_s), per_file(iof_s)
        want = set(case["files"])
        fok = set(fb) == want and not fsh
        iok = set(ib) == want and not ish and all(ib[n] == fb.get(n) for n in want)
        return fok, iok, "files fio %s iofleet %s; shared by threads fio %s iofleet %s; %s" % (
            sorted(fb), sorted(ib), sorted(fsh) or "none", sorted(ish) or "none",
            ", ".join("%s %d/%d I/Os%s" % (n, len(fb.get(n, [])), len(ib.get(n, [])),
                                             "" if fb.get(n) == ib.get(n) else " DIFFER")
                      for n in sorted(want)))
    if kind == "counted":
        fc, ic = total_ios(fio_j), total_ios(iof_j)
        return fc == len(f), ic == len(i), "fio issued %d counted %d; iofleet issued %d counted %d" % (
            len(f), fc, len(i), ic)
    if kind == "json":
        diffs = []
        for key in arg:
            for d in ("read", "write", "trim"):
                a, b = fio_j["jobs"][0][d][key], iof_j["jobs"][0][d][key]
                if a != b:
                    diffs.append("%s.%s fio %s iofleet %s" % (d, key, a, b))
        return True, not diffs, "; ".join(diffs) or "equal: " + ", ".join(arg)
    if kind == "entries":
        # The report's entries: name, reporting group and I/Os of each.
        def entries(doc):
            return [(j["jobname"], j["groupid"], j["read"]["total_ios"] + j["write"]["total_ios"])
                    for j in doc["jobs"]]
        a, b = entries(fio_j), entries(iof_j)
        return True, a == b, "entries (name, groupid, I/Os): fio %s iofleet %s" % (a, b)
    if kind == "iolog":
        # Each tool's log holds what it issued; "same": the two logs alike;
        # "replay": fio's read_iolog of iofleet's log issues iofleet's stream.
        fh, fl = iolog_ios(os.path.join(WORK, "fio", "io.log"))
        ih, il = iolog_ios(os.path.join(WORK, "iofleet", "io.log"))
        fok = fh == "fio version 3 iolog" and fl == f
        iok = ih == fh and il == i
        figs = "logs: fio %d I/Os (%s what it issued), iofleet %d (%s)" % (
            len(fl), "=" if fl == f else "!=", len(il), "=" if il == i else "!=")
        if arg == "same":
            iok = iok and il == fl
            figs += "; logs %s" % ("identical" if il == fl else "differ")
        else:
            r = replay(os.path.join(WORK, "iofleet", "io.log"), WORK, DEVICE)
            iok = iok and r == i
            figs += "; fio's replay of iofleet's log: %d I/Os, %s" % (
                len(r), "iofleet's stream" if r == i else "another stream")
        return fok, iok, figs
    if kind == "entries_within":
        # Names and groups exact; each entry's I/Os within arg of fio's.
        def entries(doc):
            return [(j["jobname"], j["groupid"], j["read"]["total_ios"] + j["write"]["total_ios"])
                    for j in doc["jobs"]]
        a, b = entries(fio_j), entries(iof_j)
        ok = len(a) == len(b) and all(x[:2] == y[:2] and abs(x[2] - y[2]) <= arg * max(x[2], 1)
                                      for x, y in zip(a, b))
        return True, ok, "entries (name, groupid, I/Os): fio %s iofleet %s" % (a, b)
    if kind == "json_zero":
        # fio times a direction outside its rw (a write job's read-backs)
        # only over a read-back phase: with verify_backlog there is none.
        a = {k: fio_j["jobs"][0]["read"][k] for k in arg}
        b = {k: iof_j["jobs"][0]["read"][k] for k in arg}
        return all(v == 0 for v in a.values()), all(v == 0 for v in b.values()), \
            "read %s: fio %s iofleet %s" % (", ".join(arg), a, b)
    if kind in ("coverage", "overlap"):
        # A case of a whole job file names its region ("region", bytes) and
        # may judge one direction only ("dir": "R", "W" or "T").
        size = case["region"] if "region" in case else region_bytes(case["job"])
        res = []
        for ios in (f, i):
            c = blocks([io for io in ios if io[0] == case["dir"]] if "dir" in case else ios)
            cov = len(c) * 4 * KIB / size
            over = sum(n - 1 for n in c.values())
            res.append((cov, over))
        if kind == "coverage":
            ok = [abs(cov - arg) < 1e-9 for cov, _ in res]
        else:
            ok = [over == arg for _, over in res]
        return ok[0], ok[1], "coverage fio %.1f%% iofleet %.1f%%; blocks hit twice or more fio %d iofleet %d; I/Os fio %d iofleet %d" % (
            100 * res[0][0], 100 * res[1][0], res[0][1], res[1][1], len(f), len(i))
    if kind == "calls":
        # How many of each named call each tool made on the device (arg:
        # {name: allowed difference as a fraction of fio's count}).
        a = CALLS.get(os.path.join(WORK, "fio", "trace"), {})
        b = CALLS.get(os.path.join(WORK, "iofleet", "trace"), {})
        ok = all(abs(b.get(n, 0) - a.get(n, 0)) <= tol * a.get(n, 0) for n, tol in arg.items())
        return a.get(next(iter(arg)), 0) > 0, ok, "; ".join(
            "%s fio %d iofleet %d" % (n, a.get(n, 0), b.get(n, 0)) for n in arg)
    if kind == "offset_mod":
        # Every offset a multiple of align, and the shares of (offset mod
        # mod) within tol of fio's.
        align, mod, tol = arg
        res = []
        for ios in (f, i):
            shares = {}
            for io in ios:
                shares[io[2] % mod] = shares.get(io[2] % mod, 0) + 1 / len(ios)
            res.append((all(io[2] % align == 0 for io in ios), shares))
        ok = res[1][0] and all(abs(res[0][1].get(k, 0) - res[1][1].get(k, 0)) <= tol
                               for k in set(res[0][1]) | set(res[1][1]))
        fmt = lambda d: " ".join("%d:%.2f" % (k, d[k]) for k in sorted(d))
        return res[0][0], ok, "offsets on %d: fio %s iofleet %s; share by offset mod %d: fio %s iofleet %s" % (
            align, res[0][0], res[1][0], mod, fmt(res[0][1]), fmt(res[1][1]))
    if kind == "gaps":
        # The gaps between I/Os issued (strace's clock): their median over
        # their mean within arg (lo, hi), in each tool.
        lo, hi = arg
        res = []
        for tool in ("fio", "iofleet"):
            t = sorted(x for v in TIMES.get(os.path.join(WORK, tool, "trace"), {}).values()
                       for x in v)
            g = sorted(b - a for a, b in zip(t, t[1:]))
            mean = sum(g) / len(g) if g else 0
            res.append((g[len(g) // 2] / mean if mean else 0, mean * 1e6))
        return lo <= res[0][0] <= hi, lo <= res[1][0] <= hi, "median/mean gap: fio %.2f (mean %.0f us) iofleet %.2f (mean %.0f us)" % (
            res[0][0], res[0][1], res[1][0], res[1][1])
    if kind == "trim_then_write":
        # Every write repeats the trim just before it (offset and length),
        # and the trims cover the region once.
        res = []
        for ios in (f, i):
            pairs = all(ios[k][0] == "T" and ios[k + 1][0] == "W" and ios[k][1:] == ios[k + 1][1:]
                        for k in range(0, len(ios) - 1, 2)) and len(ios) % 2 == 0
            c = blocks([io for io in ios if io[0] == "T"])
            res.append((pairs, len(c) * 4 * KIB == region_bytes(case["job"]) and
                        all(n == 1 for n in c.values())))
        return all(res[0]), all(res[1]), "each write repeats its trim: fio %s iofleet %s; trims cover the region once: fio %s iofleet %s" % (
            res[0][0], res[1][0], res[0][1], res[1][1])
    if kind == "span":
        # From the first I/O issued to the last (strace's clock), within
        # tol seconds of want, in each tool (or for fio within fio_lo..hi).
        want, tol = arg[:2]
        fio_lo, fio_hi = arg[2:] if len(arg) == 4 else (want - tol, want + tol)
        res = []
        for tool in ("fio", "iofleet"):
            t = sorted(x for v in TIMES.get(os.path.join(WORK, tool, "trace"), {}).values()
                       for x in v)
            res.append(t[-1] - t[0] if t else 0)
        return fio_lo <= res[0] <= fio_hi, abs(res[1] - want) <= tol, "first to last I/O: fio %.3f s iofleet %.3f s (want %.3f +- %.3f)" % (
            res[0], res[1], want, tol)
    if kind == "job_fields":
        # Fields of the first job entry, each within its absolute tolerance.
        diffs, figs = [], []
        for key, tol in arg.items():
            a, b = fio_j["jobs"][0].get(key), iof_j["jobs"][0].get(key)
            figs.append("%s fio %s iofleet %s" % (key, a, b))
            if a is None or b is None or abs(a - b) > tol:
                diffs.append(key)
        return True, not diffs, "; ".join(figs)
    if kind == "iops":
        a = sum(j[d]["iops"] for j in fio_j["jobs"] for d in ("read", "write", "trim"))
        b = sum(j[d]["iops"] for j in iof_j["jobs"] for d in ("read", "write", "trim"))
        return True, abs(b - a) <= arg * a, "IOPS fio %.0f iofleet %.0f" % (a, b)
    if kind == "lat_logs":
        # Each named log of each tool (PREFIX_KIND.1.log where it ran): its
        # lines without time and value, in order.
        def cols(tool, k):
            path = os.path.join(WORK, tool, "lat_%s.1.log" % k)
            if not os.path.exists(path):
                return None
            with open(path) as f:
                return [tuple(x.strip() for x in line.split(",")[2:]) for line in f]
        res, figs = True, []
        for k in arg:
            a, b = cols("fio", k), cols("iofleet", k)
            same = a is not None and a == b
            res &= same
            figs.append("%s: fio %s lines iofleet %s%s" % (
                k, len(a) if a is not None else "no", len(b) if b is not None else "no",
                ", equal" if same else ""))
        return True, res, "; ".join(figs)
    if kind == "seq_runs":
        # In each run of arg I/Os the first is where the random map put
        # it (never drawn twice) and the rest each start where the one
        # before ended.
        res = []
        for ios in (f, i):
            runs = all(ios[k][2] == ios[k - 1][2] + ios[k - 1][1]
                       for k in range(len(ios)) if k % arg)
            firsts = [ios[k][2] for k in range(0, len(ios), arg)]
            res.append((runs, len(set(firsts)) == len(firsts)))
        return all(res[0]), all(res[1]), "runs of %d, each after the last: fio %s iofleet %s; random starts distinct: fio %s iofleet %s" % (
            arg, res[0][0], res[1][0], res[0][1], res[1][1])
    if kind == "seq_share":
        # The share of I/Os (after the first) that start where the one
        # before ended, within arg of fio's.
        res = []
        for ios in (f, i):
            n = sum(1 for k in range(1, len(ios)) if ios[k][2] == ios[k - 1][2] + ios[k - 1][1])
            res.append(n / max(len(ios) - 1, 1))
        return True, abs(res[0] - res[1]) <= arg, "share going on from the last: fio %.3f iofleet %.3f" % (
            res[0], res[1])
    if kind == "bs_shares":
        # Each I/O size's share of the I/Os within arg of fio's.
        res = []
        for ios in (f, i):
            c = {}
            for io in ios:
                c[io[1]] = c.get(io[1], 0) + 1 / len(ios)
            res.append(c)
        ok = all(abs(res[0].get(k, 0) - res[1].get(k, 0)) <= arg for k in set(res[0]) | set(res[1]))
        fmt = lambda d: " ".join("%d:%.2f" % (k, d[k]) for k in sorted(d))
        return True, ok, "size shares fio %s iofleet %s" % (fmt(res[0]), fmt(res[1]))
    if kind == "bs_mean":
        # The mean size within arg of fio's, the share of sizes on a KiB
        # within 0.05 of fio's.
        res = []
        for ios in (f, i):
            res.append((sum(io[1] for io in ios) / len(ios),
                        sum(1 for io in ios if io[1] % KIB == 0) / len(ios)))
        ok = abs(res[1][0] - res[0][0]) <= arg * res[0][0] and abs(res[1][1] - res[0][1]) <= 0.05
        return True, ok, "mean size fio %.0f iofleet %.0f; on a KiB fio %.3f iofleet %.3f" % (
            res[0][0], res[1][0], res[0][1], res[1][1])
    if kind == "ends_early":
        # Over the seeds, some of each tool's runs issued less than the
        # region (the job ended early), and the mean counts within arg.
        full = region_bytes(case["job"]) // (4 * KIB)
        a, b = case["counts"]["fio"], case["counts"]["iofleet"]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        return any(n < full for n in a), any(n < full for n in b) and abs(mb - ma) <= arg * ma, \
            "I/Os of %d over seeds: fio %s (mean %.1f) iofleet %s (mean %.1f)" % (full, a, ma, b, mb)
    if kind == "depth_within":
        # latency_target: the depth each tool found within lo..hi.
        lo, hi = arg
        a, b = fio_j["jobs"][0]["latency_depth"], iof_j["jobs"][0]["latency_depth"]
        return lo <= a <= hi, lo <= b <= hi, "latency_depth fio %d iofleet %d (want %d..%d)" % (
            a, b, lo, hi)
    if kind == "settled_iops":
        # latency_target: IOPS within tol of fio's where both measured no
        # more than max_ms (the search settled; a failed final window goes
        # on searching at other depths).
        tol, max_ms = arg
        a, b = fio_j["jobs"][0]["read"], iof_j["jobs"][0]["read"]
        settled = a["runtime"] <= max_ms and b["runtime"] <= max_ms
        ok = not settled or abs(b["iops"] - a["iops"]) <= tol * a["iops"]
        return True, ok, "IOPS fio %.0f (%d ms) iofleet %.0f (%d ms)%s" % (
            a["iops"], a["runtime"], b["iops"], b["runtime"],
            "" if settled else ": not compared, a search went on")
    if kind == "hotness":
        # A skewed distribution's shape over the 4k blocks of the region:
        # the share of the I/Os in its hottest 10% of blocks, and (zoned,
        # which is not scattered) the share per tenth of the region.
        tol, by_position = arg
        nblocks = region_bytes(case["job"]) // (4 * KIB)
        res = []
        for ios in (f, i):
            c = blocks(ios)
            hits = sorted(c.values(), reverse=True)
            top = sum(hits[:nblocks // 10]) / max(len(ios), 1)
            dec = [0.0] * 10
            for b, n in c.items():
                dec[min(b * 10 // nblocks, 9)] += n / max(len(ios), 1)
            res.append((top, dec))
        ok = abs(res[0][0] - res[1][0]) <= tol
        if by_position:
            ok = ok and all(abs(a - b) <= tol for a, b in zip(res[0][1], res[1][1]))
        return True, ok, "hottest 10%% of blocks: fio %.3f iofleet %.3f; per tenth fio %s iofleet %s" % (
            res[0][0], res[1][0], " ".join("%.2f" % x for x in res[0][1]),
            " ".join("%.2f" % x for x in res[1][1]))
    if kind == "hits":
        # Every block of the region touched exactly arg times.
        size = region_bytes(case["job"])
        res = []
        for ios in (f, i):
            c = blocks(ios)
            res.append((len(c) == size // (4 * KIB) and all(n == arg for n in c.values()),
                        min(c.values(), default=0), max(c.values(), default=0)))
        return res[0][0], res[1][0], "blocks hit min..max times: fio %d..%d iofleet %d..%d (want %d)" % (
            res[0][1], res[0][2], res[1][1], res[1][2], arg)
    if kind == "repeat":
        # The stream is arg copies of its first 1/arg (per thread).
        def repeats(streams):
            for ios in streams.values():
                n = len(ios) // arg
                if n == 0 or len(ios) % arg or any(ios[k * n:(k + 1) * n] != ios[:n] for k in range(arg)):
                    return False
            return True
        a, b = repeats(fio_s), repeats(iof_s)
        return a, b, "each loop repeats the first's offsets: fio %s, iofleet %s" % (
            "yes" if a else "no", "yes" if b else "no")
    if kind == "read_back":
        # The writes are read back in the order written: at the end of the
        # pass (arg 0; in a mixed pass, the reads after the last write), or
        # every arg writes (verify_backlog, QD1).
        def shape(ios):
            w = [(ln, o) for d, ln, o in ios if d == "W"]
            if arg == 0:
                last = max(n for n, io in enumerate(ios) if io[0] == "W")
                back = [(ln, o) for d, ln, o in ios[last + 1:]]
                return back[-len(w):] == w and len(back) >= len(w), len(w), len(back)
            groups = []
            for n in range(0, len(ios), 2 * arg):
                chunk = ios[n:n + 2 * arg]
                ws = [(ln, o) for d, ln, o in chunk[:arg] if d == "W"]
                rs = [(ln, o) for d, ln, o in chunk[arg:] if d == "R"]
                groups.append(len(ws) == arg and rs == ws)
            return all(groups), len(w), sum(1 for io in ios if io[0] == "R")
        a, b = shape(f), shape(i)
        return a[0], b[0], "writes read back in the order written: fio %s (%d writes, %d reads after), iofleet %s (%d, %d)" % (
            "yes" if a[0] else "no", a[1], a[2], "yes" if b[0] else "no", b[1], b[2])
    if kind == "count_mean":
        a, b = case["counts"]["fio"], case["counts"]["iofleet"]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        return True, abs(mb - ma) <= arg * ma, "I/Os over %d seeds: fio %s (mean %.0f), iofleet %s (mean %.0f)" % (
            len(a), a, ma, b, mb)
    if kind == "count":
        return True, abs(len(i) - len(f)) <= arg * len(f), "I/Os fio %d iofleet %d" % (len(f), len(i))
    if kind == "count_dir":
        ok, figs = True, []
        for d in "RW":
            a = sum(1 for io in f if io[0] == d)
            b = sum(1 for io in i if io[0] == d)
            figs.append("%s fio %d iofleet %d" % (d, a, b))
            if abs(a - b) > arg * max(a, 1):
                ok = False
        return True, ok, "; ".join(figs)
    if kind == "clat_ratio":
        # Loose on purpose: a test checks the mechanism (no queue build-up
        # under a rate, what the clock spans), not time; bench/engine-vs-fio
        # measures the 10% target.  arg: the bound over fio's mean, or
        # (low, high) around it.  slat's count must be fio's too.
        lo, hi, k = (arg + (0,))[:3] if isinstance(arg, tuple) else (0, arg, 0)
        a, b = fio_j["jobs"][k]["read"], iof_j["jobs"][k]["read"]
        ca, cb = a["clat_ns"]["mean"], b["clat_ns"]["mean"]
        sa, sb = a["slat_ns"]["N"], b["slat_ns"]["N"]
        return True, lo * ca <= cb <= hi * ca and (sa == 0) == (sb == 0), \
            "clat mean fio %.0f ns iofleet %.0f ns (bounds %.1fx..%.1fx); slat N fio %d iofleet %d" % (
                ca, cb, lo, hi, sa, sb)
    if kind == "seqdir":
        def first_break(ios):
            """The first I/O of a direction that does not follow its previous one."""
            for d in "RW":
                offs = [(o, ln) for dd, ln, o in ios if dd == d]
                for n, ((o1, l1), (o2, _)) in enumerate(zip(offs, offs[1:])):
                    if o2 != o1 + l1 and o2 != 0:
                        return "%s #%d at %d after %d" % (d, n + 1, o2, o1)
            return None
        a, b = first_break(f), first_break(i)
        return a is None, b is None, "reads and writes each sequential: fio %s, iofleet %s" % (
            a or "yes", b or "yes")
    if kind == "seqskip":
        # Each direction's next I/O starts arg bytes after the previous one's.
        def steps(ios):
            for d in "RW":
                offs = [o for dd, ln, o in ios if dd == d]
                if any(b - a != arg for a, b in zip(offs, offs[1:])):
                    return False
            return True
        a, b = steps(f), steps(i)
        return a, b, "each direction steps %d bytes: fio %s, iofleet %s (I/Os fio %d iofleet %d)" % (
            arg, "yes" if a else "no", "yes" if b else "no", len(f), len(i))
    if kind == "align_write":
        def aligned(ios):
            w = [o for d, _, o in ios if d == "W"]
            return sum(1 for o in w if o % arg == 0), len(w)
        a, b = aligned(f), aligned(i)
        return a[0] == a[1] > 0, b[0] == b[1] > 0, "writes on %d-byte boundaries: fio %d of %d, iofleet %d of %d" % (
            arg, a[0], a[1], b[0], b[1])
    res = check_region(kind, arg, case, f, i)
    if res is not None:
        return res
    raise ValueError("unknown check " + kind)
