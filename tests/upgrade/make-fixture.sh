#!/usr/bin/env bash
# make-fixture.sh REV OUTDIR: a database made by iofleet at commit REV, for
# tests/e2e/test_upgrade.sh (not run by the test suite; see
# tests/fixtures/upgrade/README.md).
#
# Builds REV (git archive of this repository, Release, only the three
# programs) in a temporary directory, runs a small real fleet with THOSE
# binaries: a controller on a temporary database, 2 local agents reading a
# fixture /sys and /proc (so no detail of the host that made it lands in
# the fixture), one run of a 2-step plan (4k random read, 4k random write,
# 2 s each on 16 MiB files, direct=1).  Then records, with REV's CLI, what
# it says about that run: the report in every format it has but html, the
# run list, the plan list and the history.  Writes into OUTDIR, V being the
# database's schema version:
#   schemaV.db                     the database, checkpointed and vacuumed
#   schemaV.report-RUN.json|.txt|.csv|.fio.json|.fio-plus.json
#   schemaV.runs.json|.txt, schemaV.plans.json, schemaV.history.json|.txt
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 REV OUTDIR" >&2; exit 2; }
REV=$1
OUT=$2
for c in git cmake sqlite3 jq; do
  command -v "$c" >/dev/null || { echo "$0: needs $c" >&2; exit 1; }
done
SRC=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
SHA=$(git -C "$SRC" rev-parse --verify "$REV^{commit}")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# O_DIRECT needs a real file system: not tmpfs.
W=$(mktemp -d "${TMPDIR:-/var/tmp}/iofleet-fixture.XXXXXX")
PIDS=()
cleanup () {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ $rc -ne 0 ]; then
    for f in "$W"/run/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done >&2
  fi
  rm -rf "$W"
  exit $rc
}
trap cleanup EXIT INT TERM

echo "building $SHA in $W"
mkdir -p "$W/src" "$W/run"
git -C "$SRC" archive "$SHA" | tar -x -C "$W/src"
cmake -S "$W/src" -B "$W/build" -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log"
cmake --build "$W/build" -j "$(nproc)" --target iofleet-controller iofleet-agent iofleet \
  >>"$W/cmake.log" || { tail -n 30 "$W/cmake.log" >&2; exit 1; }
B=$W/build/bin
R=$W/run
HW=$W/src/tests/fixtures/sysfs/nvme
export IOFLEET_CONTROLLER="ipc://$R/admin.sock"
I="$B/iofleet"

"$B/iofleet-controller" --db "$R/iofleet.db" --listen "tcp://127.0.0.1:*" \
  --admin "$IOFLEET_CONTROLLER" --port-file "$R/agent-endpoint" >"$R/controller.log" 2>&1 &
CTL=$!
PIDS+=("$CTL")                   # each one stopped by cleanup from the moment it runs
for _ in $(seq 100); do [ -s "$R/agent-endpoint" ] && break; sleep 0.05; done
[ -s "$R/agent-endpoint" ] || { echo "$0: the controller did not start" >&2; exit 1; }
AGENTS=()
for k in 1 2; do
  mkdir -p "$R/agent-$k"
  "$B/iofleet-agent" --controller "$(cat "$R/agent-endpoint")" --name "agent-$k" \
    --label "rack=r$k" --workdir "$R/agent-$k" --spool-dir "$R/agent-$k.spool" \
    --sysfs-root "$HW/sys" --procfs-root "$HW/proc" --etc-root "$HW/etc" \
    >"$R/agent-$k.log" 2>&1 &
  AGENTS+=("$!")
  PIDS+=("$!")
done
n=0
for _ in $(seq 100); do
  n=$("$I" agents --json 2>/dev/null | jq '[.[] | select(.connected)] | length' || echo 0)
  [ "$n" -ge 2 ] && break
  sleep 0.1
done
[ "$n" -ge 2 ] || { echo "$0: only $n of 2 agents connected" >&2; exit 1; }

cat >"$R/upgrade.fio" <<'PLAN'
; Two steps of 2 s on a 16 MiB file in each agent's workdir.
[global]
stonewall
ioengine=libaio
direct=1
filename=upgrade.dat
size=16m
bs=4k
iodepth=4
runtime=2
time_based

[randread-4k-qd4]
rw=randread

[randwrite-4k-qd4]
rw=randwrite
PLAN
# Relative: the plan keeps the name it was added by.
(cd "$R" && "$I" plan add upgrade upgrade.fio >/dev/null)
RUN=$("$I" run upgrade --agents all --wait --json 2>"$R/run.err" | jq -r .run)
st=$("$I" runs --json | jq -r --argjson r "$RUN" '.[] | select(.id == $r) | .status')
[ "$st" = complete ] || { echo "$0: run $RUN ended $st" >&2; cat "$R/run.err" >&2; exit 1; }
V=$(sqlite3 "$R/iofleet.db" 'SELECT MAX(version) FROM schema_version')
P="$OUT/schema$V"
echo "run $RUN complete; database schema $V"

# What REV's CLI says; a format it does not have is left out.
record () {
  local file=$1; shift
  if "$I" "$@" >"$file.tmp" 2>"$R/record.err"; then
    mv "$file.tmp" "$file"
    echo "recorded: iofleet $* > $(basename "$file")"
  else
    rm -f "$file.tmp"
    echo "not recorded (this version has no such command?): iofleet $*: $(head -c 200 "$R/record.err")"
  fi
}
rm -f "$P".*
record "$P.report-$RUN.json" report "$RUN" --format json
record "$P.report-$RUN.txt" report "$RUN"
record "$P.report-$RUN.csv" report "$RUN" --format csv
record "$P.report-$RUN.fio.json" report "$RUN" --format fio-json
record "$P.report-$RUN.fio-plus.json" report "$RUN" --format fio-json+
record "$P.runs.json" runs --json
record "$P.runs.txt" runs
record "$P.plans.json" plan list --json
record "$P.history.json" history --format json
record "$P.history.txt" history

# Stop everything, then one file: the WAL copied in, free pages dropped.
for p in "${AGENTS[@]}"; do kill -TERM "$p"; wait "$p" || true; done
kill -TERM "$CTL"
wait "$CTL" || { echo "$0: the controller exited with $? on SIGTERM" >&2; exit 1; }
PIDS=()
sqlite3 "$R/iofleet.db" 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;' >/dev/null
[ "$(sqlite3 "$R/iofleet.db" 'PRAGMA integrity_check')" = ok ]
rm -f "$R/iofleet.db-wal" "$R/iofleet.db-shm"
cp "$R/iofleet.db" "$P.db"
chmod 0644 "$P".*
echo "wrote $P.db ($(stat -c %s "$P.db") bytes) from $SHA"
