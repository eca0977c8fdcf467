#!/usr/bin/env bash
# Upgrades: a database made by an older iofleet (tests/fixtures/upgrade:
# schemaV.db, made by the controller of schema V itself, with what that
# version's CLI said about its run next to it) migrates when the current
# controller starts on it, after a backup:
#  - the log names the migration and the backup; the backup is a checked
#    copy of the old database (same .dump, still schema V);
#  - the migrated database is at the newest schema of schemas/;
#  - every recorded output of the old CLI (report in json, text, csv,
#    fio-json, fio-json+; runs; plan list; history) is what the current
#    CLI prints, before and after a restart, and the restart neither
#    migrates nor backs up again;
#  - an existing backup is never overwritten (a timestamped name instead);
#  - (root) when the backup cannot be written (a full file system), the
#    controller refuses to start, says why and what to do, and leaves the
#    database as it was.
#
# Text is compared as it is; JSON parsed, keys sorted (python3, exact
# integers): since schema 12 the CLI passes the report's JSON through as
# the controller wrote it, compact and with "verdict" first.  Normalized,
# and nothing else (see jcmp):
#  - "fio version" of fio-json and fio-json+ names the controller that
#    wrote the output ("iofleet-VERSION"): the old one's must be an
#    iofleet release, the new one's this controller's;
#  - fields added since: in the report, a group's "intervals" gained
#    agents, start_ns, end_ns, read.bytes, read.histogram_count,
#    write.bytes and write.histogram_count in 9fe5ea8 (schema 11: the
#    group of the whole fleet is the step's own series).  They are removed
#    from the new output only where the old output lacks them (schema 10),
#    after checking that the "all" group's series is the step's series;
#  - in the report, "failed_by" and a step's "health" (drive health:
#    every drive "not sent" for a run before it), removed where the old
#    output lacks them;
#  - in the report, a step's "members" and "refused_agents" and a group's
#    "agents", "iops_per_agent", "iops_per_target", "bw_per_agent" and
#    "bw_per_target" (compare per member, refused agents named as such),
#    removed from the new output where the old output lacks them, after
#    checking that the per-member figures are the totals over the counts.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
UP=$FIXTURES/upgrade
SCHEMAS=$FIXTURES/../../schemas
NEWEST=$(find "$SCHEMAS" -maxdepth 1 -name '[0-9]*_*.sql' -printf '%f\n' \
         | sed 's/_.*//; s/^0*//' | sort -n | tail -1)
[ -n "$NEWEST" ] || fail "no migrations in $SCHEMAS"
fleet_setup
I="$BIN/iofleet"

