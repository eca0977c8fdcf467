#!/usr/bin/env bash
# The controller's web pages (iofleet-controller --http) in a real headless
# Chromium: the runs page links each run to its report, and that report is
# report --format html's, byte for byte, whose figures html_check.py finds
# equal to report --format json's; the live page reloads itself while its
# run runs (the controller counts the loads one Chromium made) and shows
# the progress change; /compare is compare --format html's; /history draws
# /api/history's values, one line per group; /agents and /schedules show
# what the CLI's JSON says; no page fetches anything from anywhere (no
# src or href off the controller, no script, no load error in Chromium);
# bad arguments get 400 and an unknown run 404, naming them.
# IOFLEET_WEB_SCREENSHOTS=DIR keeps a screenshot of each page there.
. "$(dirname "$0")/lib.sh"
CHECK="$(dirname "$0")/../html_check.py"
export PYTHONDONTWRITEBYTECODE=1
I="$BIN/iofleet"
chrome_found || fail "chromium is not installed (scripts/install-deps installs it)"
command -v curl >/dev/null || { echo "skip: no curl (scripts/install-deps installs it)"; exit 77; }
fleet_setup
start_controller --http 127.0.0.1:0
for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
HP=$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+' "$T/controller.log" | grep -oE '[0-9]+$')
[ -n "$HP" ] || fail "the controller did not log its HTTP address"
W="http://127.0.0.1:$HP"
start_agent a1 --label fw=A
start_agent a2 --label fw=B
wait_agents 2
probe_plan web 2
sed 's/^runtime=2$/runtime=5/' "$T/web.fio" >"$T/live.fio"
"$I" plan add live "$T/live.fio" >/dev/null || fail "plan add live"
r1=$("$I" run web --wait --json 2>/dev/null | jq -r .run) || fail "run 1"
r2=$("$I" run web --wait --json 2>/dev/null | jq -r .run) || fail "run 2"

code () { curl -s -o "$2" -w '%{http_code}' "$W$1"; }
dom () {  # dom PATH OUT [CHROME ARGS...]: Chromium's DOM of the page
  local p=$1 out=$2; shift 2
  chrome --dump-dom "$@" "$W$p" >"$out" 2>"$out.log" || fail "chromium --dump-dom $p exited $?"
}
hits () { curl -sf "$W/metrics" | awk -v p="path=\"$1\"" 'index($0, p) { print $2 }'; }

# --- the live page: a run of 5 s, looked at while it runs ---------------------
r3=$("$I" run live) || fail "run live"
for _ in $(seq 100); do
  curl -sf "$W/api/runs/$r3/live" | jq -e '.last_interval.seq >= 0' >/dev/null 2>&1 && break
  sleep 0.1
