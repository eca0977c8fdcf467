"""The checks of the end of a region (cases_region.py): how a pass ends,
judged on the bytes each tool issued."""
from syscalls import region_bytes


def tiles(ios, start, size):
    """The I/Os sorted by offset cover [start, start + size) byte for byte,
    each byte once and nothing outside: None, or where they do not."""
    at = start
    for _, ln, off in sorted(ios, key=lambda io: io[2]):
        if off != at:
            return "%s at %d where %d was next" % ("overlap" if off < at else "gap", off, at)
        at = off + ln
    return None if at == start + size else "ends at %d, the region at %d" % (at, start + size)


def check_region(kind, arg, case, f, i):
    """Returns (ok for fio, ok for iofleet, figures), or None for a kind
    that is not one of these."""
    start = case.get("region_start", 0)
    if kind == "tiles":
        # Each direction named (arg: "W", "TW", ...) covers the region
        # exactly once, to its last byte: no wrap, no I/O past its end.
        size = region_bytes(case["job"])
        res = []
        for ios in (f, i):
            res.append({d: tiles([io for io in ios if io[0] == d], start, size) for d in arg})
        fmt = lambda r: ", ".join("%s %s" % (d, r[d] or "exactly once") for d in arg)
        return all(v is None for v in res[0].values()), all(v is None for v in res[1].values()), \
            "the region (%d bytes) covered: fio %s; iofleet %s (I/Os fio %d iofleet %d)" % (
                size, fmt(res[0]), fmt(res[1]), len(f), len(i))
    if kind == "trim_pairs":
        # Every write repeats the trim just before it, offset and length.
        res = []
        for ios in (f, i):
            res.append(len(ios) % 2 == 0 and all(
                ios[k][0] == "T" and ios[k + 1][0] == "W" and ios[k][1:] == ios[k + 1][1:]
                for k in range(0, len(ios), 2)))
        n = [sum(1 for io in ios if io[0] == d) for ios in (f, i) for d in "TW"]
        return res[0], res[1], "each write repeats its trim: fio %s (%d trims, %d writes), iofleet %s (%d trims, %d writes)" % (
            res[0], n[0], n[1], res[1], n[2], n[3])
    if kind == "tail_starts":
        # arg (tail, tol): the share of I/Os starting in the region's last
        # tail bytes within tol of fio's, and none ending past the region.
        tail, tol = arg
        size = region_bytes(case["job"])
        res = []
        for ios in (f, i):
            share = sum(1 for io in ios if io[2] >= start + size - tail) / max(len(ios), 1)
            res.append((share, all(io[2] + io[1] <= start + size for io in ios)))
        return res[0][1], res[1][1] and abs(res[1][0] - res[0][0]) <= tol, \
            "share starting in the last %d bytes: fio %.3f iofleet %.3f; all inside the region: fio %s iofleet %s" % (
                tail, res[0][0], res[1][0], res[0][1], res[1][1])
    if kind == "wrap_after":
        # A pass starts over (an I/O at the region's start, after the
        # first) only right after an I/O that ended at arg, and at least once.
        res = []
        for ios in (f, i):
            ends = [ios[k - 1][2] + ios[k - 1][1] for k in range(1, len(ios)) if ios[k][2] == start]
            res.append((len(ends), sorted(set(ends))))
        ok = [n > 0 and e == [arg] for n, e in res]
        return ok[0], ok[1], "passes started over: fio %d, after I/Os ending at %s; iofleet %d, after %s" % (
            res[0][0], res[0][1], res[1][0], res[1][1])
    return None