# jcmp OLD NEW: the old version's JSON output OLD and the current one's
# NEW are the same but for what the header says is normalized; prints a
# diff and returns 1 otherwise.
jcmp () {
  python3 - "$1" "$2" "$CUR" <<'PY'
import difflib, json, sys
old = json.load(open(sys.argv[1]))
new = json.load(open(sys.argv[2]))
cur = sys.argv[3]
if isinstance(old, dict) and "fio version" in old:
    if not str(old["fio version"]).startswith("iofleet-"):
        sys.exit("old fio version %r" % old["fio version"])
    if new.get("fio version") != "iofleet-" + cur:
        sys.exit("new fio version %r, this controller is %s" % (new.get("fio version"), cur))
    old["fio version"] = new["fio version"]
# Added to a group's intervals in 9fe5ea8.
ADDED = ["agents", "start_ns", "end_ns", "read.bytes", "read.histogram_count",
         "write.bytes", "write.histogram_count"]
if isinstance(old, dict) and isinstance(new, dict):
    for so, sn in zip(old.get("steps", []), new.get("steps", [])):
        for go, gn in zip(so.get("groups", []), sn.get("groups", [])):
            if gn.get("by") == "all" and gn.get("intervals") != sn.get("intervals"):
                sys.exit("step %s: the fleet group's series is not the step's" % sn.get("index"))
            for io, iv in zip(go.get("intervals", []), gn.get("intervals", [])):
                for k in ADDED:
                    *path, leaf = k.split(".")
                    a, b = io, iv
                    for q in path:
                        a, b = a.get(q, {}), b.get(q, {})
                    if leaf not in a:
                        b.pop(leaf, None)
# Added to each row of runs --json (labels, note, origin) and plan list
# --json (runs) in 0.3.0: a row the old version printed without them
# is compared without them.
LISTED = ["labels", "note", "origin", "runs"]
if isinstance(old, list) and isinstance(new, list):
    for ro, rn in zip(old, new):
        if isinstance(ro, dict) and isinstance(rn, dict):
            for k in LISTED:
                if k not in ro:
                    rn.pop(k, None)
# Added to history in 0.3.0: the metric's unit, which the text is formatted by.
if isinstance(old, dict) and isinstance(new, dict) and "metric" in old and "unit" not in old:
    if not isinstance(new.get("unit"), str) or not new["unit"]:
        sys.exit("history without its metric's unit: %r" % new.get("unit"))
    new.pop("unit")
# Added to history with its index (issue 24): how many steps the index
# gave and how many were computed; an upgraded database is indexed while
# the controller idles, so either may be 0, never both when rows came.
if isinstance(old, dict) and isinstance(new, dict) and "metric" in old and "steps" not in old:
    st = new.get("steps")
    if not isinstance(st, dict) or not all(isinstance(st.get(k), int) for k in ("indexed", "computed")):
        sys.exit("history without its steps' origin: %r" % st)
    if new.get("rows") and st["indexed"] + st["computed"] == 0:
        sys.exit("history rows from no step: %r" % st)
    new.pop("steps")
# Added to steps and groups with compare per member.
def per_member_ok(o, m):
    for unit in ("agent", "target"):
        n = m.get(unit + "s", 0)
        for k in ("iops", "bw"):
            total = sum((o.get(d) or {}).get(k, 0) for d in ("read", "write", "trim"))
            if n and abs(m["%s_per_%s" % (k, unit)] * n - total) > 1e-6 * (total + 1):
                sys.exit("%s_per_%s of %s is not the total over %d" % (k, unit, o.get("name") or o.get("value"), n))
MEMBERS = ["agents", "iops_per_agent", "iops_per_target", "bw_per_agent", "bw_per_target"]
if isinstance(old, dict) and isinstance(new, dict):
    for so, sn in zip(old.get("steps", []), new.get("steps", [])):
        if "members" in sn:
            per_member_ok(dict(sn.get("fleet", {}), name=sn.get("name")), sn["members"])
        for k in ("members", "refused_agents"):
            if k not in so:
                sn.pop(k, None)
        for go, gn in zip(so.get("groups", []), sn.get("groups", [])):
            per_member_ok(gn, gn)
            for k in MEMBERS:
                if k not in go:
                    gn.pop(k, None)
# Added with drive health (issue 25): the report's "failed_by" (what
# failed a verdict: none here) and a step's "health", which for a run of
# agents that sent no health says so of every drive and nothing else.
if isinstance(old, dict) and isinstance(new, dict) and "verdict" in old:
    if "failed_by" not in old:
        if new.pop("failed_by", None) != [] and old.get("verdict") != "fail":
            sys.exit("failed_by on a run that did not fail")
    for so, sn in zip(old.get("steps", []), new.get("steps", [])):
        if "health" not in so and "health" in sn:
            h = sn.pop("health")
            if (h["not_sent"] != h["drives_total"] or h["reporting"] != 0
                    or h["temperature"] is not None or "rule" in h):
                sys.exit("step %s: health of a run before health records: %r" % (sn.get("index"), h))
# Added with the gaps (issue 40): a run from before them had none named,
# and no --tolerate-gaps: the report says so and nothing else changes.
if isinstance(old, dict) and isinstance(new, dict) and "verdict" in old:
    if "tolerate_gaps" not in old and new.pop("tolerate_gaps", None) is not False:
        sys.exit("tolerate_gaps of a run before --tolerate-gaps is not false")
    for so, sn in zip(old.get("steps", []), new.get("steps", [])):
        if "gaps" not in so:
            if sn.pop("gaps", None) != [] or not isinstance(sn.pop("gap_rule", None), str):
                sys.exit("step %s: gaps of a run before gaps were kept" % sn.get("index"))
a = json.dumps(old, sort_keys=True, indent=1).splitlines()
b = json.dumps(new, sort_keys=True, indent=1).splitlines()
d = list(difflib.unified_diff(a, b, "old", "new", lineterm="", n=2))
print("\n".join(d[:60]))
sys.exit(1 if d else 0)
PY
}
# `iofleet runs` text: 0.3.0 added the time, the plan's version and the
# labels and note, on purpose; every row must still say what the old one
# said (id, plan, status, agents, message).
runs_cmp () {
  python3 - "$1" "$2" <<'PY'
import re, sys
old = open(sys.argv[1]).read().splitlines()[1:]
new = open(sys.argv[2]).read().splitlines()[1:]
if len(old) != len(new):
    sys.exit("%d rows, the old version printed %d" % (len(new), len(old)))
for o, n in zip(old, new):
    m = re.match(r"\s*(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s*(.*)$", o)
    w = re.match(r"\s*(\d+)\s+\S+ \S+ UTC\s+(\S+) \(v\d+\)\s+(\S+)\s+(\d+)\s*(.*)$", n)
    if not m or not w or m.groups()[:4] != w.groups()[:4] or not w.group(5).endswith(m.group(5)):
        sys.exit("row differs:\n old: %s\n new: %s" % (o, n))
PY
}
# The release of the controller under test, as its fio-json names it.
CUR=$("$BIN/iofleet-controller" --version | awk '{ print $2 }')
[ -n "$CUR" ] || fail "iofleet-controller --version"

