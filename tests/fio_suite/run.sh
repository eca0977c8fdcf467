#!/usr/bin/env bash
# fio 3.33's own regression suite (t/jobs t0001..t0026 with
# t/run-fio-tests.py's checks, unchanged) run against `iofleet-agent run`
# through fio-shim.  See README.md.
#
#   run.sh             iofleet against known.txt: a test not listed there
#                      must pass, a listed one must still fail (a test
#                      that starts passing fails the suite until its line
#                      is removed, so the list cannot go stale)
#   run.sh --table     fio and iofleet side by side (no verdict)
#
# fio's source comes from Debian's source package of the installed fio
# (apt-get source, with deb-src entries made from this machine's own apt
# sources), cached in FIO_SUITE_SRC (default build/fio-src); where it
# cannot be had the suite skips (77) saying why.  Nothing of fio's is kept
# in the repository.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${IOFLEET_BIN:?IOFLEET_BIN: the directory of iofleet-agent}
SRC=${FIO_SUITE_SRC:-$BIN/../fio-src}
TABLE=0
[ "${1:-}" = --table ] && TABLE=1
skip () { echo "skip: $*"; exit 77; }
command -v fio >/dev/null || skip "no fio installed (Debian's package fio)"
command -v python3 >/dev/null || skip "no python3"
ver=$(fio --version | sed 's/^fio-//')
T=$(mktemp -d "${TMPDIR:-/var/tmp}/iofleet-fio-suite.XXXXXX")
trap 'rm -rf "$T"' EXIT

# fio's source: the t/ of the installed version.
if [ ! -f "$SRC/fio-$ver/t/run-fio-tests.py" ]; then
  mkdir -p "$T/apt/parts" "$T/apt/lists/partial" "$SRC"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$T/apt/parts/$(basename "$f")"
  done
  [ -f /etc/apt/sources.list ] && grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
    >"$T/apt/parts/from-sources-list.list"
  opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$T/apt/parts"
        -o "Dir::State::Lists=$T/apt/lists" -o Debug::NoLocking=1)
  apt-get "${opts[@]}" update >"$T/apt.log" 2>&1 || skip "apt-get update of deb-src failed: $(tail -1 "$T/apt.log")"
  (cd "$T" && apt-get "${opts[@]}" source --download-only "fio=$ver*" >>"$T/apt.log" 2>&1) \
    || (cd "$T" && apt-get "${opts[@]}" source --download-only fio >>"$T/apt.log" 2>&1) \
    || skip "apt-get source fio failed: $(tail -1 "$T/apt.log")"
  orig=$(ls "$T"/fio_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$orig" ] || skip "no fio orig tarball in the source package"
  tar -xf "$orig" -C "$SRC" "fio-$ver/t" || skip "fio-$ver/t not in $(basename "$orig")"
fi
ROOT=$SRC/fio-$ver

# Sized for a CI machine (the suite's jobs write up to 4 GiB); the same
# caps for fio in --table.  (t0009's minute is kept: its check is that the
# job ran at least 60 s.)
export FIO_SUITE_CAPS="t0002-:size=1G>256m;t0006-:size=4g>512m"
export IOFLEET_BIN=$BIN
# t0010 and t0013 hang in fio 3.33 itself (io_submit_mode=offload).
TESTS=$(seq 1 26 | grep -vxE '10|13' | tr '\n' ' ')

suite () {   # NAME: runs the suite, prints "id result" lines to $T/NAME.res
  (cd "$T" && timeout 1200 python3 "$ROOT/t/run-fio-tests.py" -k -r "$ROOT" -f "$HERE/fio-shim" \
      -a "$T/art-$1" --run-only $TESTS) >"$T/$1.log" 2>&1
  grep -oE '^Test [0-9]+ (PASSED|FAILED|SKIPPED)' "$T/$1.log" | awk '$2 < 1000 {print $2, $3}' \
    | grep -v ' SKIPPED$' | sort -n >"$T/$1.res"
}

if [ $TABLE = 1 ]; then
  FIO_SUITE_REAL=$(command -v fio) suite fio
  suite iofleet
  printf '%-6s %-8s %-8s\n' test fio iofleet
  join <(sort "$T/fio.res") <(sort "$T/iofleet.res") | sort -n | awk '{printf "t%04d  %-8s %-8s\n", $1, $2, $3}'
  echo "fio: $(grep -c PASSED "$T/fio.res") passed; iofleet: $(grep -c PASSED "$T/iofleet.res") passed"
  exit 0
fi

suite iofleet
[ -s "$T/iofleet.res" ] || { tail -20 "$T/iofleet.log"; echo "FAIL: the suite printed no results"; exit 1; }
bad=0 npass=0 nknown=0
while read -r id res; do
  reason=$(awk -v id="$id" '$1 == id { $1 = ""; sub(/^ /, ""); print }' "$HERE/known.txt")
  if [ -z "$reason" ] && [ "$res" != PASSED ]; then
    echo "FAIL: t$(printf %04d "$id") $res through iofleet (not a known difference):"
    sed -n "/^Test $id /,/^Test /p" "$T/iofleet.log" | head -20
    bad=1
  elif [ -n "$reason" ] && [ "$res" = PASSED ]; then
    echo "FAIL: t$(printf %04d "$id") passes now: remove its line from tests/fio_suite/known.txt ($reason)"
    bad=1
  elif [ -n "$reason" ]; then
    nknown=$((nknown + 1))
  else
    npass=$((npass + 1))
  fi
done <"$T/iofleet.res"
echo "fio's suite through iofleet: $npass passed, $nknown known differences (known.txt), of $(wc -l <"$T/iofleet.res") run (t0010, t0013 left out: they hang in fio $ver)"
exit $bad
