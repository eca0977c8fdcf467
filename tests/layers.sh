#!/usr/bin/env bash
# layers.sh: no two files of a program call each other in a loop (issue
# 21).  From the compiled objects of one directory (nm: what each file
# defines and what it calls), the graph of file -> file calls; any cycle
# fails the test and is printed.  Usage: layers.sh OBJECT_DIR
set -euo pipefail
dir=${1:?usage: layers.sh OBJECT_DIR}
command -v nm >/dev/null || { echo "skip: nm is not installed"; exit 77; }
objs=$(find "$dir" -name '*.c.o' | sort)
[ -n "$objs" ] || { echo "layers.sh: no objects in $dir" >&2; exit 1; }
for o in $objs; do
  f=$(basename "$o" .c.o)
  nm "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
done | python3 -c '
import sys
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
if loops:
    for c in loops:
        print("files calling each other in a loop: " + ", ".join(c))
        for f in c:
            print("  %s calls %s" % (f, ", ".join(w for w in graph.get(f, []) if w in c)))
    sys.exit(1)
print("layers: %d files, %d file-to-file calls, no loop" % (len(files), edges))
'