# same_outputs V: everything recorded next to schemaV.db is what the
# current CLI says now.
same_outputs () {
  local v=$1 f name run n=0
  for f in "$UP/schema$v".*; do
    name=${f#"$UP/schema$v."}
    case $name in
      db) continue ;;
      report-*) run=${name#report-}; run=${run%%.*} ;;
    esac
    case $name in
      report-*.fio-plus.json) "$I" report "$run" --format fio-json+ >"$T/got" ;;
      report-*.fio.json) "$I" report "$run" --format fio-json >"$T/got" ;;
      report-*.json) "$I" report "$run" --format json >"$T/got" ;;
      report-*.txt) "$I" report "$run" >"$T/got" ;;
      report-*.csv) "$I" report "$run" --format csv >"$T/got" ;;
      runs.json) "$I" runs --json >"$T/got" ;;
      runs.txt) "$I" runs >"$T/got" ;;
      plans.json) "$I" plan list --json >"$T/got" ;;
      history.json) "$I" history --format json >"$T/got" ;;
      history.txt) "$I" history >"$T/got" ;;
      *) fail "no rule to compare $f: add one to $0" ;;
    esac
    case $name in
      *.json) jcmp "$f" "$T/got" >"$T/diff" 2>&1 ;;
      runs.txt) runs_cmp "$f" "$T/got" >"$T/diff" 2>&1 ;;
      *) diff -u "$f" "$T/got" >"$T/diff" ;;
    esac || fail "schema $v: $name differs from what the old version printed:
$(head -n 60 "$T/diff")"
    n=$((n + 1))
  done
  [ "$n" -ge 5 ] || fail "schema $v: only $n recorded outputs"
  echo "$n"
}

dump () { sqlite3 "$1" .dump; }
version () { sqlite3 "$1" 'SELECT MAX(version) FROM schema_version'; }

# Stops the controller and forgets its pid (no stale pid for the trap).
stop_ctl () {
  stop_controller
  local keep=() p
  for p in "${PIDS[@]}"; do [ "$p" = "$CTL_PID" ] || keep+=("$p"); done
  PIDS=("${keep[@]}")
}

fixtures=$(find "$UP" -maxdepth 1 -name 'schema*.db' -printf '%f\n' | sed 's/^schema//; s/\.db$//' | sort -n)
[ -n "$fixtures" ] || fail "no fixtures in $UP"
for v in $fixtures; do
  [ "$v" -lt "$NEWEST" ] || fail "fixture schema$v.db is not older than the newest schema $NEWEST"
  d=$T/v$v
  mkdir "$d"
  # The fixture is only read through copies: SQLite writes beside a
  # database it opens (-wal, -shm), and the source tree stays as it is.
  cp "$UP/schema$v.db" "$d/fixture.db"
  cp "$UP/schema$v.db" "$d/iofleet.db"
  dump "$d/fixture.db" >"$d/fixture.dump"
  [ "$(version "$d/fixture.db")" = "$v" ] || fail "schema$v.db is at schema $(version "$d/fixture.db")"

  DB=$d/iofleet.db
  # --check-config says what a start will do, and writes nothing.
  "$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:1' --admin "ipc://$d/c.sock" \
    --check-config >"$d/check.out" 2>&1 || fail "schema $v: --check-config: $(cat "$d/check.out")"
  grep -qE "^# note: database $DB is at schema $v: starting will back it up \([0-9]+ bytes, [0-9]+ free\) and migrate it to $NEWEST$" "$d/check.out" \
    || fail "schema $v: --check-config note: $(cat "$d/check.out")"
  cmp -s "$DB" "$d/fixture.db" && [ "$(ls "$d")" = "$(printf 'check.out\nfixture.db\nfixture.dump\niofleet.db')" ] \
    || fail "schema $v: --check-config wrote something: $(ls "$d")"
  # What systemd would hear: the backup and each migration with a start
  # timeout extension, then READY.
  python3 - "$d/notify.sock" >"$d/notify.txt" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
