/*  test_optval.c: unit tests for one option's value read as fio reads it
    (common/optval.c): numbers, sizes and times with their ranges, fio's
    READS,WRITES values, bssplit, percentile lists, CPU lists, steady state,
    and the exact message for each bad value.  On the fixture of the
    job-file tests (jobfile_fx.c).
*/
#include "jobfile_fx.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Values: bare keys, empty values, ranges, engines and patterns. */
static void
test_value_errors (void)
{
    /* Bare keys and empty values. */
    EXPECT_ERR ("[job]\niodepth\n", "t.fio:2: option 'iodepth' needs a value");
    EXPECT_ERR ("[job]\nfilename\n", "t.fio:2: option 'filename' needs a value");
    EXPECT_ERR ("[job]\ndirect\n", "t.fio:2: option 'direct' needs a value");
    EXPECT_ERR ("[job]\nbuffered\n", "t.fio:2: option 'buffered' needs a value");
    EXPECT_ERR ("[job]\nfilename=\n", "t.fio:2: option 'filename' needs a value");
    EXPECT_ERR ("[job]\ntime_based=\n", "t.fio:2: option 'time_based' needs a value");
    EXPECT_ERR ("[job]\nbs = ; 4k\n", "t.fio:2: option 'bs' needs a value");

    /* Values and ranges. */
    EXPECT_ERR ("[job]\niodepth=0\n", "t.fio:2: iodepth=0 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=70000\n",
                "t.fio:2: iodepth=70000 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=-1\n",
                "t.fio:2: iodepth='-1' is not a number (allowed: 1..65536)");
    EXPECT_ERR ("[job]\niodepth=99999999999999999999\n",
                "t.fio:2: iodepth=99999999999999999999 is out of range (allowed: 1..65536)");
    EXPECT_ERR ("[job]\nrwmixread=101\n",
                "t.fio:2: rwmixread=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nrwmixwrite=101\n",
                "t.fio:2: rwmixwrite=101 is out of range (allowed: 0..100)");
    EXPECT_ERR ("[job]\nrwmixread=50%\n",
                "t.fio:2: rwmixread='50%' is not a number (allowed: 0..100)");
    EXPECT_ERR ("[job]\nnumjobs=0\n", "t.fio:2: numjobs=0 is out of range (allowed: 1..1024)");
    EXPECT_ERR ("[job]\nnumjobs=1025\n",
                "t.fio:2: numjobs=1025 is out of range (allowed: 1..1024)");
    EXPECT_ERR ("[job]\nbs=0\n", "t.fio:2: bs=0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=65m\n", "t.fio:2: bs=65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4.5k\n",
                "t.fio:2: bs='4.5k' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4k:8k\n", "t.fio:2: bs=4k:8k: use ',' between the read and "
                "write values (fio would also split at ':' or '-'; bsrange= gives a range of sizes)");
    EXPECT_ERR ("[job]\nbs=4k-8k\n", "t.fio:2: bs=4k-8k: use ',' between the read and "
                "write values (fio would also split at ':' or '-'; bsrange= gives a range of sizes)");
    EXPECT_ERR ("[job]\nbs=-1\n",
                "t.fio:2: bs='-1' is not a size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\ndirect=2\n", "t.fio:2: direct='2' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\ndirect=yes\n", "t.fio:2: direct='yes' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\ntime_based=true\n",
                "t.fio:2: time_based='true' is not a boolean (allowed: 0 or 1)");
    EXPECT_ERR ("[job]\nsize=0%\n", "t.fio:2: size=0% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=101%\n", "t.fio:2: size=101% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=99999999999999999999999%\n",
                "t.fio:2: size=99999999999999999999999% is out of range (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=%\n", "t.fio:2: size='%' is not a percentage (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=1.5%\n",
                "t.fio:2: size='1.5%' is not a percentage (allowed: 1%..100%)");
    EXPECT_ERR ("[job]\nsize=lots\n", "t.fio:2: size='lots' is not a size (like 10g or 512m) "
                "or a percentage (like 50%)");
    EXPECT_ERR ("[job]\nsize=16384p\n",
                "t.fio:2: size=16384p is out of range (allowed: below 16 EiB)");
    EXPECT_ERR ("[job]\noffset=100%\n", "t.fio:2: offset=100% is out of range (allowed: 0%..99%)");
    EXPECT_ERR ("[job]\nruntime=8d\n",
                "t.fio:2: runtime=8d is out of range (allowed: up to 604800s, 7 days)");
    EXPECT_ERR ("[job]\nramp_time=3601\n",
                "t.fio:2: ramp_time=3601 is out of range (allowed: up to 3600s, 1 hour)");
    EXPECT_ERR ("[job]\nruntime=soon\n",
                "t.fio:2: runtime='soon' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nruntime=1.5s\n",
                "t.fio:2: runtime='1.5s' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nname=\x7f\n",
                "t.fio:2: job name '\x7f' contains a control character or a bracket");
    EXPECT_ERR ("[global]\nname=\x7f\n[job]\n",
                "t.fio:2: job name '\x7f' contains a control character or a bracket");
    EXPECT_ERR ("[job]\nsize=${SIZE}\n",
                "t.fio:2: size=${SIZE}: fio's $ substitutions are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nnumjobs=$ncpus\n",
                "t.fio:2: numjobs=$ncpus: fio's $ substitutions are not supported by iofleet yet");
    EXPECT_ERR ("[job]\nsize=(2*1g)\n", "t.fio:2: size=(2*1g): fio's arithmetic expressions "
                "are not supported by iofleet yet");
    {
        char text[JOB_FILENAME_MAX + 64];
        int n = snprintf (text, sizeof text, "[job]\nfilename=");
        memset (text + n, 'f', JOB_FILENAME_MAX);
        strcpy (text + n + JOB_FILENAME_MAX, "\n");
        EXPECT_ERR (text, "t.fio:2: filename is 1024 bytes long (the limit is 1023)");
    }

    /* Engines and patterns. */
    EXPECT_ERR ("[job]\nioengine=mmap\n", "t.fio:2: ioengine 'mmap' is not supported by "
                "iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=io_uring_cmd\n", "t.fio:2: ioengine 'io_uring_cmd' is not "
                "supported by iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=external:/opt/spdk_nvme\n", "t.fio:2: ioengine "
                "'external:/opt/spdk_nvme' is not supported by iofleet yet (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=aio\n", "t.fio:2: ioengine 'aio' is not an fio ioengine "
                "(supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=LIBAIO\n", "t.fio:2: ioengine 'LIBAIO' is not an fio "
                "ioengine (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nioengine=io_uring \"x\"\n", "t.fio:2: ioengine 'io_uring \"x\"' is "
                "not an fio ioengine (supported: " JOB_ENGINES ")");
    EXPECT_ERR ("[job]\nrw=filestat\n", "t.fio:2: rw 'filestat' is not supported by iofleet "
                "yet " RW_ALL ")");
    EXPECT_ERR ("[job]\nrw=random\n", "t.fio:2: rw='random' is not an fio I/O pattern "
                RW_ALL ")");
    EXPECT_ERR ("[job]\nrw=randread:0\n", "t.fio:2: rw=randread:0: '0' after ':' is not a "
                "count of I/Os per random offset (allowed: 1..1000000)");
    EXPECT_ERR ("[job]\nrw=randtrim:4\n", "t.fio:2: rw=randtrim:4: fio's ':N' offset modifier "
                "is not supported by iofleet yet on trims");

}

