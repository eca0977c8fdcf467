#!/usr/bin/env bash
# iofleet-agent run: fio's semantics on real files with O_DIRECT, checked
# from the fio-compatible JSON it prints and from the files themselves.
. "$(dirname "$0")/lib.sh"
fleet_setup
cd "$T"
AGENT="$BIN/iofleet-agent"

# run_json NAME <<JOB ... : runs the job file from stdin, JSON into NAME.json
run_json () {
  cat >"$1.fio"
  "$AGENT" run --output-format json "$1.fio" >"$1.json" 2>"$1.err" \
    || { cat "$1.err" >&2; fail "$1: iofleet-agent run exited non-zero"; }
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1.json" \
    || fail "$1: output is not JSON python3 can read"
}
j () { jq -r "$2" "$1.json"; }
between () { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# 1. fio's JSON layout: the fields tools read.
run_json layout <<'JOB'
[rr]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=4
size=8m
filename=data1
runtime=1
time_based
JOB
jq -e '."fio version" and .jobs[0].jobname == "rr"
  and (.jobs[0].read | .io_bytes > 0 and .io_kbytes == (.io_bytes / 1024 | floor) and .bw_bytes > 0
       and .bw > 0 and .iops > 0 and .runtime > 0 and .total_ios > 0
       and .slat_ns.N == .total_ios and .clat_ns.N == .total_ios and .lat_ns.N == .total_ios
       and .clat_ns.percentile["99.000000"] >= .clat_ns.percentile["50.000000"]
       and .clat_ns.min <= .clat_ns.mean and .clat_ns.mean <= .clat_ns.max
       and .lat_ns.mean >= .clat_ns.mean)' layout.json >/dev/null \
  || fail "fio JSON fields: $(jq -c '.jobs[0].read | {io_bytes, io_kbytes, bw, iops, runtime, total_ios}' layout.json)"
ok "fio-compatible JSON carries the fields, slat/clat/lat each with N = total_ios"

# json+ bins, read by fio's own tool.
"$AGENT" run --output-format json+ layout.fio >plus.json 2>/dev/null || fail "json+ run"
jq -e '.jobs[0].read.clat_ns | (.bins | to_entries | map(.value) | add) == .N' plus.json >/dev/null \
  || fail "json+ bins do not add up to N"
if command -v fio_jsonplus_clat2csv >/dev/null; then
  fio_jsonplus_clat2csv plus.json plus.csv >/dev/null 2>&1 || fail "fio_jsonplus_clat2csv rejected our json+"
  ls plus*.csv >/dev/null 2>&1 || fail "fio_jsonplus_clat2csv wrote no CSV"
  ok "fio_jsonplus_clat2csv accepts our json+"
else
  echo "note: fio_jsonplus_clat2csv not installed; skipped that check"
fi

# 2. randrw rwmixread=70: 70 +- 2% reads.
run_json mix <<'JOB'
[mix]
ioengine=libaio
direct=1
rw=randrw
rwmixread=70
bs=4k
iodepth=8
size=16m
filename=data2
runtime=2
time_based
JOB
r=$(j mix '.jobs[0] | .read.total_ios / (.read.total_ios + .write.total_ios) * 100')
between "$r" 68 72 || fail "rwmixread=70 gave $r% reads"
ok "rwmixread=70: $r% reads"

# 3. bssplit=4k/50:64k/50 over the random map: each I/O is trimmed to the
#    free run it lands in (fio's mark_random_map), so the mean size is below
#    the mix's 34 KiB; it must be fio's own on the same job (+-5%).
run_json split <<'JOB'
[split]
ioengine=libaio
direct=1
rw=randread
bssplit=4k/50:64k/50
iodepth=8
size=32m
filename=data3
runtime=2
time_based
JOB
m=$(j split '.jobs[0].read | .io_bytes / .total_ios / 1024')
fio --output-format=json split.fio >split.fio.json 2>split.fio.err \
  || { cat split.fio.err >&2; fail "split: fio exited non-zero"; }
mf=$(jq -r '.jobs[0].read | .io_bytes / .total_ios / 1024' split.fio.json)
lo=$(awk -v v="$mf" 'BEGIN { print v * 0.95 }'); hi=$(awk -v v="$mf" 'BEGIN { print v * 1.05 }')
between "$m" "$lo" "$hi" || fail "bssplit 4k/50:64k/50: mean I/O size $m KiB, fio's $mf KiB"
between "$m" 4 33 || fail "bssplit 4k/50:64k/50: mean I/O size $m KiB: no I/O trimmed?"
ok "bssplit over the random map: mean I/O size $m KiB, fio's $mf KiB"

# 4. Writes land inside [offset, offset+size), block-aligned, random data;
#    with the random map each block is written exactly once per pass.
dd if=/dev/zero of=data4 bs=1M count=4 status=none
run_json map <<'JOB'
[map]
ioengine=libaio
direct=1
rw=randwrite
bs=4k
iodepth=8
offset=1m
size=1m
filename=data4
JOB
[ "$(j map '.jobs[0].write.total_ios')" = 256 ] || fail "size=1m bs=4k wrote $(j map '.jobs[0].write.total_ios') blocks, want 256"
python3 - <<'PY' || fail "file contents after the random-map write"
data = open("data4", "rb").read()
assert len(data) == 4 << 20, len(data)
zero = bytes(4096)
outside = [i for i in list(range(0, 256)) + list(range(512, 1024)) if data[i*4096:(i+1)*4096] != zero]
assert not outside, f"blocks written outside [1m, 2m): {outside[:5]}"
untouched = [i for i in range(256, 512) if data[i*4096:(i+1)*4096] == zero]
assert not untouched, f"random map missed {len(untouched)} blocks, e.g. {untouched[:5]}"
import zlib
blob = data[1 << 20: 2 << 20]
# Drives compress and dedup per block: each 4 KiB must be incompressible.
worst = max(len(zlib.compress(blob[i:i+4096])) / 4096 for i in range(0, len(blob), 4096))
assert worst > 0.95, f"a written 4k block compresses to {worst:.2f}: not random"
chunks = {blob[i:i+4096] for i in range(0, len(blob), 4096)}
assert len(chunks) == 256, f"only {len(chunks)} distinct 4k blocks: dedup would flatter"
PY
ok "randwrite: every block of [1m, 2m) written once, nothing outside, random and unique data"

# ... and without the random map some blocks are hit twice and others never.
dd if=/dev/zero of=data5 bs=1M count=1 status=none
run_json nomap <<'JOB'
[nomap]
ioengine=libaio
direct=1
rw=randwrite
bs=4k
iodepth=8
size=1m
norandommap
filename=data5
JOB
python3 - <<'PY' || fail "norandommap left no block untouched"
data = open("data5", "rb").read()
untouched = sum(1 for i in range(256) if data[i*4096:(i+1)*4096] == bytes(4096))
assert 40 < untouched < 150, untouched     # expected 256/e ~ 94
PY
ok "norandommap: blocks repeat, as fio's"

# 5. rate_iops held within 5%; ramp_time excluded from every figure.
run_json rate <<'JOB'
[rate]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=4
size=8m
filename=data1
rate_iops=400
ramp_time=1
runtime=3
time_based
JOB
iops=$(j rate '.jobs[0].read.iops')
between "$iops" 380 420 || fail "rate_iops=400 gave $iops IOPS"
ios=$(j rate '.jobs[0].read.total_ios')
between "$ios" 1140 1260 || fail "ramp_time=1 runtime=3 at 400 IOPS counted $ios I/Os, want ~1200 (ramp excluded)"
rt=$(j rate '.jobs[0].read.runtime')
between "$rt" 2990 3010 || fail "runtime $rt ms, want 3000 (ramp excluded)"
ok "rate_iops=400: $iops IOPS; ramp excluded: $ios I/Os in $rt ms"

# 6. Engines: io_uring and psync and null give sane results on the same file.
for e in io_uring psync null; do
  run_json "eng-$e" <<JOB
[eng]
ioengine=$e
direct=1
rw=randread
bs=4k
iodepth=4
size=8m
filename=data1
runtime=1
time_based
JOB
  [ "$(j "eng-$e" '.jobs[0].read.total_ios > 0 and .jobs[0].error == 0')" = true ] \
    || fail "ioengine=$e did no I/O"
done
ok "io_uring, psync, null engines run"

# 7. A misaligned O_DIRECT block size is a clear error naming the line.
printf '[bad]\nioengine=libaio\ndirect=1\nrw=randread\nbs=1000\nsize=1m\nfilename=data1\n' >bad.fio
if "$AGENT" run bad.fio >/dev/null 2>bad.err; then fail "bs=1000 with direct=1 ran"; fi
grep -q "bad.fio:5: bs=1000 is not a multiple of 512" bad.err || fail "misaligned bs error: $(cat bad.err)"
ok "misaligned O_DIRECT block size refused: $(head -c 120 bad.err)"

# 8. Steady state ends a job early, as fio's does.
run_json ss <<'JOB'
[ss]
ioengine=null
rw=randread
bs=4k
iodepth=4
size=64m
filename=x
rate_iops=2000
steadystate=iops:5%
ss_dur=3
runtime=30
time_based
JOB
rt=$(j ss '.jobs[0].read.runtime')
between "$rt" 2500 6000 || fail "steady state at a fixed rate should end the 30 s job after ~3 s: ran $rt ms"
ok "steadystate=iops:5% ss_dur=3 ended a 30 s job after $rt ms"

# 9. Sections without stonewall run together, as fio runs them: two 2 s
#    jobs take ~2 s, not 4; with stonewall they take ~4 s.
cat >together.fio <<'JOB'
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=4
size=8m
runtime=2
time_based
[reader]
rw=randread
filename=data1
[writer]
rw=randwrite
filename=data6
JOB
t0=$(date +%s%N)
"$AGENT" run --output-format json together.fio >together.json 2>together.err \
  || { cat together.err >&2; fail "concurrent jobs: exited non-zero"; }
el=$(( ($(date +%s%N) - t0) / 1000000 ))
jq -e '(.jobs | length) == 2 and .jobs[0].read.total_ios > 0 and .jobs[1].write.total_ios > 0
       and .jobs[0].groupid == 0 and .jobs[1].groupid == 0' together.json >/dev/null \
  || fail "concurrent jobs: $(jq -c '[.jobs[] | [.jobname, .groupid, .read.total_ios, .write.total_ios]]' together.json)"
between "$el" 1900 3500 || fail "two 2 s jobs without stonewall took $el ms: not run together"
sed -i 's/^\[global\]/[global]\nstonewall/' together.fio
t0=$(date +%s%N)
"$AGENT" run --output-format json together.fio >apart.json 2>/dev/null || fail "stonewalled jobs"
el2=$(( ($(date +%s%N) - t0) / 1000000 ))
between "$el2" 3900 6000 || fail "two 2 s jobs with stonewall took $el2 ms: not one after the other"
[ "$(jq '.jobs[1].groupid' apart.json)" = 1 ] || fail "stonewall did not start a new group"
ok "no stonewall: 2 jobs ran together in $el ms; with stonewall one after the other in $el2 ms"

# offset_increment past the end of a file lays the file out further, as fio
# 3.33 does (it lays this job's file out to 5 MiB); past the end of a device,
# which cannot grow, the job is refused before any I/O, naming the sizes.
truncate -s 4m inc.dat
printf '[inc]\nioengine=psync\nrw=read\nbs=64k\nsize=1m\noffset_increment=2m\nnumjobs=3\nfilename=inc.dat\n' >inc.fio
"$AGENT" run --output-format json inc.fio >inc.json 2>inc.err || fail "offset_increment on a file: $(cat inc.err)"
[ "$(stat -c %s inc.dat)" = 5242880 ] || fail "inc.dat is $(stat -c %s inc.dat) bytes, not laid out to 5 MiB"
[ "$(jq -c '[.jobs[].read.total_ios]' inc.json)" = "[16,16,16]" ] \
  || fail "offset_increment: $(jq -c '[.jobs[].read.total_ios]' inc.json) reads, want 16 per job copy"
ok "offset_increment past a file's end: laid out to 5 MiB as fio, 16 reads per job copy"
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
  truncate -s 4m incdev.img
  loop=$(losetup --direct-io=on -f --show "$PWD/incdev.img")
  AT_EXIT+=("losetup -d $loop")
  sed "s|filename=inc.dat|filename=$loop|" inc.fio >incdev.fio
  if "$AGENT" run incdev.fio >/dev/null 2>incdev.err; then fail "offset_increment past a device's end ran"; fi
  grep -q "'$loop' is 4194304 bytes, the job needs 5242880" incdev.err \
    || fail "offset_increment past a device's end: $(cat incdev.err)"
  # Without size=, each worker's region is the device past offset=: the
  # second one's starts 2 MiB further and cannot fit.
  sed "/^size=/d" incdev.fio >incdev2.fio
  if "$AGENT" run incdev2.fio >/dev/null 2>incdev2.err; then fail "offset_increment without size ran"; fi
  grep -q "worker 1's region 2097152..6291456 is past the end of '$loop' (4194304 bytes): offset_increment=2097152 with numjobs=3 needs 8388608" incdev2.err \
    || fail "offset_increment without size= on a device: $(cat incdev2.err)"
  ok "offset_increment past a device's end refused: $(head -c 160 incdev.err); $(head -c 200 incdev2.err)"
else
  echo "skip: offset_increment past a device's end (needs root for a loop device)"
fi

# verify=: writes read back clean; a byte changed on disk between a writing
# run (do_verify=0) and a verify_only run is found, named with its offset,
# the checksum in the header and the one over the data, as fio's EILSEQ.
printf '[v]\nioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nsize=256k\niodepth=8\nverify=md5\nfilename=v.dat\n' >v.fio
"$AGENT" run --output-format json v.fio >v.json 2>v.err || fail "verify=md5 run: $(cat v.err)"
[ "$(jq -c '[.jobs[0].read.total_ios, .jobs[0].write.total_ios, .jobs[0].error]' v.json)" = "[64,64,0]" ] \
  || fail "verify=md5: $(jq -c '[.jobs[0].read.total_ios, .jobs[0].write.total_ios, .jobs[0].error]' v.json)"
sed 's/verify=md5/verify=md5\ndo_verify=0/' v.fio >vw.fio
sed 's/verify=md5/verify=md5\nverify_only=1/' v.fio >vo.fio
"$AGENT" run vw.fio >/dev/null 2>&1 || fail "do_verify=0 run"
printf 'Z' | dd of=v.dat bs=1 seek=$((9 * 4096 + 700)) conv=notrunc 2>/dev/null
if "$AGENT" run --output-format json vo.fio >vo.json 2>vo.err; then fail "verify_only passed over a damaged block"; fi
grep -q "verify: 4096 bytes at offset 36864 of '.*v.dat': md5 [0-9a-f]\{32\} in the header (write [0-9]* of worker 0), [0-9a-f]\{32\} over the data read" vo.err \
  || fail "verify_only message: $(cat vo.err)"
[ "$(jq -c '[.jobs[0].read.total_ios, .jobs[0].write.total_ios, .jobs[0].error]' vo.json)" = "[64,0,84]" ] \
  || fail "verify_only JSON: $(jq -c '[.jobs[0].read.total_ios, .jobs[0].write.total_ios, .jobs[0].error]' vo.json)"
ok "verify=md5: 64 writes read back; a damaged byte found by verify_only: $(head -c 200 vo.err)"

# write_iolog: fio's version 3 iolog of what was issued, appended to a log
# that exists as fio 3.33 does (two runs, two logs one after the other).
printf '[il]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=64k\nfilename=il.dat\nwrite_iolog=il.log\n' >il.fio
"$AGENT" run il.fio >/dev/null 2>il.err || fail "write_iolog run: $(cat il.err)"
"$AGENT" run il.fio >/dev/null 2>il.err || fail "write_iolog second run: $(cat il.err)"
[ "$(grep -c '^fio version 3 iolog$' il.log)" = 2 ] || fail "write_iolog: $(grep -c 'fio version' il.log) headers, want 2 (appended)"
[ "$(grep -c ' il.dat write [0-9]* 4096$' il.log)" = 32 ] || fail "write_iolog: $(grep -c ' write ' il.log) writes logged, want 2 x 16"
[ "$(awk '$3 == "write" { print $4 }' il.log | head -16 | sort -n | uniq | wc -l)" = 16 ] \
  || fail "write_iolog: the first run's 16 writes are not 16 blocks"
awk 'NR > 1 && $1 !~ /^[0-9]+$/ && $0 !~ /^fio version/ { bad = 1 } END { exit bad }' il.log \
  || fail "write_iolog: a line without a time: $(head -5 il.log)"
ok "write_iolog: two runs appended, 16 writes each with fio's v3 fields"

# refill_buffers: new random data for every write; scramble_buffers=0: the
# writes of one buffer are not made unique (fio's default 1 stamps them).
for v in "refill_buffers|64" "scramble_buffers=0|1"; do
  opt=${v%|*} want=${v#*|}
  printf '[b]\nioengine=psync\ndirect=1\nrw=write\nbs=4k\nsize=256k\nfilename=buf.dat\n%s\n' "$opt" >buf.fio
  "$AGENT" run buf.fio >/dev/null 2>buf.err || fail "$opt: $(cat buf.err)"
  # Past the first 64 bytes (the stamp's place): refilled data differs in
  # every block; one buffer only stamped, or not, is the same.
  got=$(python3 -c 'import sys; d = open("buf.dat", "rb").read(256 << 10); print(len({d[i+64:i+4096] for i in range(0, len(d), 4096)}))')
  [ "$got" = "$want" ] || fail "$opt: $got distinct 4k blocks (past their first 64 bytes) of 64, want $want"
  # Each block random (incompressible) either way.
  python3 -c 'import sys, zlib; d = open("buf.dat", "rb").read(4096); sys.exit(len(zlib.compress(d)) < 0.95 * 4096)' \
    || fail "$opt: a written block is not random data"
done
ok "refill_buffers: 64 blocks of 64 with data of their own; scramble_buffers=0: one buffer written 64 times"

# write_bw_log given alone and per_job_logs=0, as fio: the job's name as the
# prefix and no index (bw.fio -> bw_bw.log, one line per I/O); with two
# workers refused, naming it (fio appends both to one file).
printf '[bw]\nioengine=null\nfilesize=64k\nwrite_bw_log\nper_job_logs=0\nlog_offset=1\n' >bw.fio
"$AGENT" run bw.fio >/dev/null 2>bw.err || fail "write_bw_log alone: $(cat bw.err)"
[ -f bw_bw.log ] && [ "$(wc -l <bw_bw.log)" = 16 ] || fail "write_bw_log alone, per_job_logs=0: $(ls ./*.log)"
printf '[bw2]\nioengine=null\nfilesize=64k\nnumjobs=2\nwrite_bw_log=two\nper_job_logs=0\n' >bw2.fio
"$AGENT" run bw2.fio >/dev/null 2>bw2.err && fail "per_job_logs=0 with two workers ran"
grep -q "per_job_logs=0 with 2 workers (numjobs): not supported yet" bw2.err || fail "per_job_logs=0, numjobs=2: $(cat bw2.err)"
ok "write_bw_log alone and per_job_logs=0: bw_bw.log, 16 lines; with numjobs=2 refused, named"
# verify= on the null engine, which only pretends to do I/O (fio's
# FIO_FAKEIO): the writes are read back and counted, their data not
# checked (fio 3.33: 16,384 writes, 16,384 reads, err 0, exit 0, nothing on
# stderr); iofleet found ~37.7 million "misdirected" mismatches before.
printf '[nv]\nioengine=null\nrw=write\nsize=64m\nverify=crc32c\n' >nv.fio
"$AGENT" run --output-format json nv.fio >nv.json 2>nv.err || fail "verify on null exited non-zero: $(head -c 300 nv.err)"
[ ! -s nv.err ] || fail "verify on null wrote to stderr: $(head -c 300 nv.err)"
[ "$(jq -c '.jobs[0] | [.read.total_ios, .write.total_ios, .read.io_bytes, .error]' nv.json)" = "[16384,16384,67108864,0]" ] \
  || fail "verify on null: $(jq -c '.jobs[0] | [.read.total_ios, .write.total_ios, .read.io_bytes, .error]' nv.json)"
ok "verify=crc32c on null: 16384 writes read back and not checked, err 0, as fio"

# The null engine's latency as fio 3.33 accounts it: at iodepth=1 it is a
# synchronous engine (no slat, lat a little above clat); deeper its I/Os are
# queued and the commit stamps their issue time, so slat is recorded and
# lat = slat + clat per I/O (fio at iodepth=8: slat 55, clat 287, lat 342 ns
# means). Both tools are held to that shape on the same job.
for qd in 1 8; do
  printf '[nl]\nioengine=null\nrw=randread\nsize=256m\niodepth=%s\n' "$qd" >nl$qd.fio
  "$AGENT" run --output-format json nl$qd.fio >nl$qd.json 2>nl$qd.err || fail "null iodepth=$qd: $(cat nl$qd.err)"
  fio --output-format=json nl$qd.fio >nl$qd.fio.json 2>/dev/null || fail "null iodepth=$qd: fio exited non-zero"
  for f in nl$qd.json nl$qd.fio.json; do
    shape=$(jq -r '.jobs[0].read | [.total_ios, .slat_ns.N, .clat_ns.N, .lat_ns.N,
                   (.lat_ns.mean - .slat_ns.mean - .clat_ns.mean)] | @tsv' "$f")
    read -r ios sn cn ln gap <<<"$shape"
    [ "$ios" = 65536 ] && [ "$cn" = "$ios" ] && [ "$ln" = "$ios" ] || fail "$f: $shape"
    if [ "$qd" = 1 ]; then
      [ "$sn" = 0 ] || fail "$f: iodepth=1 recorded slat ($shape): fio's null is synchronous there"
      between "$gap" 0 100000 || fail "$f: iodepth=1: lat below clat ($shape)"
    else
      [ "$sn" = "$ios" ] || fail "$f: iodepth=8: slat N $sn of $ios I/Os ($shape)"
      between "$gap" -1 1 || fail "$f: iodepth=8: lat - slat - clat = $gap ns ($shape)"
    fi
  done
done
ok "null: no slat at iodepth=1; at 8 slat on every I/O and lat = slat + clat, as fio: $(jq -c '.jobs[0].read | [.slat_ns.mean, .clat_ns.mean, .lat_ns.mean]' nl8.json) ns"

# group_reporting's text: a group whose first job only writes shows the
# reads of its second job, and jobs=2, as fio's normal output (fio 3.33:
# "w: (groupid=0, jobs=2)", a read and a write section, READ and WRITE run
# status lines); iofleet printed jobs=1 and no read section.
printf '[global]\nioengine=null\nsize=64m\ngroup_reporting\n[w]\nrw=write\n[r]\nrw=read\n' >gr.fio
"$AGENT" run gr.fio >gr.txt 2>gr.err || fail "group_reporting text: $(cat gr.err)"
fio gr.fio >gr.fio.txt 2>/dev/null || fail "group_reporting text: fio exited non-zero"
shape () { grep -oE '^[a-z]+: \(groupid=[0-9]+, jobs=[0-9]+\)|^  (read|write|trim): IOPS|^ *(READ|WRITE|TRIM): bw' "$1"; }
[ "$(shape gr.txt)" = "$(shape gr.fio.txt)" ] \
  || fail "group_reporting text: iofleet's sections $(shape gr.txt | tr '\n' '|'), fio's $(shape gr.fio.txt | tr '\n' '|')"
grep -q 'issued rwts: total=16384,16384,0,0' gr.txt || fail "group_reporting text: $(grep issued gr.txt)"
"$AGENT" run --output-format json gr.fio >gr.json 2>/dev/null || fail "group_reporting JSON"
jq -e '(.jobs | length) == 1 and (.jobs[0] | .read.total_ios == 16384 and .write.total_ios == 16384
       and .read.bw_bytes > 0 and .read.iops > 0 and .write.iops > 0)' gr.json >/dev/null \
  || fail "group_reporting JSON: $(jq -c '.jobs[0] | [.read.total_ios, .read.bw_bytes, .read.iops, .write.total_ios]' gr.json)"
ok "group_reporting text: $(shape gr.txt | tr '\n' '|') as fio's"

# What goes where: fio 3.33 laying out a new file prints its notice on
# stdout ("lay: Laying out IO file (1 file / 16MiB)") and nothing on stderr;
# with --output-format=json it prints neither. iofleet-agent run prints its
# layout line on stdout in text, nothing beside the JSON, and stderr stays
# empty in both (it held the layout's progress and an iodepth hint).
printf '[lay]\nioengine=psync\nrw=read\nsize=16m\nfilename=lay.dat\n' >lay.fio
for fmt in normal json; do
  rm -f lay.dat
  fio --output-format=$fmt lay.fio >lay.fio.$fmt 2>lay.fio.$fmt.err || fail "fio layout ($fmt)"
  [ ! -s lay.fio.$fmt.err ] || fail "fio wrote to stderr ($fmt): $(cat lay.fio.$fmt.err)"
done
grep -q '^lay: Laying out IO file' lay.fio.normal || fail "fio's layout notice not on stdout: $(head -5 lay.fio.normal)"
rm -f lay.dat
"$AGENT" run lay.fio >lay.out 2>lay.err || fail "layout run: $(cat lay.err)"
[ ! -s lay.err ] || fail "layout run (text): stderr not empty: $(cat lay.err)"
grep -q "^laying out .*lay.dat: 16.0 MiB" lay.out || fail "layout notice not on stdout: $(head -3 lay.out)"
rm -f lay.dat
"$AGENT" run --output-format json lay.fio >lay.json 2>lay.err || fail "layout run json: $(cat lay.err)"
[ ! -s lay.err ] || fail "layout run (json): stderr not empty: $(cat lay.err)"
jq -e '.jobs[0].read.total_ios == 4096' lay.json >/dev/null || fail "layout run: stdout is not the JSON alone: $(head -c 200 lay.json)"
ok "a new file's layout: $(grep '^laying out' lay.out | sed 's|/.*/||') on stdout, as fio's notice; stderr empty"