try:
    while True:
        m = s.recv(4096).decode()
        print(m.replace("\n", " | "), flush=True)
        if "READY=1" in m:
            break
except socket.timeout:
    pass
PY
  NPID=$!
  for _ in $(seq 50); do [ -S "$d/notify.sock" ] && break; sleep 0.1; done
  export NOTIFY_SOCKET=$d/notify.sock
  start_controller
  unset NOTIFY_SOCKET
  wait "$NPID" || true
  grep -q "^STATUS=checking the backup $DB.schema$v.bak | EXTEND_TIMEOUT_USEC=600000000$" "$d/notify.txt" \
    || fail "schema $v: no backup progress for systemd: $(cat "$d/notify.txt")"
  for m in $(find "$SCHEMAS" -maxdepth 1 -name '[0-9]*_*.sql' -printf '%f\n' | sort | awk -F_ -v v="$v" '$1 + 0 > v'); do
    grep -q "^STATUS=database $DB: applying migration $m | EXTEND_TIMEOUT_USEC=3600000000$" "$d/notify.txt" \
      || fail "schema $v: migration $m not announced to systemd: $(cat "$d/notify.txt")"
  done
  tail -1 "$d/notify.txt" | grep -q "^READY=1" || fail "schema $v: READY not last: $(cat "$d/notify.txt")"
  bak=$DB.schema$v.bak
  grep -qF "database $DB: schema $v -> $NEWEST, backup written to $bak (" "$T/controller.log" \
    || fail "schema $v: no backup line in the log: $(grep -F "database $DB" "$T/controller.log")"
  line=$(grep -F "backup written to $bak" "$T/controller.log")
  # Backup first, then the migrations.
  grep -F "database $DB" "$T/controller.log" | head -1 | grep -qF "backup written" \
    || fail "schema $v: something came before the backup: $(grep -F "database $DB" "$T/controller.log")"
  [ -f "$bak" ] || fail "schema $v: no backup file $bak"
  [ "$(stat -c %a "$bak")" = 600 ] || fail "schema $v: backup mode $(stat -c %a "$bak")"
  bytes=$(sed -n 's/.*(\([0-9]*\) bytes)$/\1/p' <<<"$line")
  [ "$bytes" = "$(stat -c %s "$bak")" ] || fail "schema $v: the log says $bytes bytes, the backup has $(stat -c %s "$bak")"
  [ "$(sqlite3 "$bak" 'PRAGMA integrity_check')" = ok ] || fail "schema $v: the backup fails integrity_check"
  [ "$(version "$bak")" = "$v" ] || fail "schema $v: the backup is at schema $(version "$bak")"
  dump "$bak" | diff -q "$d/fixture.dump" - >/dev/null || fail "schema $v: the backup's .dump differs from the fixture's"
  [ "$(version "$DB")" = "$NEWEST" ] || fail "schema $v: migrated to $(version "$DB"), not $NEWEST"
  # Every migration after v, in order, each logged once.
  want=$(find "$SCHEMAS" -maxdepth 1 -name '[0-9]*_*.sql' -printf '%f\n' | sort \
         | awk -F_ -v v="$v" '$1 + 0 > v')
  got=$(sed -n "s|.*database $DB: applied migration ||p" "$T/controller.log")
  [ "$got" = "$want" ] || fail "schema $v: migrations applied: $(echo $got); expected $(echo $want)"
  ok "schema $v -> $NEWEST: ${line#*iofleet-controller I }; the backup holds the fixture as it was"

  # Schema 20: the rows of the old snapshots table, converted into
  # compressed blocks, read back the same through the snapshots table.
  cols="run_id, step_idx, agent_id, target, seq, t_start, t_end, read_ops, read_bytes, read_errors,
        hex(read_hist), hex(read_slat_hist), hex(read_lat_hist), write_ops, write_bytes,
        write_errors, hex(write_hist), hex(write_slat_hist), hex(write_lat_hist)"
  order="ORDER BY run_id, step_idx, agent_id, seq, target"
  command sqlite3 "$bak" "SELECT $cols FROM snapshots $order" >"$d/rows.old"
  sqlite3 "$DB" "SELECT $cols FROM snapshots $order" >"$d/rows.new"
  [ -s "$d/rows.old" ] || fail "schema $v: the fixture has no snapshots"
  cmp -s "$d/rows.old" "$d/rows.new" \
    || fail "schema $v: the converted snapshots differ: $(diff "$d/rows.old" "$d/rows.new" | head -4)"
  [ "$(command sqlite3 "$DB" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'snapshots_v19'")" = 0 ] \
    || fail "schema $v: snapshots_v19 left behind"
  grep -qF "database $DB: $(wc -l <"$d/rows.old") snapshot rows converted into compressed blocks" "$T/controller.log" \
    || fail "schema $v: no conversion line: $(grep -F "database $DB" "$T/controller.log")"
  grep -q "^STATUS=database $DB: converting the snapshots into compressed blocks | EXTEND_TIMEOUT_USEC=600000000$" "$d/notify.txt" \
    || fail "schema $v: the conversion not announced to systemd: $(cat "$d/notify.txt")"
  # Then rewritten at 16 KiB pages (blocks share pages), in WAL mode again.
  [ "$(command sqlite3 "$DB" 'PRAGMA page_size; PRAGMA journal_mode' | paste -sd' ')" = "16384 wal" ] \
    || fail "schema $v: page size and journal mode after the upgrade: $(command sqlite3 "$DB" 'PRAGMA page_size; PRAGMA journal_mode')"
  grep -qF "database $DB: rewritten at 16384-byte pages" "$T/controller.log" \
    || fail "schema $v: no rewrite line: $(grep -F "database $DB" "$T/controller.log")"
  ok "schema $v: its $(wc -l <"$d/rows.old") snapshot rows converted into $(command sqlite3 "$DB" "SELECT COUNT(*) FROM snapshot_blocks") blocks, read back the same; the file rewritten at 16 KiB pages"

  n=$(same_outputs "$v")
  ok "schema $v: the current CLI prints the old version's $n recorded outputs"

  # Restart: nothing to migrate, no second backup, the same outputs.
  stop_ctl
  mv "$T/controller.log" "$T/v$v-first.log"
  start_controller
  if grep -E "backup written|applied migration" "$T/controller.log"; then
    fail "schema $v: the restart migrated or backed up again"
  fi
  [ "$(find "$d" -name 'iofleet.db.schema*.bak' | wc -l)" = 1 ] || fail "schema $v: backups after the restart: $(ls "$d")"
  n=$(same_outputs "$v")
  stop_ctl
  mv "$T/controller.log" "$T/v$v-restart.log"
  ok "schema $v: restarted at schema $(version "$DB"): no migration, no backup, the same $n outputs"