done
[ "$(code "/runs/$r3/live" "$T/l1.html")" = 200 ] || fail "GET /runs/$r3/live"
grep -q '<meta http-equiv="refresh" content="2">' "$T/l1.html" || fail "the live page of a running run does not reload itself"
seq1=$(sed -nE 's/.*id="last-interval" data-seq="([0-9]+)".*/\1/p' "$T/l1.html")
[ -n "$seq1" ] || fail "no last interval on the live page: $(grep -o '<dl.*</dl>' "$T/l1.html")"
el1=$(sed -nE 's/.*id="elapsed" data-s="([0-9.]+)".*/\1/p' "$T/l1.html")
grep -q 'data-chart="intervals-iops"' "$T/l1.html" || fail "no interval chart on the live page"
h0=$(hits /runs/ID/live)
dom "/runs/$r3/live" "$T/live.dom" --virtual-time-budget=4000
h1=$(hits /runs/ID/live)
[ $((h1 - h0)) -ge 2 ] || fail "one Chromium loaded the live page $((h1 - h0)) time(s): it does not reload itself"
# What Chromium shows last: a later interval, or the run over.
python3 - "$T/live.dom" "$seq1" "$el1" <<'PY' || fail "the live page did not change"
import re, sys
d = open(sys.argv[1]).read()
seq = re.search(r'id="last-interval" data-seq="(\d+)"', d)
el = re.search(r'id="elapsed" data-s="([\d.]+)"', d)
done = re.search(r'<dd id="status"><span class="pass">complete', d)
assert done or (seq and int(seq.group(1)) > int(sys.argv[2])) or (el and float(el.group(1)) > float(sys.argv[3])), d[:2000]
print(f"live: interval {sys.argv[2]} at {sys.argv[3]} s, then " + ("complete" if done else f"interval {seq.group(1)} at {el.group(1)} s"))
PY
[ "$(wait_run "$r3")" = complete ] || fail "run $r3 not complete"
code "/runs/$r3/live" "$T/l2.html" >/dev/null
grep -q 'http-equiv="refresh"' "$T/l2.html" && fail "the live page of an ended run still reloads"
grep -q '<dd id="status"><span class="pass">complete</span>' "$T/l2.html" || fail "the ended run's live page: $(grep -o '<dl.*</dl>' "$T/l2.html")"
grep -q "href=\"/runs/$r3\"" "$T/l2.html" || fail "the ended run's live page does not link its report"
ok "live page: reloaded itself $((h1 - h0)) times in one Chromium while run $r3 ran, interval $seq1 then later; ended, it stops reloading and links the report"

# --- the runs page, and the reports it links to --------------------------------
dom / "$T/runs.dom"
for r in "$r1" "$r2" "$r3"; do
  grep -q "<a href=\"/runs/$r\">$r</a>" "$T/runs.dom" || fail "the runs page has no link to run $r"
done
python3 - "$T/runs.dom" "$r1" "$r3" <<'PY' || fail "the runs page's order"
import re, sys
ids = [int(x) for x in re.findall(r'<tr data-run="(\d+)"', open(sys.argv[1]).read())]
assert ids == sorted(ids, reverse=True) and int(sys.argv[1 + 1]) in ids and int(sys.argv[3]) == ids[0], ids
PY
link=$(grep -oE "<a href=\"/runs/$r1\">" "$T/runs.dom" | head -1 | grep -oE '/runs/[0-9]+')
[ "$(code "$link" "$T/web-r1.html")" = 200 ] || fail "GET $link"
"$I" report "$r1" --format html -o "$T/cli-r1.html" || fail "report --format html"
cmp -s "$T/web-r1.html" "$T/cli-r1.html" || fail "$link differs from report --format html: $(diff "$T/web-r1.html" "$T/cli-r1.html" | head -5)"
"$I" report "$r1" --format json >"$T/r1.json" || fail "report json"
python3 "$CHECK" report "$T/web-r1.html" "$T/r1.json" >"$T/r1.check" || fail "the served report's figures: see above"
code "$link?by=agent" "$T/web-r1a.html" >/dev/null
"$I" report "$r1" --by agent --format html -o "$T/cli-r1a.html" || fail "report --by agent --format html"
cmp -s "$T/web-r1a.html" "$T/cli-r1a.html" || fail "$link?by=agent differs from report --by agent --format html"
dom "$link" "$T/r1.dom"
want=$(grep -o '<svg class="chart"' "$T/web-r1.html" | wc -l)
got=$(grep -o '<svg class="chart"' "$T/r1.dom" | wc -l)
[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] || fail "Chromium's DOM of $link has $got charts of $want"
ok "runs page: runs newest first, each linked; $link is report --format html byte for byte (--by too), its figures the JSON's ($(jq -c '{charts, series, points}' "$T/r1.check" 2>/dev/null || cat "$T/r1.check"))"