/* bs, bsrange and rate_iops in fio's READS,WRITES form. */
static void
test_per_direction (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nbs=4k,8k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (fx_one_job ("[job]\nblocksize=1k,2k\n", &j)))
        CHECK (j.bs[0] == 1024 && j.bs[1] == 2048);
    if (CHECK_OK (fx_one_job ("[job]\nbs=64k\n", &j)))
        CHECK (BS_IS (&j, 65536));
    /* An empty part leaves that direction as it was; a trailing comma
       keeps the last value from spreading to the next direction. */
    if (CHECK_OK (fx_one_job ("[job]\nbs=,8k\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (fx_one_job ("[global]\nbs=16k\n[job]\nbs=,8k\n", &j)))
        CHECK (j.bs[0] == 16384 && j.bs[1] == 8192);
    if (CHECK_OK (fx_one_job ("[global]\nbs=16k\n[job]\nbs=2k,\n", &j)))
        CHECK (j.bs[0] == 2048 && j.bs[1] == 16384);
    if (CHECK_OK (fx_one_job ("[job]\nbs=8k,32k,\n", &j)))
        CHECK (j.bs[0] == 8192 && j.bs[1] == 32768);
    if (CHECK_OK (fx_one_job ("[job]\nbs=,8k,\n", &j)))
        CHECK (j.bs[0] == 4096 && j.bs[1] == 8192);
    if (CHECK_OK (fx_one_job ("[job]\nbs=4k,8k\nbs=2k\n", &j)))
        CHECK (BS_IS (&j, 2048));
    if (CHECK_OK (fx_one_job ("[job]\nbs=0x200,64m\n", &j)))
        CHECK (j.bs[0] == 512 && j.bs[1] == JOB_MAX_BS);

    EXPECT_ERR ("[job]\nbs=,\n", "t.fio:2: bs=, gives no value for reads or writes");
    EXPECT_ERR ("[job]\nbs=,,\n", "t.fio:2: bs=,, gives no value for reads or writes");
    /* Three or more non-empty sizes are a sweep (test_sweeps); with two,
       a third part is fio's trim size. */
    EXPECT_ERR ("[job]\nbs=4k,,16k\n",
                "t.fio:2: bs=4k,,16k: a third value (for trims) is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nbs=4k,8k,,\n", "t.fio:2: bs=4k,8k,, has more than three "
                "comma-separated values (fio takes reads,writes,trims)");
    EXPECT_ERR ("[job]\nbs=4k,0\n",
                "t.fio:2: bs=4k,0: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=65m,4k\n",
                "t.fio:2: bs=65m,4k: 65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbs=4k,4q\n", "t.fio:2: bs=4k,4q: '4q' is not a size (like 4k or "
                "128k; allowed: 1 byte..64 MiB)");
    /* fio would read " 8k" as 8 bytes. */
    EXPECT_ERR ("[job]\nbs=4k, 8k\n", "t.fio:2: bs=4k, 8k: ' 8k' is not a size (like 4k or "
                "128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nblocksize=4k,8k:16k\n", "t.fio:2: blocksize=4k,8k:16k: use ',' between "
                "the read and write values (fio would also split at ':' or '-'; bsrange= gives "
                "a range of sizes)");

    /* bsrange: MIN-MAX (or fio's MIN:MAX), bounds swapped like fio. */
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=1k-16k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 16384);
        CHECK (j.bsrange_min[1] == 1024 && j.bsrange_max[1] == 16384);
        CHECK (BS_IS (&j, 4096));
    }
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=1k-4k,2k-8k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 4096);
        CHECK (j.bsrange_min[1] == 2048 && j.bsrange_max[1] == 8192);
    }
    if (CHECK_OK (fx_one_job ("[job]\nblocksize_range=16k-1k\n", &j)))
        CHECK (j.bsrange_min[1] == 1024 && j.bsrange_max[1] == 16384);
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=512:4k\n", &j)))
        CHECK (j.bsrange_min[0] == 512 && j.bsrange_max[0] == 4096);
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=4k-4k\n", &j)))
        CHECK (j.bsrange_min[0] == 4096 && j.bsrange_max[0] == 4096);
    if (CHECK_OK (fx_one_job ("[global]\nbsrange=1k-2k\n[job]\nbsrange=,4k-8k\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 2048);
        CHECK (j.bsrange_min[1] == 4096 && j.bsrange_max[1] == 8192);
    }
    if (CHECK_OK (fx_one_job ("[job]\nbsrange=1k-2k,\n", &j))) {
        CHECK (j.bsrange_min[0] == 1024 && j.bsrange_max[0] == 2048);
        CHECK (j.bsrange_min[1] == 0 && j.bsrange_max[1] == 0);
    }
    EXPECT_ERR ("[job]\nbsrange=4k\n",
                "t.fio:2: bsrange='4k' is not a range of sizes (like 1k-16k)");
    EXPECT_ERR ("[job]\nbsrange=1k-4k,8k\n",
                "t.fio:2: bsrange=1k-4k,8k: '8k' is not a range of sizes (like 1k-16k)");
    EXPECT_ERR ("[job]\nbsrange=0-4k\n",
                "t.fio:2: bsrange=0-4k: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-65m\n",
                "t.fio:2: bsrange=1k-65m: 65m is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-x\n", "t.fio:2: bsrange=1k-x: 'x' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-4k-8k\n", "t.fio:2: bsrange=1k-4k-8k: '4k-8k' is not a "
                "size (like 4k or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbsrange=1k-2k,2k-4k,4k-8k\n", "t.fio:2: bsrange=1k-2k,2k-4k,4k-8k: a "
                "third value (for trims) is not supported by iofleet yet");

    /* rate_iops: 0 is unlimited. */
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=500\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 500);
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=500,200\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 200);
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=,200\n", &j)))
        CHECK (j.rate_iops[0] == 0 && j.rate_iops[1] == 200);
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=500,\n", &j)))
        CHECK (j.rate_iops[0] == 500 && j.rate_iops[1] == 0);
    if (CHECK_OK (fx_one_job ("[job]\nrate_iops=1k,100000000\n", &j)))
        CHECK (j.rate_iops[0] == 1024 && j.rate_iops[1] == JOB_MAX_RATE_IOPS);
    if (CHECK_OK (fx_one_job ("[global]\nrate_iops=100,300\n[job]\nrate_iops=,0\n", &j)))
        CHECK (j.rate_iops[0] == 100 && j.rate_iops[1] == 0);
    EXPECT_ERR ("[job]\nrate_iops=500:200\n", "t.fio:2: rate_iops=500:200: use ',' between "
                "the read and write values (fio would also split at ':' or '-')");
    EXPECT_ERR ("[job]\nrate_iops=500-200\n", "t.fio:2: rate_iops=500-200: use ',' between "
                "the read and write values (fio would also split at ':' or '-')");
    EXPECT_ERR ("[job]\nrate_iops=x\n",
                "t.fio:2: rate_iops='x' is not a number (allowed: 0..100000000)");
    EXPECT_ERR ("[job]\nrate_iops=1,100000001\n",
                "t.fio:2: rate_iops=1,100000001: 100000001 is out of range (allowed: 0..100000000)");
    EXPECT_ERR ("[job]\nrate_iops=1,2,3\n",
                "t.fio:2: rate_iops=1,2,3: a third value (for trims) is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nrate_iops=\n", "t.fio:2: option 'rate_iops' needs a value");
}

