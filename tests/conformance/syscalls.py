"""What a tool issued, read from its strace -ff trace: each I/O on the
device (io_submit's iocbs, the pread/pwrite and sync families, BLKDISCARD),
when it was issued, and the calls made; and fio's own I/O log read the
same way."""
import glob
import os
import re
from cases import KIB, MIB


IOCB = re.compile(r"aio_lio_opcode=IOCB_CMD_(PREAD|PWRITE)\b[^}]*?aio_fildes=\d+<([^>]*)>"
                  r"[^}]*?aio_nbytes=(\d+), aio_offset=(\d+)")
PRW = re.compile(r"^(pread64|pwrite64)\(\d+<([^>]*)>, .*, (\d+), (\d+)\) = -?\d+")
# The sync family: read/write at the file position (set by lseek), the
# vectored calls with their iovecs, and the positioned vectored calls.
LSEEK = re.compile(r"^lseek\((\d+)<([^>]*)>, (\d+), SEEK_SET\) = (-?\d+)")
RW = re.compile(r"^(read|write)\((\d+)<([^>]*)>, .*, (\d+)\) = (-?\d+)$")
VEC = re.compile(r"^(readv|writev|preadv|pwritev|preadv2|pwritev2)\((\d+)<([^>]*)>, \[(.*)\], "
                 r"(\d+)(?:, (\d+))?(?:, \w+)?\) = (-?\d+)$")
IOVLEN = re.compile(r"iov_len=(\d+)")
# A trim: BLKDISCARD's range (start, length).
DISCARD = re.compile(r"^ioctl\((\d+)<([^>]*)>, BLKDISCARD, \[(\d+), (\d+)\]\) = -?\d+")
TRACED = ("io_submit,pread64,pwrite64,lseek,read,write,readv,writev,preadv,pwritev,preadv2,"
          "pwritev2,ioctl")
# The calls each tool made on the device, by name, per trace prefix.
CALLS = {}
# When each I/O was issued (strace -ttt, seconds), per trace prefix, in
# the order of flat(issued(...)).
TIMES = {}
STAMP = re.compile(r"^(\d+\.\d+) ")


def unhex(text):
    """strace -xx's \\xNN escapes back to the string."""
    return re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def issued(trace_prefix, device):
    """Returns {tid: [(dir, len, off), ...]} of the I/O on device, in issue
    order.  A device ending in '/' is a directory: the I/O on every file in
    it, each I/O then (dir, len, off, file name).  CALLS[trace_prefix]
    counts the calls made on it by name, TIMES[trace_prefix][tid] holds
    when each I/O was issued."""
    def on(path):
        path = unhex(path)
        if device.endswith("/"):
            return path[len(device):] if path.startswith(device) else None
        return path if path == device else None

    def io(d, ln, off, name):
        return (d, ln, off, name) if device.endswith("/") else (d, ln, off)

    def count(call):
        calls[call] = calls.get(call, 0) + 1

    def parse(line, ios, pos):
        """Appends the I/O of one strace line to ios (pos: each fd's file
        position, for read/write/readv/writev)."""
        if line.startswith("io_submit("):
            for m in IOCB.finditer(line):
                name = on(m.group(2))
                if name is not None:
                    count("io_submit")
                    ios.append(io("R" if m.group(1) == "PREAD" else "W",
                                  int(m.group(3)), int(m.group(4)), name))
            return
        m = PRW.match(line)
        if m:
            name = on(m.group(2))
            if name is not None:
                count(m.group(1))
                ios.append(io("R" if m.group(1) == "pread64" else "W",
                              int(m.group(3)), int(m.group(4)), name))
            return
        m = DISCARD.match(line)
        if m:
            name = on(m.group(2))
            if name is not None:
                count("BLKDISCARD")
                ios.append(io("T", int(m.group(4)), int(m.group(3)), name))
            return
        m = LSEEK.match(line)
        if m:
            if on(m.group(2)) is not None:
                count("lseek")
                pos[m.group(1)] = int(m.group(4))
            return
        m = RW.match(line)
        if m:
            name = on(m.group(3))
            if name is not None:
                count(m.group(1))
                off = pos.get(m.group(2), 0)
                ios.append(io("R" if m.group(1) == "read" else "W", int(m.group(4)), off, name))
                pos[m.group(2)] = off + max(int(m.group(5)), 0)
            return
        m = VEC.match(line)
        if m:
            name = on(m.group(3))
            if name is not None:
                call = m.group(1)
                count(call)
                off = int(m.group(6)) if call.startswith("p") else pos.get(m.group(2), 0)
                d = "R" if "read" in call else "W"
                for ln in IOVLEN.findall(m.group(4)):
                    ios.append(io(d, int(ln), off, name))
                    off += int(ln)
                if not call.startswith("p"):
                    pos[m.group(2)] = off

    streams = {}
    calls = CALLS.setdefault(trace_prefix, {})
    calls.clear()
    times = TIMES.setdefault(trace_prefix, {})
    times.clear()
    # The tool's own first thread runs no job (fio forks its jobs, iofleet
    # runs them in worker threads); what it does on the device is setup,
    # such as iofleet's write guard, whose libblkid probe reads the device
    # with read() and lseek().  Only the jobs' I/O is compared.
    paths = sorted(glob.glob(trace_prefix + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
    for path in paths[1:]:
        tid = int(path.rsplit(".", 1)[1])
        ios, pos, stamps = [], {}, []
        with open(path, errors="replace") as f:
            for line in f:
                m = STAMP.match(line)
                when = float(m.group(1)) if m else 0.0
                before = len(ios)
                parse(line[m.end():] if m else line, ios, pos)
                stamps.extend([when] * (len(ios) - before))
        if ios:
            streams[tid] = ios
            times[tid] = stamps
    return streams


def iolog_ios(path):
    """The I/O lines of a fio iolog (v2 or v3): [(dir, len, off), ...]."""
    out = []
    with open(path) as f:
        head = f.readline().strip()
        v3 = head == "fio version 3 iolog"
        for line in f:
            w = line.split()
            if v3:
                w = w[1:]
            if len(w) == 4 and w[1] in ("read", "write"):
                out.append(("R" if w[1] == "read" else "W", int(w[3]), int(w[2])))
    return head, out


def flat(streams):
    return [io for tid in sorted(streams) for io in streams[tid]]


def total_ios(doc):
    return sum(j[d]["total_ios"] for j in doc["jobs"] for d in ("read", "write", "trim"))


def blocks(ios, unit=4 * KIB):
    """Counts per unit-sized block over the ios' byte ranges."""
    count = {}
    for _, ln, off in ios:
        for b in range(off // unit, (off + ln + unit - 1) // unit):
            count[b] = count.get(b, 0) + 1
    return count


def region_bytes(job):
    m = re.search(r"^size=(\d+)([km])$", job, re.M)
    return int(m.group(1)) * (KIB if m.group(2) == "k" else MIB)