done

# A new database has nothing to back up.
mkdir "$T/fresh"
DB=$T/fresh/iofleet.db
start_controller
stop_ctl
mv "$T/controller.log" "$T/fresh.log"
[ "$(version "$DB")" = "$NEWEST" ] || fail "a new database is at schema $(version "$DB")"
if grep -q "backup written" "$T/fresh.log" || ls "$T/fresh" | grep -q '\.bak$'; then
  fail "a new database was backed up: $(ls "$T/fresh")"
fi
[ "$(command sqlite3 "$DB" 'PRAGMA page_size')" = 16384 ] || fail "a new database's page size: $(command sqlite3 "$DB" 'PRAGMA page_size')"
ok "a new database starts at schema $NEWEST without a backup, at 16 KiB pages"

# A backup of that name exists already: it is kept, and the new one is
# timestamped.
v=$(head -1 <<<"$fixtures")
d=$T/again
mkdir "$d"
cp "$UP/schema$v.db" "$d/iofleet.db"
echo "an earlier backup" >"$d/iofleet.db.schema$v.bak"
# and what a copy killed half-way leaves: never taken for a backup
echo "half a copy" >"$d/iofleet.db.schema$v.bak.partial"
echo "its journal" >"$d/iofleet.db.schema$v.bak.partial-journal"
DB=$d/iofleet.db
start_controller
stop_ctl
mv "$T/controller.log" "$T/again.log"
[ "$(cat "$d/iofleet.db.schema$v.bak")" = "an earlier backup" ] || fail "an existing backup was overwritten"
bak=$(grep -o "backup written to $d/iofleet.db.schema$v.[0-9]*.bak" "$T/again.log" | sed 's/^backup written to //') \
  || fail "no timestamped backup: $(cat "$T/again.log")"
