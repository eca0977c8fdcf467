"""The conformance cases of the end of a region (issue 41): how a pass ends
when the block size does not divide the region, with bsrange and bssplit,
for reads, writes, trims and trimwrite, sequential and random.  Each was
measured on fio 3.33 under strace first (docs/conformance.md, "The end of
a region").  Merged into cases.CASES."""

KIB = 1024
MIB = 1024 * KIB

# The cases' loop device is 64 MiB (conformance.sh).
DEVICE_BYTES = 64 * MIB

REGION_CASES = [
    {
        "name": "region-bs-past-end",
        "why": "bs=24k over size=100k: fio sizes a fixed bs to nothing (get_next_buflen "
               "returns it as it is); the pass goes on while its position is inside the "
               "region, so the fifth write runs from 96k to 120k, past the region's end "
               "(fio 3.33: 5 writes, 120 KiB)",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=24k\nsize=100k\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "region-bs-device-end",
        "why": "the same near the device's end (offset=64m-112k, on a 24k boundary): the "
               "fifth write would pass the device's end, so the pass ends there (fio: "
               "'exceeds file size', the file done): 4 writes, exit 0",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=24k\noffset=%d\nsize=100k\n"
               % (DEVICE_BYTES - 112 * KIB),
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "region-bs-trim",
        "why": "rw=trim with bs=24k over size=100k under libaio: 5 discards, the last "
               "past the region's end, as the writes",
        "job": "ioengine=libaio\niodepth=4\nrw=trim\nbs=24k\nsize=100k\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "region-bs-random-map",
        "why": "rw=randread bs=24k over size=100k: the random map's 4 blocks, then the "
               "pass is over with 4k left, less than a block, so the job ends (fio's "
               "keep_running): 4 reads, 96 KiB (fio 3.33; 5 with norandommap, size= of "
               "bytes)",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=24k\nsize=100k\n",
        "checks": [("count", 0.0), ("overlap", 0), ("coverage", 0.96), ("counted", None)],
    },
    {
        "name": "region-io-size-passes",
        "why": "io_size=300k over bs=24k size=100k: passes of 5 reads (the last past the "
               "region's end), each from the region's start, the third cut by io_size "
               "(fio 3.33: 13 reads)",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbs=24k\nsize=100k\nio_size=300k\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "region-io-size-short",
        "why": "io_size=300k over bs=64k size=256k: after the pass 44k are left, less than "
               "a block, and fio's keep_running ends the job: 4 reads, not 5",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbs=64k\nsize=256k\nio_size=300k\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "region-time-based-wrap",
        "why": "time-based, bs=24k over size=100k: each pass ends with the read from 96k to "
               "120k, then starts over at the region's start (fio's get_next_seq_offset)",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbs=24k\nsize=100k\ntime_based=1\n"
               "runtime=1\n",
        "checks": [("wrap_after", 120 * KIB), ("seqdir", None)],
    },
    {
        "name": "region-bsrange-write",
        "why": "bsrange=4k-64k over size=1m: near the end fio draws the size again until it "
               "fits (get_next_buflen, io_u_fits): the region written exactly once, to its "
               "last byte (fio 3.33: 35 writes, the last three 4k; iofleet wrapped to 0 and "
               "never wrote the last 20 KiB)",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbsrange=4k-64k\nsize=1m\n",
        "checks": [("tiles", "W"), ("counted", None), ("json", ["io_bytes"])],
    },
    {
        "name": "region-bsrange-read",
        "why": "the same, reads under libaio at depth 4 (fio 3.33: 31 reads, the last 4k)",
        "job": "ioengine=libaio\niodepth=4\ndirect=1\nrw=read\nbsrange=4k-64k\nsize=1m\n",
        "checks": [("tiles", "R"), ("counted", None), ("json", ["io_bytes"])],
    },
    {
        "name": "region-bssplit-write",
        "why": "bssplit=512/50:1M/50 over size=8m: a draw that falls on 1M where it no "
               "longer fits is drawn again, so past 7 MiB only 512s (fio 3.33: 7 of 1M and "
               "2,048 of 512, every byte once; iofleet touched 87.5% and wrote the first "
               "MiB twice)",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbssplit=512/50:1M/50\nsize=8m\n",
        "checks": [("tiles", "W"), ("counted", None), ("json", ["io_bytes"])],
    },
    {
        "name": "region-bsrange-trim",
        "why": "rw=trim bsrange=4k-64k over size=1m: the discards fitted to the end as the "
               "writes (fio 3.33: 27, the last two 4k and 20k)",
        "job": "ioengine=psync\nrw=trim\nbsrange=4k-64k\nsize=1m\n",
        "checks": [("tiles", "T"), ("counted", None), ("json", ["io_bytes"])],
    },
    {
        "name": "region-trimwrite-bsrange",
        "why": "rw=trimwrite bsrange=512-4k over size=1m: each write repeats the trim before "
               "it (fio draws its size from a stream seeded as the trims'), and both cover "
               "the region once (fio 3.33: 448 discards and 448 writes; iofleet issued 3 "
               "discards and 896 writes, 2 MiB into the 1 MiB region)",
        "job": "ioengine=psync\nrw=trimwrite\nbsrange=512-4k\nsize=1m\n",
        "checks": [("trim_pairs", None), ("tiles", "TW"), ("counted", None),
                   ("json", ["io_bytes"])],
    },
    {
        "name": "region-trimwrite-bssplit-libaio",
        "why": "the same with bssplit=4k/30:16k/70 under libaio at depth 4 (fio 3.33: 85 "
               "pairs, the last ones 4k)",
        "job": "ioengine=libaio\niodepth=4\nrw=trimwrite\nbssplit=4k/30:16k/70\nsize=1m\n",
        "checks": [("trim_pairs", None), ("tiles", "TW"), ("counted", None),
                   ("json", ["io_bytes"])],
    },
    {
        "name": "region-bsrange-norandommap",
        "why": "norandommap with bsrange=4k-64k over size=256k: fio draws the block first, "
               "over every block the smallest size fits, then a size that fits before the "
               "end: a quarter of the I/Os start in the last 64k, all end inside the region "
               "(fio 3.33: 0.25; drawing the size first, iofleet started big I/Os only where "
               "they fit, 0.137); the share within 0.05",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nnorandommap\nbsrange=4k-64k\n"
               "size=256k\nio_size=64m\n",
        "checks": [("tail_starts", (64 * KIB, 0.05)), ("count", 0.05)],
    },
    {
        "name": "region-bsrange-random-map",
        "why": "randread bsrange=4k-64k over size=1m with the random map: a size fitted to "
               "the region's end, then trimmed to the free run: every byte once",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbsrange=4k-64k\nsize=1m\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("counted", None)],
    },
    {
        "name": "region-bssplit-cut",
        "why": "bssplit=4k/50:10k/50: fio cuts a split's size down to a multiple of the "
               "smallest as a bsrange's (get_next_buflen), so it reads 4k and 8k, never 10k "
               "(fio 3.33: 98 of 4k, 79 of 8k over 1 MiB; iofleet read 10k), and the pass "
               "ends exactly at the region's end; shares within 0.15 (a random figure: 0.55 and 0.45 in fio's run)",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbssplit=4k/50:10k/50\nsize=1m\n",
        "checks": [("bs_shares", 0.15), ("tiles", "R"), ("counted", None)],
    },
]