# Requests at once, on the controller's pool of HTTP threads: each answered,
# the same as alone (the readers' connections and the loop's answers are
# shared between the threads).
"$I" report "$r1" --format json >"$T/r1-api.want"
pp=()
for k in 1 2 3 4 5 6; do
  curl -sf "$W/runs/$r1" -o "$T/par-r$k.html" & pp+=("$!")
  curl -sf "$W/api/runs/$r1" -o "$T/par-j$k.json" & pp+=("$!")
  curl -sf "$W/agents" -o "$T/par-a$k.html" & pp+=("$!")
  curl -sf "$W/metrics" -o "$T/par-m$k.txt" & pp+=("$!")
done
for p in "${pp[@]}"; do wait "$p" || fail "a concurrent request failed (curl exited $?)"; done
for k in 1 2 3 4 5 6; do
  cmp -s "$T/par-r$k.html" "$T/cli-r1.html" || fail "concurrent /runs/$r1 #$k differs from report --format html"
  jq -e --slurpfile w "$T/r1-api.want" '. == $w[0]' "$T/par-j$k.json" >/dev/null || fail "concurrent /api/runs/$r1 #$k differs from report --format json"
  grep -q '<tr data-agent="a2">' "$T/par-a$k.html" || fail "concurrent /agents #$k"
  grep -q '^iofleet_agents{state="connected"} 2$' "$T/par-m$k.txt" || fail "concurrent /metrics #$k"
done
ok "24 requests at once (report, its JSON, agents, metrics): each the same as alone"

# --- compare, history, agents, schedules ----------------------------------------
[ "$(code "/compare?a=$r1&b=$r2" "$T/web-cmp.html")" = 200 ] || fail "GET /compare"
"$I" compare "$r1" "$r2" --format html -o "$T/cli-cmp.html" || fail "compare --format html"
cmp -s "$T/web-cmp.html" "$T/cli-cmp.html" || fail "/compare differs from compare --format html"
dom "/history?plan=web&metric=p99&by=label.fw" "$T/hist.dom"
curl -sf "$W/api/history?plan=web&metric=p99&by=label.fw" >"$T/hist.json" || fail "GET /api/history"
python3 - "$T/hist.dom" "$T/hist.json" <<'PY' || fail "/history does not draw /api/history's values"
import json, re, sys
d = open(sys.argv[1]).read()
rows = json.load(open(sys.argv[2]))["rows"]
want = sorted((r["group"], r["run"], r["value"]) for r in rows)
charts = re.findall(r'<svg class="chart" data-chart="history".*?</svg>', d, re.S)
assert len(charts) == len({(r["step"], r["direction"]) for r in rows}) == 1, len(charts)
got = []
for g, body in re.findall(r'<g class="series" data-series="([^"]+)"(.*?)</g>', charts[0], re.S):
    for v, run in re.findall(r'data-value="([\d.e+]+)"><title>run (\d+) ', body):
        got.append((g, int(run), float(v)))
assert sorted(got) == want and {g for g, _, _ in got} == {"A", "B"}, (sorted(got), want)
print(f"history: {len(got)} points in 2 lines (A, B), each /api/history's value")
PY
# A second /compare is the same bytes as the first (a page's chart ids
# count from 0 in each page, whatever the thread rendered before).
code "/compare?a=$r1&b=$r2" "$T/web-cmp2.html" >/dev/null
cmp -s "$T/web-cmp2.html" "$T/cli-cmp.html" || fail "a second /compare differs from compare --format html"
# What the user typed is escaped where a page shows it back.
dom "/history?plan=web&by=%3Cscript%3Ealert(1)%3C/script%3E" "$T/xss.dom"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/xss.dom" || fail "/history does not show back the by it was given, escaped: $(grep -o 'row(s)[^<]*' "$T/xss.dom")"
dom /agents "$T/agents.dom"
"$I" agents --json >"$T/agents.json"
for a in a1 a2; do
  h=$(jq -r --arg a "$a" '.[] | select(.name == $a) | .inventory_hash' "$T/agents.json")
  python3 - "$T/agents.dom" "$a" "$h" <<'PY' || fail "/agents: $a"