static void
test_bssplit (void)
{
    job_t j;
    static const uint32_t howto1[][2] = { { 4096, 10 }, { 65536, 50 }, { 32768, 40 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/10:64k/50:32k/40\n", &j))) {
        CHECK (fx_split_is (&j, 0, 3, howto1));
        CHECK (fx_split_is (&j, 1, 3, howto1));
        CHECK (BS_IS (&j, 4096));
    }
    /* HOWTO: "4k/50:1k/:32k/ would have 50% 4k ios, and 25% 1k and 32k". */
    static const uint32_t howto2[][2] = { { 4096, 50 }, { 1024, 25 }, { 32768, 25 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/50:1k/:32k/\n", &j)))
        CHECK (fx_split_is (&j, 0, 3, howto2) && fx_split_is (&j, 1, 3, howto2));
    /* No '/' at all is the same as an empty percentage. */
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/50:1k:32k\n", &j)))
        CHECK (fx_split_is (&j, 0, 3, howto2));
    /* fio's integer division leaves a percent over; it goes to the
       largest share (the last of equals), so the shares sum to 100. */
    static const uint32_t thirds[][2] = { { 4096, 33 }, { 8192, 33 }, { 16384, 34 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k:8k:16k\n", &j)))
        CHECK (fx_split_is (&j, 0, 3, thirds));
    static const uint32_t left[][2] = {
        { 4096, 52 }, { 8192, 16 }, { 16384, 16 }, { 32768, 16 },
    };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/50:8k:16k:32k\n", &j)))
        CHECK (fx_split_is (&j, 0, 4, left));
    static const uint32_t one[][2] = { { 4096, 100 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k\n", &j)))
        CHECK (fx_split_is (&j, 0, 1, one) && fx_split_is (&j, 1, 1, one));
    /* fio reads a 0 percentage as "not given". */
    static const uint32_t zero[][2] = { { 4096, 0 }, { 8192, 100 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/0:8k/100\n", &j)))
        CHECK (fx_split_is (&j, 0, 2, zero));
    static const uint32_t zero_share[][2] = { { 4096, 50 }, { 8192, 50 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=4k/0:8k/50\n", &j)))
        CHECK (fx_split_is (&j, 0, 2, zero_share));
    /* HOWTO: separate reads and writes. */
    static const uint32_t r[][2] = { { 2048, 50 }, { 4096, 50 } };
    static const uint32_t w[][2] = { { 4096, 90 }, { 8192, 10 } };
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=2k/50:4k/50,4k/90:8k/10\n", &j)))
        CHECK (fx_split_is (&j, 0, 2, r) && fx_split_is (&j, 1, 2, w));
    if (CHECK_OK (fx_one_job ("[global]\nbssplit=2k/50:4k/50\n[job]\nbssplit=,4k/90:8k/10\n", &j)))
        CHECK (fx_split_is (&j, 0, 2, r) && fx_split_is (&j, 1, 2, w));
    if (CHECK_OK (fx_one_job ("[job]\nbssplit=2k/50:4k/50,\n", &j)))
        CHECK (fx_split_is (&j, 0, 2, r) && j.nbssplit[1] == 0);

    /* fio's limit of 64 sizes per direction. */
    char text[2048];
    size_t len = (size_t) snprintf (text, sizeof text, "[job]\nbssplit=");
    for (int i = 1; i <= JOB_BSSPLIT_MAX; i++)
        len += (size_t) snprintf (text + len, sizeof text - len, "%s%dk",
                                  i > 1 ? ":" : "", i);
    snprintf (text + len, sizeof text - len, "\n");
    if (CHECK_OK (fx_one_job (text, &j))) {
        CHECK (j.nbssplit[0] == JOB_BSSPLIT_MAX && j.nbssplit[1] == JOB_BSSPLIT_MAX);
        uint32_t sum = 0;
        for (int i = 0; i < j.nbssplit[0]; i++)
            sum += j.bssplit[0][i].pct;
        CHECK (sum == 100);
        CHECK (j.bssplit[0][0].pct == 1 && j.bssplit[0][JOB_BSSPLIT_MAX - 1].pct == 37);
        CHECK (j.bssplit[0][JOB_BSSPLIT_MAX - 1].bs == JOB_BSSPLIT_MAX * 1024);
    }
    snprintf (text + len, sizeof text - len, ":65k\n");
    {
        char want[2048];
        snprintf (want, sizeof want, "t.fio:2: bssplit=%.80s has more than 64 block sizes "
                  "in one direction (fio's limit)", text + 14);
        EXPECT_ERR (text, want);
    }

    EXPECT_ERR ("[job]\nbssplit=4k/50:64k/40\n",
                "t.fio:2: bssplit=4k/50:64k/40: the percentages add up to 90%, not 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/60:8k/50\n",
                "t.fio:2: bssplit=4k/60:8k/50: the percentages add up to 110%, more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/60:8k/50:16k\n",
                "t.fio:2: bssplit=4k/60:8k/50:16k: the percentages add up to 110%, more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/100,8k/50\n",
                "t.fio:2: bssplit=4k/100,8k/50: the percentages add up to 50%, not 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/101\n", "t.fio:2: bssplit=4k/101: 101% is more than 100%");
    EXPECT_ERR ("[job]\nbssplit=4k/x\n",
                "t.fio:2: bssplit=4k/x: 'x' is not a percentage (like 4k/25)");
    EXPECT_ERR ("[job]\nbssplit=4k/50%:8k/50\n",
                "t.fio:2: bssplit=4k/50%:8k/50: '50%' is not a percentage (like 4k/25)");
    EXPECT_ERR ("[job]\nbssplit=4k/50::8k/50\n", "t.fio:2: bssplit=4k/50::8k/50 has an empty "
                "entry (entries are SIZE/PERCENT, separated by ':')");
    EXPECT_ERR ("[job]\nbssplit=4k/100:\n", "t.fio:2: bssplit=4k/100: has an empty entry "
                "(entries are SIZE/PERCENT, separated by ':')");
    EXPECT_ERR ("[job]\nbssplit=q/100\n", "t.fio:2: bssplit=q/100: 'q' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=0/100\n",
                "t.fio:2: bssplit=0/100: 0 is out of range (allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=/100\n", "t.fio:2: bssplit=/100: '' is not a size (like 4k "
                "or 128k; allowed: 1 byte..64 MiB)");
    EXPECT_ERR ("[job]\nbssplit=4k/50:8k/50,4k/50:8k/50,4k/100\n", "t.fio:2: "
                "bssplit=4k/50:8k/50,4k/50:8k/50,4k/100: a third value (for trims) is not "
                "supported by iofleet yet");
}

/* thinktime counts bare numbers in microseconds, startdelay in seconds. */
static void
test_times (void)
{
    static const struct {
        const char *value;
        uint64_t ns;
    } think[] = {
        { "250", 250000 },              { "0", 0 },
        { "250us", 250000 },            { "250usec", 250000 },
        { "5ms", 5000000 },             { "5MS", 5000000 },
        { "2s", 2 * NS_PER_S },         { "1m", 60 * NS_PER_S },
        { "3600000000", 3600 * NS_PER_S },
        { "3600s", 3600 * NS_PER_S },
    };
    for (size_t i = 0; i < sizeof think / sizeof think[0]; i++) {
        char text[128];
        job_t j;
        snprintf (text, sizeof text, "[job]\nthinktime=%s\n", think[i].value);
        if (CHECK_OK (fx_one_job (text, &j)))
            CHECK_MSG (j.thinktime_ns == think[i].ns, "thinktime=%s gave %llu ns",
                       think[i].value, (unsigned long long) j.thinktime_ns);
    }
    EXPECT_ERR ("[job]\nthinktime=3601s\n", "t.fio:2: thinktime=3601s is out of range "
                "(allowed: up to 1 hour)");
    EXPECT_ERR ("[job]\nthinktime=3600000001\n", "t.fio:2: thinktime=3600000001 is out of "
                "range (allowed: up to 1 hour)");
    EXPECT_ERR ("[job]\nthinktime=1.5ms\n", "t.fio:2: thinktime='1.5ms' is not a time (like "
                "100 (microseconds), 100us, 5ms, 1s)");
    EXPECT_ERR ("[job]\nthinktime=10ns\n", "t.fio:2: thinktime='10ns' is not a time (like "
                "100 (microseconds), 100us, 5ms, 1s)");
    EXPECT_ERR ("[job]\nthinktime=99999999999999999999\n", "t.fio:2: "
                "thinktime=99999999999999999999 is out of range (allowed: up to 1 hour)");

    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nstartdelay=5\n", &j)))
        CHECK (j.startdelay_ns == 5 * NS_PER_S);
    if (CHECK_OK (fx_one_job ("[job]\nstartdelay=500ms\n", &j)))
        CHECK (j.startdelay_ns == 500 * 1000000ull);
    if (CHECK_OK (fx_one_job ("[job]\nstartdelay=1h\n", &j)))
        CHECK (j.startdelay_ns == (uint64_t) JOB_MAX_DELAY_S * NS_PER_S);
    EXPECT_ERR ("[job]\nstartdelay=5-10\n", "t.fio:2: startdelay=5-10: fio's random start "
                "delay range is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nstartdelay=5:10\n", "t.fio:2: startdelay=5:10: fio's random start "
                "delay range is not supported by iofleet yet");
    EXPECT_ERR ("[job]\nstartdelay=8d\n",
                "t.fio:2: startdelay=8d is out of range (allowed: up to 3600s, 1 hour)");
    EXPECT_ERR ("[job]\nstartdelay=-1\n",
                "t.fio:2: startdelay='-1' is not a time (like 60, 30s, 500ms, 5m, 1h)");
    EXPECT_ERR ("[job]\nstartdelay=soon\n",
                "t.fio:2: startdelay='soon' is not a time (like 60, 30s, 500ms, 5m, 1h)");
}

static void
test_percentiles (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\npercentile_list=99:99.9:99.99\n", &j))) {
        CHECK (j.npercentiles == 3);
        CHECK (j.percentile_list[0] == 99 && j.percentile_list[1] == 99.9);
        CHECK (j.percentile_list[2] == 99.99 && j.percentile_list[3] == 0);
    }
    /* Sorted, like fio reports them. */
    if (CHECK_OK (fx_one_job ("[job]\npercentile_list=99.99:50:1:100:.5\n", &j))) {
        CHECK (j.npercentiles == 5);
        CHECK (j.percentile_list[0] == 0.5 && j.percentile_list[1] == 1);
        CHECK (j.percentile_list[2] == 50 && j.percentile_list[3] == 99.99);
        CHECK (j.percentile_list[4] == 100);
    }
    if (CHECK_OK (fx_one_job ("[global]\npercentile_list=1:2:3\n[job]\npercentile_list=50\n", &j)))
        CHECK (j.npercentiles == 1 && j.percentile_list[0] == 50 && j.percentile_list[1] == 0);
    /* fio's limit is 20 entries. */
    const char *twenty = "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20";
    char text[256];
    snprintf (text, sizeof text, "[job]\npercentile_list=%s\n", twenty);
    if (CHECK_OK (fx_one_job (text, &j)))
        CHECK (j.npercentiles == 20 && j.percentile_list[19] == 20);
    snprintf (text, sizeof text, "[job]\npercentile_list=%s:21\n", twenty);
    EXPECT_ERR (text, "t.fio:2: percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:"
                "19:20:21 has more than 20 percentiles (fio's limit)");
    EXPECT_ERR ("[job]\npercentile_list=0\n",
                "t.fio:2: percentile_list=0: 0 is out of range (allowed: above 0, up to 100)");
    EXPECT_ERR ("[job]\npercentile_list=50:100.1\n", "t.fio:2: percentile_list=50:100.1: "
                "100.1 is out of range (allowed: above 0, up to 100)");
    EXPECT_ERR ("[job]\npercentile_list=99::99.9\n",
                "t.fio:2: percentile_list=99::99.9: '' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=99:\n",
                "t.fio:2: percentile_list=99:: '' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=99,99.9\n",
                "t.fio:2: percentile_list=99,99.9: '99,99.9' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=1e2\n",
                "t.fio:2: percentile_list=1e2: '1e2' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=-5\n",
                "t.fio:2: percentile_list=-5: '-5' is not a number (like 99.9)");
    EXPECT_ERR ("[job]\npercentile_list=9.9.9\n",
                "t.fio:2: percentile_list=9.9.9: '9.9.9' is not a number (like 99.9)");
}

static void
test_cpus_allowed (void)
{
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\ncpus_allowed=0-3,8\n", &j)))
        CHECK (strcmp (j.cpus_allowed, "0-3,8") == 0);
    if (CHECK_OK (fx_one_job ("[global]\ncpus_allowed=1\n[job]\ncpus_allowed=0-255\n", &j)))
        CHECK (strcmp (j.cpus_allowed, "0-255") == 0);
    EXPECT_ERR ("[job]\ncpus_allowed=0-300\n",
                "t.fio:2: cpus_allowed=0-300: CPU 300 is out of range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=4,256-260\n",
                "t.fio:2: cpus_allowed=4,256-260: CPU 256 is out of range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=99999999999999999999999\n", "t.fio:2: "
                "cpus_allowed=99999999999999999999999: CPU 99999999999999999999999 is out of "
                "range (allowed: 0..255)");
    EXPECT_ERR ("[job]\ncpus_allowed=0,3-1\n",
                "t.fio:2: cpus_allowed=0,3-1: the CPU range 3-1 goes backwards");
    EXPECT_ERR ("[job]\ncpus_allowed=0,,1\n",
                "t.fio:2: cpus_allowed='0,,1' is not a list of CPUs (like 0-3,8,10-11)");
    EXPECT_ERR ("[job]\ncpus_allowed=all\n",
                "t.fio:2: cpus_allowed='all' is not a list of CPUs (like 0-3,8,10-11)");
    {
        char text[512];
        int n = snprintf (text, sizeof text, "[job]\ncpus_allowed=");
        for (int i = 0; i < 150; i++)
            n += snprintf (text + n, sizeof text - (size_t) n, "1,");
        snprintf (text + n, sizeof text - (size_t) n, "1\n");
        EXPECT_ERR (text, "t.fio:2: cpus_allowed is 301 bytes long (the limit is 255)");
    }
}

static void
test_steadystate (void)
{
    static const struct {
        const char *value;
        job_ss_t ss;
        double limit;
        bool pct;
    } cases[] = {
        { "iops:5%", JOB_SS_IOPS, 0.05, true },
        { "iops_slope:0.1%", JOB_SS_IOPS_SLOPE, 0.001, true },
        { "iops_slope:0.01%", JOB_SS_IOPS_SLOPE, 0.0001, true },
        { "iops:500", JOB_SS_IOPS, 500, false },
        { "iops:2.5", JOB_SS_IOPS, 2.5, false },
        { "iops_slope:0.5", JOB_SS_IOPS_SLOPE, 0.5, false },
        { "bw:2m", JOB_SS_BW, 2097152, false },
        { "bw:10%", JOB_SS_BW, 0.1, true },
        { "bw_slope:1k", JOB_SS_BW_SLOPE, 1024, false },
        { "bw_slope:0.5%", JOB_SS_BW_SLOPE, 0.005, true },
        { "bw:0", JOB_SS_BW, 0, false },
        { "iops:100%", JOB_SS_IOPS, 1, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        job_t j;
        snprintf (text, sizeof text, "[job]\n%s=%s\nss_dur=60\n",
                  i % 2 ? "ss" : "steadystate", cases[i].value);
        if (CHECK_OK (fx_one_job (text, &j)))
            CHECK_MSG (j.ss == cases[i].ss && j.ss_pct == cases[i].pct
                    && fx_near (j.ss_limit, cases[i].limit) && j.ss_dur_ns == 60 * NS_PER_S,
                       "%s: ss %d limit %g pct %d", cases[i].value, (int) j.ss, j.ss_limit,
                       (int) j.ss_pct);
    }
    job_t j;
    if (CHECK_OK (fx_one_job ("[job]\nsteadystate=bw:5%\nsteadystate_duration=2m\n"
                             "steadystate_ramp_time=30\n", &j))) {
        CHECK (j.ss == JOB_SS_BW && j.ss_dur_ns == 120 * NS_PER_S);
        CHECK (j.ss_ramp_ns == 30 * NS_PER_S);
    }
    /* ss_dur= alone turns on fio's default, iops_slope:0.01%. */
    if (CHECK_OK (fx_one_job ("[job]\nss_dur=30s\nss_ramp=1m\n", &j))) {
        CHECK (j.ss == JOB_SS_IOPS_SLOPE && j.ss_pct && fx_near (j.ss_limit, 0.0001));
        CHECK (j.ss_dur_ns == 30 * NS_PER_S && j.ss_ramp_ns == 60 * NS_PER_S);
    }
    /* Inherited pieces: criterion in [global], duration per job. */
    jobfile_t *jf = fx_parse ("[global]\nss=iops:2%\n[a]\nss_dur=10\n[b]\nss_dur=20\n"
                             "ss=bw_slope:1m\n");
    CHECK (jf && jf->nsteps == 2);
    if (jf && jf->nsteps == 2) {
        CHECK (jf->steps[0].ss == JOB_SS_IOPS && fx_near (jf->steps[0].ss_limit, 0.02));
        CHECK (jf->steps[0].ss_dur_ns == 10 * NS_PER_S);
        CHECK (jf->steps[1].ss == JOB_SS_BW_SLOPE && !jf->steps[1].ss_pct);
        CHECK (jf->steps[1].ss_limit == 1048576 && jf->steps[1].ss_dur_ns == 20 * NS_PER_S);
    }
    jobfile_destroy (&jf);

    EXPECT_ERR ("[job]\nsteadystate=iops:5%\n",
                "t.fio:2: steadystate needs ss_dur= (job 'job' has none)");
    EXPECT_ERR ("[job]\nrw=read\nss=iops:5%\nss_dur=0\n",
                "t.fio:3: ss needs ss_dur= (job 'job' has none)");
    EXPECT_ERR ("[job]\nss=iops\n", "t.fio:2: ss=iops needs a limit after the criterion "
                "(like iops_slope:0.1% or iops:5%)");
    EXPECT_ERR ("[job]\nss=iops:\n", "t.fio:2: ss=iops: needs a limit after the criterion "
                "(like iops_slope:0.1% or iops:5%)");
    EXPECT_ERR ("[job]\nss=lat:5%\n", "t.fio:2: ss criterion 'lat' is not supported by "
                "iofleet yet (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nsteadystate=lat_slope:5%\n", "t.fio:2: steadystate criterion "
                "'lat_slope' is not supported by iofleet yet (supported: iops, iops_slope, bw, "
                "bw_slope)");
    EXPECT_ERR ("[job]\nss=foo:1\n", "t.fio:2: ss='foo:1' is not an fio steady state "
                "criterion (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nss=IOPS:5%\n", "t.fio:2: ss='IOPS:5%' is not an fio steady state "
                "criterion (supported: iops, iops_slope, bw, bw_slope)");
    EXPECT_ERR ("[job]\nss=iops:x%\n",
                "t.fio:2: ss=iops:x%: 'x%' is not a percentage (like 0.1%)");
    EXPECT_ERR ("[job]\nss=iops:%\n",
                "t.fio:2: ss=iops:%: '%' is not a percentage (like 0.1%)");
    EXPECT_ERR ("[job]\nss=iops:101%\n",
                "t.fio:2: ss=iops:101%: 101% is out of range (allowed: 0%..100%)");
    EXPECT_ERR ("[job]\nss=iops:1k\n", "t.fio:2: ss=iops:1k: '1k' is not a number of IOPS "
                "(like 500) or a percentage (like 5%)");
    EXPECT_ERR ("[job]\nss=bw:1.5m\n", "t.fio:2: ss=bw:1.5m: '1.5m' is not a rate in "
                "bytes/s (like 10m) or a percentage (like 5%)");
    EXPECT_ERR ("[job]\nss=bw:16384p\n",
                "t.fio:2: ss=bw:16384p: 16384p is out of range (allowed: below 16 EiB/s)");
    EXPECT_ERR ("[job]\nss=iops:5%\nss_dur=1500ms\n", "t.fio:3: ss_dur=1500ms is not a whole "
                "number of seconds (steady state takes one sample a second)");
    EXPECT_ERR ("[job]\nss=iops:5%\nss_dur=1\n", "t.fio:3: ss_dur=1 is too short (allowed: 0 "
                "(off), or from 2s: a slope needs two samples)");
    EXPECT_ERR ("[job]\nss_dur=8d\n",
                "t.fio:2: ss_dur=8d is out of range (allowed: up to 86400s, 24 hours)");
    EXPECT_ERR ("[job]\nss=iops:10000000000000000000\nss_dur=10\n",
                "t.fio:2: ss=iops:10000000000000000000: 10000000000000000000 is out of range "
                "(allowed: below 1e18)");
    EXPECT_ERR ("[job]\nss_ramp=500ms\n", "t.fio:2: ss_ramp=500ms is not a whole number of "
                "seconds (steady state takes one sample a second)");
    EXPECT_ERR ("[job]\nsteadystate_ramp_time=x\n", "t.fio:2: steadystate_ramp_time='x' is "
                "not a time (like 60, 30s, 500ms, 5m, 1h)");
}

int
main (void)
{
    test_value_errors ();
    test_per_direction ();
    test_bssplit ();
    test_times ();
    test_percentiles ();
    test_cpus_allowed ();
    test_steadystate ();
    return TEST_DONE ();
}
