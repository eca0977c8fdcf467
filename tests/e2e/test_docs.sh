# The documentation's own examples, run: every fenced shell block
# (```sh or ```bash) of README.md and docs/guide/*.md, in the order
# written, so that no command shown to a reader can fail unseen.
#
# - README.md's blocks run as a reader pastes them into a fresh shell: no
#   controller is given (IOFLEET_CONTROLLER unset); its recipe starts and
#   stops its own.
# - Each docs/guide/NN-*.md gets a fresh fleet of its own: a controller
#   (database iofleet.db in the working directory) and three agents a1, a2,
#   a3 labelled rack=r12, each on files in its --workdir, with
#   IOFLEET_CONTROLLER set; its blocks run one after another against it, so
#   a chapter's runs are numbered from 1.
# - Every block runs in a bash of its own (-e -o pipefail) in its own
#   process group, which is killed when it ends, with `plans`, `tests` and
#   `build` of a scratch working directory leading to this tree and build.
# - A block whose info string says no-test (```sh no-test: REASON) is
#   counted as skipped, never run: root-only racks, other hosts, packages.
#
# It also checks that docs/reference/cli.md is what `iofleet help
# --markdown` prints from the command table, and that no block is marked
# no-test without a reason.  The summary line says how many blocks ran,
# passed and were skipped; any failure fails the test.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fleet_setup
export PATH="$BIN:$PATH"
BLOCK_TIMEOUT=${IOFLEET_DOCS_BLOCK_TIMEOUT:-180}

# --- the reference page --------------------------------------------------
"$BIN/iofleet" help --markdown >"$T/cli.md"
if ! diff -u "$ROOT/docs/reference/cli.md" "$T/cli.md" >"$T/cli.diff"; then
  head -n 40 "$T/cli.diff" >&2
  fail "docs/reference/cli.md is not what 'iofleet help --markdown' prints: run it (iofleet help --markdown > docs/reference/cli.md) and commit the page"
fi
ok "docs/reference/cli.md is iofleet help --markdown's output"

# --- extracting the blocks ----------------------------------------------
# extract FILE DIR: writes DIR/NNN.sh (runnable) or DIR/NNN.skip (no-test),
# each starting with a "# FILE:LINE" comment; a fence may be indented (a
# block inside a list item), its indentation is taken off every line.
extract () {
  awk -v file="$1" -v dir="$2" '
    function flush() { close(out) }
    !inb && match($0, /^ *```(sh|bash)([ \t:].*)?$/) {
      inb = 1; n++; ind = index($0, "`") - 1
      info = substr($0, ind + 4)
      kind = (info ~ /(^|[ \t])no-test/) ? "skip" : "sh"
      if (kind == "skip" && info !~ /no-test:?[ \t]*[^ \t]/) {
        print "no-test without a reason at " file ":" NR > "/dev/stderr"; bad = 1
      }
      out = sprintf("%s/%03d.%s", dir, n, kind)
      printf "# %s:%d\n", file, NR > out
      next
    }
    inb && $0 ~ /^ *```[ \t]*$/ { inb = 0; flush(); next }
    inb { line = $0; if (substr(line, 1, ind) ~ /^ *$/) line = substr(line, ind + 1); print line > out }
    END { if (inb) { print "unclosed fence in " file > "/dev/stderr"; exit 1 } exit bad }
  ' "$ROOT/$1"
}

# --- running them --------------------------------------------------------
RAN=0 PASSED=0 SKIPPED=0 FAILED=()

# run_blocks DIR WORKDIR: runs DIR's blocks in order in WORKDIR.
run_blocks () {
  local dir=$1 wd=$2 b where rc pg
  for b in $(ls "$dir" | sort); do
    where=$(head -n 1 "$dir/$b" | sed 's/^# //')
    if [[ $b == *.skip ]]; then
      SKIPPED=$((SKIPPED + 1))
      continue
    fi
    RAN=$((RAN + 1))
    ( cd "$wd" && exec setsid timeout --kill-after=5 "$BLOCK_TIMEOUT" bash -e -o pipefail "$dir/$b" ) \
        >"$dir/$b.out" 2>&1 &
    pg=$!
    rc=0; wait "$pg" || rc=$?
    # Whatever the block left running (a daemon started with &) goes now.
    kill -TERM -- "-$pg" 2>/dev/null || true
    sleep 0.2
    kill -KILL -- "-$pg" 2>/dev/null || true
    if [ "$rc" -eq 0 ]; then
      PASSED=$((PASSED + 1))
      echo "ok: $where"
    else
      FAILED+=("$where")
      echo "FAIL: $where (exit $rc):" >&2
      sed 's/^/    /' "$dir/$b" >&2
      echo "  output:" >&2
      tail -n 30 "$dir/$b.out" | sed 's/^/    /' >&2
    fi
  done
}

# workdir NAME: a scratch directory whose plans/, tests/ and build/ are
# this tree's and the build's, as a reader at the top of a built clone has.
workdir () {
  local wd="$T/$1"
  mkdir -p "$wd"
  ln -s "$ROOT/plans" "$wd/plans"
  ln -s "$ROOT/tests" "$wd/tests"
  ln -s "$(cd "$BIN/.." && pwd)" "$wd/build"
  echo "$wd"
}

# IOFLEET_DOCS_ONLY=PATTERN (a grep -E pattern on the file's path, while
# writing a chapter) runs only the files it matches.
only () { [ -z "${IOFLEET_DOCS_ONLY:-}" ] || grep -qE "$IOFLEET_DOCS_ONLY" <<<"$1"; }

# The README: as pasted into a fresh shell.
if only README.md; then
mkdir -p "$T/blocks-README"
extract README.md "$T/blocks-README" || fail "README.md: bad fences"
WD=$(workdir readme)
( unset IOFLEET_CONTROLLER; run_blocks "$T/blocks-README" "$WD"; declare -p RAN PASSED SKIPPED FAILED >"$T/readme.counts" )
. "$T/readme.counts"
fi

# The guide: a chapter, a fleet.
for md in "$ROOT"/docs/guide/*.md; do
  name=$(basename "$md" .md)
  only "docs/guide/$name.md" || continue
  mkdir -p "$T/blocks-$name"
  extract "docs/guide/$name.md" "$T/blocks-$name" || fail "docs/guide/$name.md: bad fences"
  if ! ls "$T/blocks-$name" | grep -q '\.sh$'; then
    SKIPPED=$((SKIPPED + $(ls "$T/blocks-$name" | grep -c '\.skip$' || true)))
    continue
  fi
  WD=$(workdir "$name")
  export IOFLEET_CONTROLLER="ipc://$T/$name.admin.sock"
  DB="$WD/iofleet.db" start_controller
  FLEET=("$CTL_PID")
  for a in a1 a2 a3; do
    start_agent "$a" --label rack=r12
    FLEET+=("${PIDS[-1]}")
  done
  wait_agents 3
  run_blocks "$T/blocks-$name" "$WD"
  for p in "${FLEET[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${FLEET[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
  rm -rf "$T/a1" "$T/a2" "$T/a3" "$T"/a?.spool
done

echo "docs examples: $RAN run, $PASSED passed, ${#FAILED[@]} failed, $SKIPPED skipped (no-test)"
[ ${#FAILED[@]} -eq 0 ] || fail "examples that failed: ${FAILED[*]}"
[ "$RAN" -gt 0 ] || fail "no example ran"
ok "every runnable example of README.md and docs/guide/ passed"