import re, sys
d, a, h = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
row = re.search(r'<tr data-agent="%s">(.*?)</tr>' % re.escape(a), d, re.S)
assert row and 'connected' in row.group(1) and "<code>%s</code>" % h in row.group(1), row and row.group(1)[:500]
PY
done
"$I" schedule add nightly --cron '0 2 * * *' --plan web >/dev/null || fail "schedule add"
dom /schedules "$T/sched.dom"
next=$("$I" schedule list --json | jq -r '.[0].next_fire | strftime("%Y-%m-%d %H:%M:%S UTC")')
grep -q "<td class=\"l\">nightly</td><td class=\"l\"><code>0 2 \* \* \*</code>" "$T/sched.dom" || fail "/schedules has no row of nightly"
grep -q "$next" "$T/sched.dom" || fail "/schedules: no next fire $next"
ok "/compare is compare --format html's; /history draws /api/history's values, a line per fw; /agents: each connected with its inventory hash; /schedules: nightly, next fire $next"

# --- nothing fetched from anywhere; errors ---------------------------------------
for f in "$T"/*.dom; do
  if grep -qiE '<script|<link |(src|href|action)="(https?:)?//' "$f"; then
    fail "$(basename "$f"): a script or a reference off the controller: $(grep -oiE '<script[^>]*>|<link [^>]*>|(src|href|action)="(https?:)?//[^"]*"' "$f" | head -3)"
  fi
  if grep -E 'net::ERR|Failed to load|Refused to|Uncaught' "$f.log"; then fail "load errors in $f.log"; fi
done
[ "$(code /runs/999999 "$T/e404.html")" = 404 ] || fail "an unknown run: not 404"
grep -q 'no run 999999' "$T/e404.html" || fail "404 page does not name the run"
[ "$(code "/compare?a=$r1&b=x" "$T/e400.html")" = 400 ] || fail "/compare?b=x: not 400"
grep -q "b=&#39;x&#39; is not a run id" "$T/e400.html" || fail "400 page does not name b"
[ "$(code "/api/runs/999999/live" "$T/e.json")" = 404 ] || fail "/api/runs/999999/live: not 404"
jq -e '.error | test("no run 999999")' "$T/e.json" >/dev/null || fail "/api/runs/999999/live: $(cat "$T/e.json")"
[ "$(code /nosuch "$T/e.txt")" = 404 ] || fail "/nosuch not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$W/")" = 405 ] || fail "POST / not 405"
curl -sf "$W/api/agents" | jq -e 'map(.name) | sort == ["a1", "a2"]' >/dev/null || fail "/api/agents"
curl -sf "$W/api/schedules" | jq -e '.[0].name == "nightly"' >/dev/null || fail "/api/schedules"
ok "no page has a script or a reference off the controller, Chromium loaded each without error; unknown run 404 and bad b 400, named; POST 405"

if [ -n "${IOFLEET_WEB_SCREENSHOTS:-}" ]; then
  mkdir -p "$IOFLEET_WEB_SCREENSHOTS"
  sed 's/^runtime=2$/runtime=12/' "$T/web.fio" >"$T/shot.fio"
  "$I" plan add shot "$T/shot.fio" >/dev/null || fail "plan add shot"
  r4=$("$I" run shot) || fail "run shot (screenshot)"
  sleep 5
  for p in "/runs/$r4/live:web-live" "/:web-runs" "/runs/$r1:web-report" "/history?plan=web&metric=p99&by=label.fw:web-history" "/agents:web-agents" "/schedules:web-schedules"; do
    chrome --screenshot="$IOFLEET_WEB_SCREENSHOTS/${p##*:}.png" --window-size=1280,900 "$W${p%:*}" >/dev/null 2>&1 \
      || fail "screenshot ${p%:*}"
  done
  wait_run "$r4" >/dev/null
  ok "screenshots in $IOFLEET_WEB_SCREENSHOTS"
fi
