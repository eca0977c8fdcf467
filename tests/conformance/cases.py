"""The conformance cases: each a fio job file, its checks and why (see
conformance.py)."""



KIB = 1024
MIB = 1024 * KIB

# Every case: name, job file body, checks, known.  The job runs on the loop
# device (filename= is added), or, for a case with "files" (name -> size),
# without filename= in a directory of its own per tool that holds those
# files already made (so neither tool's layout writes are in the trace), the
# I/O then read per file by its name.  Checks are (kind, argument); the
# kinds are in check() below.  A case of an iofleet extension gives fio
# "fio_file", the plain fio job file it stands for; one that only a
# controller runs ([iofleet] rounds=) is "fleet_only": iofleet's side is
# the plan on a fleet of one.  A whole-file case judged by coverage names
# its "region" (bytes) and may judge one direction ("dir": R, W or T).
CASES = [
    {
        "name": "seq-read-libaio-qd4",
        "fleet": True,
        "why": "size-bound sequential reads: the per-I/O stream is deterministic",
        "job": "ioengine=libaio\ndirect=1\nrw=read\nbs=4k\nsize=1m\niodepth=4\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "seq-write-psync-64k",
        "why": "size-bound sequential writes through pwrite64",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=64k\nsize=2m\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "seq-read-offset-size",
        "why": "offset= and size= bound the region exactly",
        "job": "ioengine=libaio\ndirect=1\nrw=read\nbs=8k\noffset=1m\nsize=512k\niodepth=2\n",
        "checks": [("exact", None)],
    },
    {
        "name": "randread-map-4k",
        "fleet": True,
        "why": "the random map: a size-bound random job touches every block once "
               "(order differs: the generators differ, documented)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=2m\niodepth=4\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("count", 0.0)],
    },
    {
        "name": "rate-iops-per-direction",
        "why": "rate_iops=R,W on randrw: fio's per-direction quota and direction "
               "switch; counts within 5% (two stalls' worth on a loaded machine)",
        "job": "ioengine=libaio\ndirect=1\nrw=randrw\nbs=4k\niodepth=4\n"
               "rate_iops=150,50\ntime_based=1\nruntime=2\n",
        "checks": [("count_dir", 0.05)],
    },
    {
        "name": "rate-bytes-per-direction",
        "why": "rate=800k,200k on randrw with bs=4k,8k: fio's byte quota per direction "
               "(200 reads and 25 writes a second); counts within 5%",
        "job": "ioengine=libaio\ndirect=1\nrw=randrw\nbs=4k,8k\niodepth=4\n"
               "rate=800k,200k\ntime_based=1\nruntime=2\n",
        "checks": [("count_dir", 0.05)],
    },
    {
        "name": "rate-iops-quiesce",
        "why": "under rate_iops at iodepth 8 fio quiesces before each wait: never "
               "more than one I/O in flight at a low rate (seen as submit batches "
               "of one with no queue build-up: clat is the device's)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=8\n"
               "rate_iops=200\ntime_based=1\nruntime=2\n",
        "checks": [("count_dir", 0.05), ("clat_ratio", 3.0)],
    },
    {
        "name": "time-based-counted",
        "why": "a time-based run counts every I/O it issued, including those that "
               "complete after the runtime (fio drains and counts them)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\n"
               "time_based=1\nruntime=2\n",
        "checks": [("counted", None)],
    },
    {
        "name": "rw-per-direction-position",
        "why": "rw=rw keeps one sequential position per direction",
        "job": "ioengine=libaio\ndirect=1\nrw=rw\nbs=4k\nsize=1m\niodepth=1\n",
        "checks": [("seqdir", None)],
    },
    {
        "name": "align-per-direction",
        "why": "bs=4k,16k: fio aligns each direction to its own block size",
        "job": "ioengine=libaio\ndirect=1\nrw=randrw\nbs=4k,16k\nsize=8m\niodepth=4\n",
        "checks": [("align_write", 16 * KIB)],
    },
    {
        "name": "bssplit-random-map",
        "fleet": True,
        "why": "bssplit over the random map: fio marks every block an I/O covers and "
               "trims an I/O to the free run it lands in: every byte once",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbssplit=4k/50:64k/50\nsize=16m\n"
               "iodepth=4\n",
        "checks": [("coverage", 1.0), ("overlap", 0)],
    },
    {
        "name": "bssplit-random-map-count",
        "why": "the I/Os a pass takes is a random figure (one seed each: fio 876, iofleet "
               "728; over seeds 1..10 fio 758..897, iofleet 762..894): the means over 8 "
               "seeds within 10% (about 4 standard errors of their difference)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbssplit=4k/50:64k/50\nsize=16m\n"
               "iodepth=4\n",
        "seeds": 8,
        "checks": [("count_mean", 0.10)],
    },
    {
        "name": "numjobs-own-files",
        "why": "numjobs without filename=: fio gives each job copy a file of its own, "
               "NAME.N.0, holding size= each; per file the same stream, from one thread",
        "job": "ioengine=libaio\ndirect=1\nrw=write\nbs=64k\nsize=1m\niodepth=2\nnumjobs=3\n",
        "files": {"numjobs-own-files.%d.0" % n: MIB for n in range(3)},
        "checks": [("per_file", None), ("counted", None)],
    },
    {
        "name": "loops-seq",
        "why": "loops=3: the size-bound pass three times over, each from the region's start",
        "job": "ioengine=libaio\ndirect=1\nrw=read\nbs=64k\nsize=256k\niodepth=2\nloops=3\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "loops-random",
        "why": "loops=2 of a random pass: every block twice, and the second loop repeats "
               "the first one's offsets (fio starts each loop with the same seed)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=1m\niodepth=4\nloops=2\n",
        "checks": [("hits", 2), ("repeat", 2), ("count", 0.0)],
    },
    {
        "name": "io-size-wraps",
        "why": "io_size=640k over a 256k region: ten 64k reads, wrapping to the region's start",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbs=64k\nsize=256k\nio_size=640k\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "number-ios",
        "why": "number_ios=10 ends a size-bound job after 10 I/Os",
        "job": "ioengine=libaio\ndirect=1\nrw=write\nbs=4k\nsize=1m\niodepth=4\nnumber_ios=10\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "offset-increment",
        "why": "offset_increment=1m with numjobs=2: the second job's region starts 1 MiB "
               "after the first's (offset=64k + 1m)",
        "job": "ioengine=libaio\ndirect=1\nrw=read\nbs=64k\nsize=256k\noffset=64k\n"
               "offset_increment=1m\nnumjobs=2\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "no-io-options",
        "why": "description=, thread, log_avg_msec=0 (fio's default) and gtod_reduce change "
               "no I/O",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbs=64k\nsize=256k\n"
               "description=a job as people write them\nthread\nlog_avg_msec=0\ngtod_reduce=1\n",
        "checks": [("exact", None)],
    },
    {
        "name": "verify-seq",
        "fleet": True,
        "why": "verify=crc32c on a sequential write: the pass, then every write read back "
               "in the order written; the read-backs count as reads",
        "job": "ioengine=libaio\ndirect=1\nrw=write\nbs=4k\nsize=256k\niodepth=4\n"
               "verify=crc32c\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "verify-random",
        "why": "verify=md5 on random writes: after the pass, each write is read back in the "
               "order written",
        "job": "ioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nsize=256k\niodepth=4\n"
               "verify=md5\n",
        "checks": [("read_back", 0), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "verify-backlog",
        "why": "verify_backlog=8 at QD1: every 8 writes, those 8 read back in the order written",
        "job": "ioengine=psync\ndirect=1\nrw=randwrite\nbs=4k\nsize=256k\n"
               "verify=crc32c\nverify_backlog=8\n",
        "checks": [("read_back", 8), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "verify-backlog-timed",
        "why": "verify_backlog in a time-based write job: the read-backs are counted as "
               "reads, but fio times reads only over a read-back phase, which a time-based "
               "job has not: read runtime, bw and iops 0",
        "job": "ioengine=psync\ndirect=1\nrw=randwrite\nbs=4k\nsize=16m\ntime_based=1\n"
               "runtime=1\nverify=crc32c\nverify_backlog=8\n",
        "checks": [("counted", None), ("json_zero", ["bw", "iops", "runtime"])],
    },
    {
        "name": "verify-mixed",
        "why": "verify=crc32c on randrw: the mixed pass, then its writes (only) read back "
               "in the order written",
        "job": "ioengine=psync\ndirect=1\nrw=randrw\nbs=4k\nsize=256k\nverify=crc32c\n",
        "checks": [("read_back", 0), ("count", 0.1)],
    },
    {
        "name": "nrfiles-round-robin",
        "why": "nrfiles=2 without filename=: files NAME.0.0 and NAME.0.1 holding size= "
               "between them, the I/Os going to each in turn (fio's roundrobin)",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=4k\nsize=32k\nnrfiles=2\n",
        "files": {"nrfiles-round-robin.0.%d" % n: 16 * KIB for n in range(2)},
        "checks": [("exact_files", None), ("counted", None)],
    },
    {
        "name": "filesize-caps",
        "why": "filesize=16k: each file 16k, and size=64k only caps the I/O: 8 writes "
               "(fio 3.33), in directory= sub",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=4k\nsize=64k\nnr_files=2\n"
               "filesize=16k\ndirectory=sub\n",
        "files": {"sub/filesize-caps.0.%d" % n: 16 * KIB for n in range(2)},
        "checks": [("exact_files", None), ("counted", None)],
    },
    {
        "name": "write-iolog-seq",
        "why": "write_iolog: fio's version 3 iolog; on a sequential job both tools log "
               "the same I/Os (file, direction, offset, length), each what it issued",
        "job": "ioengine=libaio\ndirect=1\nrw=write\nbs=16k\nsize=512k\niodepth=4\n"
               "write_iolog=io.log\n",
        "checks": [("iolog", "same")],
    },
    {
        "name": "write-iolog-replay",
        "why": "write_iolog on random mixed I/O: iofleet's log is what it issued, and fio's "
               "read_iolog replays it as the same stream",
        "job": "ioengine=libaio\ndirect=1\nrw=randrw\nbs=4k\nsize=1m\niodepth=4\n"
               "write_iolog=io.log\n",
        "checks": [("iolog", "replay")],
    },
    {
        "name": "rw-skip-write",
        "why": "rw=write:8k: each write 8k after the last one's end; the size-bound pass "
               "ends where the next would pass the region (fio: 6 of 4k over 64k)",
        "job": "ioengine=libaio\ndirect=1\nrw=write:8k\nbs=4k\nsize=256k\niodepth=2\n",
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "rw-skip-read",
        "why": "rw=read:16k with bs=16k: every other 16k block read",
        "job": "ioengine=psync\ndirect=1\nrw=read:16k\nbs=16k\nsize=1m\n",
        "checks": [("exact", None), ("seqskip", 32 * KIB)],
    },
    {
        "name": "exitall",
        "why": "exitall (fio's flag is the run's, here given on the job that would end "
               "last): when a's 1 s ends, b stops too (fio 3.33: ~101 of b's 300 I/Os); "
               "c, after a stonewall, still runs",
        "file": "[global]\nioengine=psync\ndirect=1\nfilename=@DEV@\nrw=read\nbs=4k\n"
                "size=8m\nrate_iops=100\ntime_based\n[a]\nruntime=1\n[b]\nruntime=3\n"
                "exitall\n[c]\nstonewall\nruntime=1\n",
        "checks": [("entries_within", 0.05)],
    },
    {
        "name": "exit-what-all",
        "why": "exit_what=all with exitall: when a ends, b stops and c, after a stonewall, "
               "never runs (fio 3.33: a 100, b 101, c 0 I/Os; group and stonewall run c)",
        "file": "[global]\nioengine=psync\ndirect=1\nfilename=@DEV@\nrw=read\nbs=4k\n"
                "size=8m\nrate_iops=100\ntime_based\nexitall\nexit_what=all\n[a]\nruntime=1\n"
                "[b]\nruntime=3\n[c]\nstonewall\nruntime=1\n",
        "checks": [("entries_within", 0.05)],
    },
    {
        "name": "lfsr-no-repeats",
        "why": "random_generator=lfsr visits every block once a pass even with norandommap "
               "(fio 3.33: 64 of 64 blocks, tausworthe 40 of 64)",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=1m\niodepth=4\n"
               "norandommap\nrandom_generator=lfsr\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("count", 0.0)],
    },
    {
        "name": "engine-sync-seq",
        "why": "ioengine=sync: write() at the file position, no lseek while it is already "
               "there (fio 3.33: 0 lseeks for a sequential job)",
        "job": "ioengine=sync\ndirect=1\nrw=write\nbs=4k\nsize=256k\n",
        "checks": [("exact", None), ("calls", {"write": 0.0, "lseek": 0.0}), ("counted", None)],
    },
    {
        "name": "engine-sync-rand",
        "why": "ioengine=sync on random reads: an lseek before each read() unless the last "
               "one ended where it starts (fio 3.33: 251 lseeks for 256 reads); the order is "
               "random, so the lseek count within 3%",
        "job": "ioengine=sync\ndirect=1\nrw=randread\nbs=4k\nsize=1m\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("calls", {"read": 0.0, "lseek": 0.03})],
    },
    {
        "name": "engine-vsync-batch",
        "fleet": True,
        "why": "ioengine=vsync joins the following I/Os of one submit batch in one writev, "
               "with an lseek before every call (fio 3.33 with iodepth_batch=8: 32 writev of "
               "8 iovecs for 256 writes)",
        "job": "ioengine=vsync\ndirect=1\nrw=write\nbs=4k\nsize=1m\niodepth=8\n"
               "iodepth_batch=8\n",
        "checks": [("exact", None), ("calls", {"writev": 0.0, "lseek": 0.0}), ("counted", None)],
    },
    {
        "name": "engine-vsync-qd1",
        "why": "ioengine=vsync with iodepth_batch=1 joins nothing: one readv per read",
        "job": "ioengine=vsync\ndirect=1\nrw=read\nbs=8k\nsize=256k\niodepth=4\n",
        "checks": [("exact", None), ("calls", {"readv": 0.0, "lseek": 0.0})],
    },
    {
        "name": "engine-pvsync",
        "why": "ioengine=pvsync: one preadv/pwritev of one iovec per I/O, at its offset",
        "job": "ioengine=pvsync\ndirect=1\nrw=read\nbs=8k\nsize=512k\niodepth=4\n",
        "checks": [("exact", None), ("calls", {"preadv": 0.0}), ("counted", None)],
    },
    {
        "name": "engine-pvsync2",
        "why": "ioengine=pvsync2: preadv2/pwritev2 with no flags (fio's hipri and nowait "
               "are not taken)",
        "job": "ioengine=pvsync2\ndirect=1\nrw=write\nbs=16k\nsize=512k\n",
        "checks": [("exact", None), ("calls", {"pwritev2": 0.0}), ("counted", None)],
    },
    {
        "name": "blockalign-below-bs",
        "why": "blockalign=4k with bs=8k: random offsets on 4k boundaries, about half of them "
               "off the 8k ones (fio 3.33: 65 and 63 of 128), random map off (fio turns it off "
               "for blockalign), the job size-bound at 128 I/Os",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=8k\nblockalign=4k\nsize=1m\n"
               "number_ios=200\n",
        "checks": [("offset_mod", (4096, 8192, 0.15)), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "blockalign-above-bs",
        "why": "ba=16k,16k with bs=4k: every random write on a 16k boundary",
        "job": "ioengine=libaio\niodepth=4\ndirect=1\nrw=randwrite\nbs=4k\nba=16k,16k\n"
               "size=1m\n",
        "checks": [("offset_mod", (16384, 16384, 0.0)), ("count", 0.0)],
    },
    {
        "name": "rate-poisson",
        "fleet": True,
        "why": "rate_process=poisson: exponential gaps with the rate's mean (fio's "
               "usec_for_io), so the median gap is well under the mean (exponential: 0.69 "
               "of it; linear pacing: about 1.0) and I/Os over 2 s within 6% of the rate's "
               "(a Poisson count: 2000 +- 45)",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nrate_iops=1000\n"
               "rate_process=poisson\ntime_based\nruntime=2\n",
        "checks": [("gaps", (0.45, 0.85)), ("count", 0.06)],
    },
    {
        "name": "rate-linear-gaps",
        "why": "the linear pacing beside it: median gap close to the mean (within 0.85..1.15)",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nrate_iops=1000\n"
               "time_based\nruntime=2\n",
        "checks": [("gaps", (0.85, 1.15)), ("count", 0.06)],
    },
    {
        "name": "trim-seq",
        "fleet": True,
        "why": "rw=trim: sequential BLKDISCARDs of bs, done inline even under libaio (fio "
               "3.33: ioctl, never io_submit), size= of them",
        "job": "ioengine=libaio\niodepth=4\ndirect=1\nrw=trim\nbs=16k\nsize=512k\n",
        "checks": [("exact", None), ("calls", {"BLKDISCARD": 0.0}), ("counted", None),
                   ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "randtrim-map",
        "why": "rw=randtrim draws offsets as randread does, over the random map: every block "
               "trimmed once",
        "job": "ioengine=psync\ndirect=1\nrw=randtrim\nbs=4k\nsize=1m\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "trimwrite",
        "fleet": True,
        "why": "rw=trimwrite: a trim, then a write of the same blocks, each direction with "
               "its own position (fio 3.33: T0 W0 T8k W8k ...), and size= of each",
        "job": "ioengine=libaio\niodepth=4\ndirect=1\nrw=trimwrite\nbs=8k\nsize=256k\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "randtrimwrite",
        "why": "rw=randtrimwrite: a random trim, then a write of exactly its range",
        "job": "ioengine=psync\ndirect=1\nrw=randtrimwrite\nbs=4k\nsize=512k\n",
        "checks": [("trim_then_write", None), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "replay-v3",
        "why": "read_iolog of a version 3 log: the logged I/Os, in order, each waiting the "
               "logged gap (us) after the one before (fio's iolog_delay: 10, 100, 200 and "
               "0.5 ms here)",
        "file": "[r]\nioengine=psync\ndirect=1\nread_iolog=r.log\n",
        "logs": {"r.log": 'fio version 3 iolog\n0 @DEV@ add\n0 @DEV@ open\n50000 @DEV@ read 0 4096\n60000 @DEV@ write 4096 4096\n160000 @DEV@ read 8192 8192\n360000 @DEV@ write 12288 4096\n360500 @DEV@ read 16384 4096\n400000 @DEV@ close\n'},
        "checks": [("exact", None), ("span", (0.31, 0.05)), ("counted", None)],
    },
    {
        "name": "replay-v2-wait",
        "why": "a version 2 log: no gaps, but 'wait 300' holds the next I/O until 300 ms "
               "after the start (fio's code; its HOWTO says otherwise): iofleet's job start, "
               "fio's own (genesis), ~100 ms of its setup before its first I/O, so fio's "
               "span is shorter by that (a difference in docs/conformance.md)",
        "file": "[r]\nioengine=libaio\niodepth=2\ndirect=1\nread_iolog=r.log\n",
        "logs": {"r.log": 'fio version 2 iolog\n@DEV@ add\n@DEV@ open\n@DEV@ read 0 4096\n@DEV@ write 65536 4096\n@DEV@ wait 300 0\n@DEV@ read 131072 16384\n@DEV@ write 8192 512\n@DEV@ close\n'},
        "checks": [("exact", None), ("span", (0.29, 0.05, 0.1, 0.3)), ("counted", None)],
    },
    {
        "name": "replay-redirect-scale",
        "fleet": True,
        "why": "replay_redirect sends a log recorded on another machine's file to the target; "
               "replay_scale=2 halves its offsets and replay_align=8k aligns them down",
        "file": "[r]\nioengine=psync\ndirect=1\nread_iolog=r.log\nreplay_redirect=@DEV@\n"
                "replay_scale=2\nreplay_align=8k\n",
        "logs": {"r.log": 'fio version 3 iolog\n0 /recorded/elsewhere/sdq add\n0 /recorded/elsewhere/sdq open\n10 /recorded/elsewhere/sdq write 1048576 65536\n20 /recorded/elsewhere/sdq read 4096 4096\n30 /recorded/elsewhere/sdq read 2101248 8192\n40 /recorded/elsewhere/sdq close\n'},
        "checks": [("exact", None), ("counted", None)],
    },
    {
        "name": "replay-time-scale",
        "why": "replay_time_scale=200 replays twice as fast: the 350 ms of the version 3 "
               "log's gaps in 175 ms",
        "file": "[r]\nioengine=psync\ndirect=1\nread_iolog=r.log\nreplay_time_scale=200\n",
        "logs": {"r.log": 'fio version 3 iolog\n0 @DEV@ add\n0 @DEV@ open\n50000 @DEV@ read 0 4096\n60000 @DEV@ write 4096 4096\n160000 @DEV@ read 8192 8192\n360000 @DEV@ write 12288 4096\n360500 @DEV@ read 16384 4096\n400000 @DEV@ close\n'},
        "checks": [("exact", None), ("span", (0.155, 0.04))],
    },
    {
        "name": "latency-target",
        "why": "latency_target on a drive throttled to 4000 read IOPS (latency grows 250 us a "
               "queued I/O): fio's search (double, then halve the way) settles near depth 3 "
               "to 4 for 2.2 ms at p99; the depth within 1 of fio's (and within 1..8: a job "
               "that did not search stays at 64) and, when both settled (measured at most "
               "2.5 s), the IOPS measured there within 10% (1 s windows: fio 3,980 to 4,030, "
               "iofleet 3,996 to 4,011 over five runs; with 200 ms windows blk-throttle's "
               "bursts moved one window's IOPS by up to 25%, fio 4,975 once, and the depths "
               "found by 2).  Run without strace (untraced): under it iofleet's search "
               "wandered more, as strace's cost per system call moves the timing it judges",
        "job": "ioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=64\n"
               "latency_target=2200us\nlatency_window=1s\nlatency_percentile=99\n"
               "time_based\nruntime=15\n",
        "throttle_riops": 4000,
        "untraced": True,
        "checks": [("job_fields", {"latency_depth": 1, "latency_target": 0,
                                   "latency_window": 0}),
                   ("depth_within", (1, 8)), ("settled_iops", (0.10, 2500))],
    },
    {
        "name": "lat-log-offset",
        "why": "write_lat_log, write_bw_log and write_iops_log with log_offset=1: each line "
               "'time, value, ddir, bs, offset, prio' (fio 3.33's per-I/O logs); the columns "
               "but time and value equal, line by line, in all five logs",
        "job": "ioengine=psync\ndirect=1\nrw=write\nbs=8k\nsize=128k\nwrite_lat_log=lat\n"
               "log_offset=1\nwrite_bw_log=lat\nwrite_iops_log=lat\n",
        "checks": [("lat_logs", ["clat", "slat", "lat", "bw", "iops"])],
    },
    {
        "name": "randread-seq-nr",
        "fleet": True,
        "why": "rw=randread:4 (fio's ddir_seq_nr): a random offset, then 3 I/Os each where "
               "the last ended, and again (fio 3.33: 3 4 5 6 47 48 49 50 ... in 4k blocks); "
               "the random ones from the random map (no block drawn twice); size= of I/O",
        "job": "ioengine=psync\ndirect=1\nrw=randread:4\nbs=4k\nsize=256k\n",
        "checks": [("seq_runs", 4), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "psync-clat",
        "why": "a synchronous engine's clat spans its system call and it has no slat (fio "
               "3.33: slat N 0, clat the pread); iofleet's psync clat was the ~60 ns after the "
               "call, its slat the call, until this case (0.0001x); mean within 0.25x..4x of "
               "fio's, as this disk's latency moved 2.3x between the two tools' runs once "
               "(fio 665 us, iofleet 1,561 us; usually both near 60 us)",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=8m\n",
        "checks": [("clat_ratio", (0.25, 4.0)), ("count", 0.0)],
    },
    {
        "name": "buffered-invalidate",
        "why": "invalidate=1 (fio's default): a job's buffered reads of what the job before "
               "it just wrote go to the device, not the page cache (fio: fadvise DONTNEED on a "
               "file, BLKFLSBUF on a device, when it opens it); clat within 0.1x..10x of fio's: "
               "from the cache it is about 1.6 us (invalidate=0: 0.05x), while DONTNEED leaves "
               "pages still being written back, so how many reads the cache serves varies "
               "(fio 34 us, iofleet 108 us in one run); on a file, since closing a block "
               "device drops its cache anyway",
        "file": "[global]\nioengine=psync\nfilename=data\nbs=4k\nsize=4m\n"
                "[w]\nrw=write\n[r]\nstonewall\nrw=randread\n",
        "files": {"data": 4 * MIB},
        "checks": [("clat_ratio", (0.1, 10.0, 1))],
    },
    {
        "name": "percentage-random",
        "fleet": True,
        "why": "percentage_random=30 (fio's should_do_random): 30% of the I/Os at a random "
               "map block, the rest where the last ended (without marking the map); time "
               "based, as a size-bound job ends when an I/O going on from the last would "
               "start past the region (fio's get_next_offset fails: 99 I/Os of 1,024 once), "
               "which comes at a random moment; the share that go on from the last within "
               "0.08 of fio's",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=4m\npercentage_random=30\n"
               "time_based\nruntime=1\n",
        "checks": [("seq_share", 0.08)],
    },
    {
        "name": "percentage-random-end",
        "why": "percentage_random=30, size-bound: the job ends when an I/O going on from the "
               "last would start past the region (fio's get_next_offset fails and its job is "
               "done), which depends on where the random ones land: over randseed=1..8, fio "
               "3.33 issued 32 32 18 14 21 32 32 31 of 32 I/Os; some runs of each tool end "
               "early and the means are within 35%",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=128k\npercentage_random=30\n",
        "seeds": 8,
        "checks": [("ends_early", 0.35)],
    },
    {
        "name": "percentage-random-0",
        "why": "percentage_random=0: every I/O goes on from the last, from the region's "
               "start (fio's last_pos starts at the file's offset)",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\noffset=64k\nsize=256k\n"
               "percentage_random=0\n",
        "checks": [("exact", None)],
    },
    {
        "name": "engine-posixaio",
        "why": "ioengine=posixaio: aio_read handed to the C library, which issues a pread64 "
               "from a thread of its own (as under fio 3.33); at QD1 the stream is exact",
        "job": "ioengine=posixaio\ndirect=1\nrw=read\nbs=8k\nsize=256k\n",
        "checks": [("exact", None), ("calls", {"pread64": 0.0}), ("counted", None)],
    },
    {
        "name": "engine-posixaio-qd8",
        "why": "posixaio at QD8: the random map's coverage, every block once",
        "job": "ioengine=posixaio\ndirect=1\nrw=randwrite\nbs=4k\nsize=1m\niodepth=8\n",
        "checks": [("coverage", 1.0), ("overlap", 0), ("count", 0.0), ("counted", None)],
    },
    {
        "name": "bsrange-odd-max",
        "why": "bsrange=4k-10k (fio's get_next_buflen: min + max x u, cut to a multiple of "
               "min, at most max): 4k and 8k 40% each, 10k itself 20% (fio 3.33 measured "
               "first); each size's share within 0.06 of fio's",
        "job": "ioengine=psync\ndirect=1\nrw=read\nbsrange=4k-10k\nsize=8m\n",
        "checks": [("bs_shares", 0.06), ("seqdir", None)],
    },
    {
        "name": "bsrange-unaligned",
        "why": "blocksize_unaligned with bsrange=1k-9k (buffered: O_DIRECT takes no odd "
               "sizes): sizes to the byte, min + max x u up to 9k, so 9k itself about 1 in 9 "
               "(fio 3.33: 0.124 of the sizes on a KiB); the mean size within 5% of fio's and "
               "the share on a KiB within 0.05 of it; each read right after the last",
        "job": "ioengine=psync\nrw=read\nbsrange=1k-9k\nblocksize_unaligned\nsize=8m\n",
        "checks": [("bs_mean", 0.05), ("seqdir", None)],
    },
    {
        "name": "rate-min",
        "why": "rate_min=8m on a drive throttled to 1000 read IOPS (4 MB/s of 4k): fio's "
               "check_min_rate (after 2 s, each 1 s window) fails the job with EIO at 3 s "
               "(fio 3.33: error 5, 3007 I/Os, 'rate_min=8388608B/s not met, got "
               "4104192B/s'); the error equal, the I/Os within 10%",
        "job": "ioengine=libaio\ndirect=1\niodepth=4\nrw=randread\nbs=4k\nrate_min=8m\n"
               "time_based\nruntime=6\n",
        "throttle_riops": 1000,
        "fails": True,
        "timed": True,
        "checks": [("job_fields", {"error": 0}), ("count", 0.1)],
    },
    {
        "name": "dist-zipf",
        "why": "zipf:1.2 without the random map (fio turns it off): the share of the I/Os "
               "in the hottest 10% of blocks, a random figure, within 0.03",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=32m\nio_size=64m\n"
               "random_distribution=zipf:1.2\n",
        "checks": [("hotness", (0.03, False)), ("count", 0.0)],
    },
    {
        "name": "dist-pareto",
        "why": "pareto:0.9 (lib/zipf.c's pareto, ranks hashed over the region): hottest 10% "
               "of blocks within 0.03",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=32m\nio_size=64m\n"
               "random_distribution=pareto:0.9\n",
        "checks": [("hotness", (0.03, False)), ("count", 0.0)],
    },
    {
        "name": "dist-normal",
        "why": "normal:10 (lib/gauss.c: the mean of 12 draws plus the deviation, hashed): "
               "hottest 10% of blocks within 0.03",
        "job": "ioengine=psync\ndirect=1\nrw=randread\nbs=4k\nsize=32m\nio_size=64m\n"
               "random_distribution=normal:10\n",
        "checks": [("hotness", (0.03, False)), ("count", 0.0)],
    },
    {
        "name": "dist-zoned",
        "fleet": True,
        "why": "zoned:60/10:30/20:10/70 is not scattered: the share per tenth of the region "
               "and of the hottest 10% of blocks within 0.03",
        "job": "ioengine=psync\ndirect=1\nrw=randwrite\nbs=4k\nsize=32m\nio_size=64m\n"
               "random_distribution=zoned:60/10:30/20:10/70\n",
        "checks": [("hotness", (0.03, True)), ("count", 0.0)],
    },
    {
        "name": "dist-zoned-abs",
        "why": "zoned_abs:60/4m:40/8m: zones of bytes from the region's start, per tenth "
               "within 0.03 (randseed=7: with libaio's default seed fio's own draws in the "
               "second zone hit 1617 of its 2048 blocks where uniform draws hit ~1966, and "
               "psync's or another seed's do; a property of that one random stream)",
        "job": "ioengine=libaio\niodepth=4\ndirect=1\nrw=randread\nbs=4k\nsize=32m\n"
               "io_size=64m\nrandom_distribution=zoned_abs:60/4m:40/8m\nrandseed=7\n",
        "checks": [("hotness", (0.03, True)), ("count", 0.0)],
    },
    {
        "name": "precondition",
        "why": "[iofleet] precondition=2 (an iofleet extension): its step issues what fio "
               "issues for the options it stands for (rw=write bs=128k iodepth=32 loops=2 "
               "refill_buffers=1 over the job's region, here size=1m), then the plan's job",
        "file": "[iofleet]\nprecondition=2\n[global]\nioengine=libaio\ndirect=1\n"
                "filename=@DEV@\n[reads]\nrw=read\nbs=4k\nsize=1m\niodepth=4\n",
        "fio_file": "[global]\nioengine=libaio\ndirect=1\nfilename=@DEV@\n"
                    "[precondition]\nrw=write\nbs=128k\niodepth=32\nloops=2\n"
                    "refill_buffers=1\nsize=1m\n[reads]\nstonewall\nrw=read\nbs=4k\n"
                    "size=1m\niodepth=4\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "purge",
        "why": "[iofleet] purge=discard (an iofleet extension): its step issues what fio "
               "issues for the job it stands for (rw=randtrim bsrange=4k-64m iodepth=1 over "
               "the job's region, here the whole 64 MiB device): every 4 KiB block discarded "
               "exactly once and the same bytes reported, then the plan's job (how many "
               "discards it takes follows the random sizes, whose generators differ, as for "
               "every random job)",
        "file": "[iofleet]\npurge=discard\n[global]\nioengine=libaio\ndirect=1\n"
                "filename=@DEV@\n[reads]\nrw=read\nbs=1m\nsize=64m\niodepth=4\n",
        "fio_file": "[global]\nioengine=libaio\ndirect=1\nfilename=@DEV@\n"
                    "[purge]\nrw=randtrim\nbsrange=4k-64m\niodepth=1\nsize=64m\n"
                    "[reads]\nstonewall\nrw=read\nbs=1m\nsize=64m\niodepth=4\n",
        "region": 64 * MIB,
        "dir": "T",
        "checks": [("coverage", 1.0), ("overlap", 0), ("counted", None),
                   ("json", ["io_bytes"])],
    },
    {
        "name": "rounds",
        "fleet_only": True,
        "why": "[iofleet] rounds=2 (an iofleet extension, run by a controller): each round "
               "issues what fio issues for the plan's job, the rounds one after the other as "
               "fio's stonewalled copies of the job; the fio export has an entry per round",
        "file": "[iofleet]\nrounds=2\n[global]\nioengine=libaio\ndirect=1\nfilename=@DEV@\n"
                "[reads]\nrw=read\nbs=64k\nsize=512k\niodepth=2\n",
        "fio_file": "[global]\nioengine=libaio\ndirect=1\nfilename=@DEV@\n[reads]\nrw=read\n"
                    "bs=64k\nsize=512k\niodepth=2\n[reads]\nstonewall\nrw=read\nbs=64k\n"
                    "size=512k\niodepth=2\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "health",
        "fleet_only": True,
        "why": "[iofleet] health= (an iofleet extension, judged by a controller): the agent "
               "reads each drive's health before and after the step and its temperature "
               "while it runs, on its link loop, never on the target: the step issues what "
               "fio issues for the plan's job, and nothing more reaches the device",
        "file": "[iofleet]\nhealth=no_new_media_errors,max_temp<70\n[global]\nioengine=libaio\n"
                "direct=1\nfilename=@DEV@\n[reads]\nrw=read\nbs=64k\nsize=512k\niodepth=2\n",
        "fio_file": "[global]\nioengine=libaio\ndirect=1\nfilename=@DEV@\n[reads]\nrw=read\n"
                    "bs=64k\nsize=512k\niodepth=2\n",
        "checks": [("exact", None), ("counted", None), ("json", ["io_bytes", "total_ios"])],
    },
    {
        "name": "entries-per-copy",
        "why": "without group_reporting one JSON entry per job copy; stonewall and "
               "new_group each start a reporting group (groupid)",
        "file": "[global]\nioengine=psync\ndirect=1\nfilename=@DEV@\nrw=read\nbs=64k\n"
                "size=256k\n[a]\nnumjobs=2\n[b]\nnew_group\n[c]\nstonewall\nnumjobs=2\n",
        "checks": [("entries", None), ("counted", None)],
    },
    {
        "name": "entries-group-reporting",
        "why": "group_reporting: one entry per reporting group, its jobs and copies merged, "
               "named after its first job; job_runtime summed over them",
        "file": "[global]\nioengine=psync\ndirect=1\nfilename=@DEV@\nrw=read\nbs=64k\n"
                "size=256k\ngroup_reporting\n[a]\nnumjobs=2\n[b]\n[c]\nstonewall\n"
                "[d]\nnew_group\n",
        "checks": [("entries", None), ("counted", None)],
    },
]

# The end of a region's cases (issue 41) live in a file of their own.
from cases_region import REGION_CASES  # noqa: E402
CASES += REGION_CASES
