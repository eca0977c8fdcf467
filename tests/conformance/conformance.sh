#!/usr/bin/env bash
# The differential conformance suite against fio: every case of cases.py
# runs the same job file under fio and under `iofleet-agent run` on the same
# loop device, each under strace, and compares what the two issued (the
# io_submit iocbs and pread64/pwrite64 calls on the device, as the kernel
# was asked), not either tool's own log.  A case marked "fleet" also runs
# as a plan on a fleet of one (a controller, and an agent under strace),
# held to the same checks.  See docs/conformance.md.
#
# usage: tests/conformance/conformance.sh [CASE...]   (IOFLEET_BIN: default build/bin)
#
# Root only (a loop device): exits 77 (ctest's skip code) with a "skip:"
# line otherwise, or without fio or strace.  The loop device and its file
# are removed on exit, pass or fail.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${IOFLEET_BIN:-$here/../../build/bin}

if [ "$(id -u)" -ne 0 ]; then echo "skip: needs root (loop device)"; exit 77; fi
for t in fio strace losetup python3; do
  command -v "$t" >/dev/null || { echo "skip: $t is not installed (scripts/install-deps)"; exit 77; }
done

work=$(mktemp -d /var/tmp/iofleet-conformance.XXXXXX)
# The loop device's file is in memory (tmpfs, which takes O_DIRECT since
# Linux 6.6): the timing cases (rate, rate_min, latency_target) pace against
# the device, and on the machine's shared disk a read's latency moved with
# whatever else was writing back (CI: fio itself 550 IOPS at a rate of 1000,
# iofleet 716 IOPS under a throttle of 1000).  What the tools issue does
# not change: both open the loop device O_DIRECT.
img=
loop=
cleanup () {
  # A fleet case's controller and agent, should the harness itself die.
  pkill -TERM -f -- "$work/" 2>/dev/null || true
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null || true
  [ -n "$img" ] && rm -f "$img"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=$work
img=$(mktemp "$shm/iofleet-conformance.XXXXXX.img")
truncate -s 64M "$img"
loop=$(losetup --direct-io=on -f --show "$img")

# The harness is several modules: no bytecode caches in the source tree.
PYTHONDONTWRITEBYTECODE=1 python3 "$here/conformance.py" --agent "$bin/iofleet-agent" --device "$loop" --work "$work" "$@"