[ -f "$bak" ] && [ "$(version "$bak")" = "$v" ] || fail "timestamped backup $bak"
ls "$d" | grep -q partial && fail "a killed copy's leftovers stay: $(ls "$d")"
ok "an existing backup stays; the new one is $(basename "$bak"); a killed copy's .partial is removed"

# No room for the backup: a small tmpfs holds the database with half its
# size free.  The controller must refuse and leave the database alone.
if [ "$(id -u)" != 0 ]; then
  echo "skip: the refusal on a full file system needs root (mounts a tmpfs)"
  exit 0
fi
mkdir "$T/full"
size=$(stat -c %s "$UP/schema$v.db")
if ! mount -t tmpfs -o "size=$(( (size + size / 2 + 4095) / 4096 * 4 ))k,mode=0700" iofleet-test-upgrade "$T/full"; then
  echo "skip: cannot mount a tmpfs here (a container?): the refusal on a full file system is not tested"
  exit 0
fi
AT_EXIT+=("umount '$T/full'")
cp "$UP/schema$v.db" "$T/full/iofleet.db"
DB=$T/full/iofleet.db
# --check-config (the package runs it before restarting on an upgrade)
# sees it coming.
rc=0
"$BIN/iofleet-controller" --no-config --db "$DB" --listen 'tcp://127.0.0.1:1' --admin "ipc://$T/full.sock" \
  --check-config >"$T/fullcheck.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -qE "database $DB is at schema $v: starting must back it up before migrating it to $NEWEST, which needs [0-9]+ bytes where it is, and [0-9]+ are free; free space or move the database first" "$T/fullcheck.out" \
  || fail "--check-config on a database without room for its backup: exit $rc: $(cat "$T/fullcheck.out")"
rc=0
# No configuration file of this host, where the controller reads one.
nocfg=()
"$BIN/iofleet-controller" --help 2>&1 | grep -q -- --no-config && nocfg=(--no-config)
# Were it to start, it would run: timeout stops it (124).
timeout 20 "$BIN/iofleet-controller" "${nocfg[@]}" --db "$DB" --listen "tcp://127.0.0.1:*" \
  --admin "ipc://$T/full.sock" >"$T/refused.log" 2>&1 || rc=$?
# 3: the database cannot be used; the unit does not restart on it.
[ "$rc" = 3 ] || fail "the controller exited $rc without room for its backup, not 3"
msg=$(cat "$T/refused.log")
for want in "database $DB: schema $v -> $NEWEST needs a backup first" "$DB.schema$v.bak" \
            "database or disk is full" "The database was not touched (still schema $v)" \
            "Free space where the backup goes (it needs about " "move the database"; do
  grep -qF "$want" <<<"$msg" || fail "refusal lacks '$want': $msg"
done
if grep -q "applied migration" <<<"$msg"; then fail "migrated without a backup: $msg"; fi
cmp -s "$DB" "$UP/schema$v.db" || fail "the database changed although the controller refused"
[ "$(version "$DB")" = "$v" ] || fail "refused, yet at schema $(version "$DB")"
dump "$DB" | diff -q "$T/v$v/fixture.dump" - >/dev/null || fail "the refused database's .dump changed"
left=$(ls "$T/full" | grep -v '^iofleet\.db$' || true)
[ -z "$left" ] || fail "left beside the refused database: $left"
ok "no room for the backup: exit $rc, '$(grep -o "could not be written.*touched[^.]*" <<<"$msg")'; database unchanged"
