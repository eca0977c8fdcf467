#!/usr/bin/env bash
# layers.sh: no two files of a program call each other in a loop (issue
# 21).  From the compiled objects of one directory (nm: what each file
# defines and what it calls), the graph of file -> file calls; any cycle
# fails the test and is printed.  With RULES (a file with a line
# "Layers: a < b < c", docs/design.md), a program in folders (the
# controller) is also held to its folder rules: a file calls only files of
# its own folder or of a lower one, never a higher one.
# Usage: layers.sh OBJECT_DIR [RULES]
set -euo pipefail
dir=${1:?usage: layers.sh OBJECT_DIR [RULES]}
rules=${2:-}
order=""
if [ -n "$rules" ]; then
  order=$(sed -n 's/^Layers[^:]*: *//p' "$rules" | head -n 1)
  [ -n "$order" ] || { echo "layers.sh: no 'Layers: a < b < ...' line in $rules" >&2; exit 1; }
fi
command -v nm >/dev/null || { echo "skip: nm is not installed"; exit 77; }
objs=$(find "$dir" -name '*.c.o' | sort)
[ -n "$objs" ] || { echo "layers.sh: no objects in $dir" >&2; exit 1; }
for o in $objs; do
  rel=${o#"$dir"/}
  sub=$(dirname "$rel")
  f=$(basename "$o" .c.o)
  [ "$sub" = "." ] || f="$sub/$f"
  nm "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
done | ORDER="$order" python3 -c '
import os, sys
defs, uses = {}, {}
for line in sys.stdin:
    kind, f, sym = line.split()
    if kind == "D":
        defs[sym] = f
    else:
        uses.setdefault(f, set()).add(sym)
graph = {f: sorted({defs[s] for s in u if s in defs and defs[s] != f}) for f, u in uses.items()}
files = sorted(set(defs.values()) | set(graph))
# Tarjan: every strongly connected component of more than one file is a loop.
index, low, stack, on, loops, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); on.add(v)
    for w in graph.get(v, []):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            loops.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in files:
    if v not in index:
        visit(v)
edges = sum(len(v) for v in graph.values())
order = [x.strip() for x in os.environ.get("ORDER", "").split("<") if x.strip()]
wrong = []
if order:
    def folder(f):
        return f.split("/")[0] if "/" in f else "."
    rank = {d: i for i, d in enumerate(order)}
    for f in files:
        if folder(f) not in rank:
            print("folder %s of %s is not in the layers line: %s" % (folder(f), f, " < ".join(order)))
            sys.exit(1)
    for f, ws in sorted(graph.items()):
        for w in ws:
            if rank[folder(w)] > rank[folder(f)]:
                wrong.append("%s calls %s: %s is above %s" % (f, w, folder(w), folder(f)))
for line in wrong:
    print("a lower folder calls a higher one: " + line)
if loops:
    for c in loops:
        print("files calling each other in a loop: " + ", ".join(c))
        for f in c:
            print("  %s calls %s" % (f, ", ".join(w for w in graph.get(f, []) if w in c)))
if loops or wrong:
    sys.exit(1)
print("layers: %d files, %d file-to-file calls, no loop%s" % (len(files), edges,
      ", folders in order: " + " < ".join(order) if order else ""))
'
