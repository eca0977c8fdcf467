#!/usr/bin/env bash
# /metrics (iofleet-controller --http) scraped by a real Prometheus
# (Debian's, started here on loopback with a temporary configuration and
# data directory, scraping every second) during a real run of one agent:
#  - after the step, Prometheus's
#      histogram_quantile(0.99, sum by (le) (iofleet_step_latency_seconds_bucket{...}))
#    is the report's fleet read p99 within the width of the bucket it falls
#    in (8 per power of two), and the histogram's _count and the step's
#    ops counter are the report's read ops exactly;
#  - per agent and target: one series each (4), their ops summed are the
#    report's, and histogram_quantile over their buckets summed (a power
#    of two each) is the report's p99 within its power of two;
#  - the text comes gzip'd when asked (as Prometheus asks), plain if not;
#  - Prometheus scraped the target up, and the agents gauge reads 1;
#  - the endpoint is read-only and serves /metrics alone: POST 405, another
#    path 404; an off-host --http needs HTTPS and a bearer token (refused at
#    start otherwise, before the database is written), 401 without it;
#  - the shipped alerting rules (packaging/prometheus/iofleet-rules.yml)
#    pass promtool check rules, and each, loaded into that Prometheus,
#    evaluates without error (health "ok") on the controller's series.
. "$(dirname "$0")/lib.sh"
PROM=$(command -v prometheus || true)
[ -n "$PROM" ] || { echo "skip: no prometheus (scripts/install-deps installs it)"; exit 77; }
RULES=$(cd "$(dirname "$0")/../../packaging/prometheus" && pwd)/iofleet-rules.yml
command -v curl >/dev/null && command -v openssl >/dev/null || { echo "skip: no curl or openssl (scripts/install-deps installs them)"; exit 77; }
fleet_setup
I="$BIN/iofleet"
promtool check rules "$RULES" >"$T/promtool.log" 2>&1 || fail "promtool check rules: $(cat "$T/promtool.log")"
free_port () { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- off this host: HTTPS with a bearer token, or no start --------------------
C=("$BIN/iofleet-controller" --no-config --db "$T/x.db" --listen "ipc://$T/x.sock" --admin "ipc://$T/xa.sock")
"${C[@]}" --http 0.0.0.0:9464 2>"$T/e1" && fail "--http 0.0.0.0 without TLS accepted"
grep -q "not a loopback address: /metrics off this host needs TLS and a bearer token (--http-tls-cert FILE --http-tls-key FILE --http-token-file FILE)" "$T/e1" \
  || fail "off-host refusal: $(cat "$T/e1")"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || fail "openssl req"
openssl rand -hex 32 >"$T/token"
chmod 600 "$T/token"
TLS=(--http-tls-cert "$T/cert.pem" --http-tls-key "$T/key.pem")
"${C[@]}" --http 0.0.0.0:0 "${TLS[@]}" 2>"$T/e2" && fail "--http 0.0.0.0 without a token accepted"
chmod 644 "$T/token"
"${C[@]}" --http 0.0.0.0:0 "${TLS[@]}" --http-token-file "$T/token" 2>"$T/e3" && fail "a token readable by others accepted"
grep -q "readable by others (mode 644): chmod 600 it" "$T/e3" || fail "token mode refusal: $(cat "$T/e3")"
echo short >"$T/short"; chmod 600 "$T/short" "$T/token"
"${C[@]}" --http 0.0.0.0:0 "${TLS[@]}" --http-token-file "$T/short" 2>"$T/e4" && fail "a 5-character token accepted"
grep -q "a token of 5 characters; give at least 16" "$T/e4" || fail "short token refusal: $(cat "$T/e4")"
"${C[@]}" --http 0.0.0.0:0 --http-tls-cert "$T/token" --http-tls-key "$T/key.pem" --http-token-file "$T/token" 2>"$T/e5" \
  && fail "a certificate that is not PEM accepted"
grep -q -- "--http-tls-cert '$T/token': not PEM" "$T/e5" || fail "not-PEM refusal: $(cat "$T/e5")"
[ ! -e "$T/x.db" ] || fail "a refused start wrote the database"
"${C[@]}" --http 0.0.0.0:0 "${TLS[@]}" --http-token-file "$T/token" >"$T/tls.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do grep -q "metrics on https://" "$T/tls.log" && break; sleep 0.1; done
SP=$(grep -oE 'metrics on https://0\.0\.0\.0:[0-9]+' "$T/tls.log" | grep -oE '[0-9]+$') || fail "no https URL logged: $(cat "$T/tls.log")"
U="https://127.0.0.1:$SP/metrics"
code () { curl -s -o /dev/null -w '%{http_code}' --cacert "$T/cert.pem" "$@"; }
[ "$(code "$U")" = 401 ] || fail "no token: not 401"
[ "$(code -H "Authorization: Bearer $(tr 0-9a-f a-f0-9 <"$T/token")" "$U")" = 401 ] || fail "a wrong token: not 401"
curl -sf --cacert "$T/cert.pem" -H "Authorization: Bearer $(cat "$T/token")" "$U" >"$T/tls.txt" || fail "the token: not served"
grep -q '^iofleet_http_denied_total 2$' "$T/tls.txt" || fail "the 401s are not counted: $(grep denied "$T/tls.txt")"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/metrics")" != 200 ] || fail "plain HTTP served off-host"
ok "--http off this host: refused without TLS, a token, a private token file, 16 characters, PEM (nothing written); HTTPS: no token and a wrong one 401 (counted), the token 200, plain HTTP not served"

start_controller --http 127.0.0.1:0
for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
HP=$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+' "$T/controller.log" | grep -oE '[0-9]+$')
[ -n "$HP" ] || fail "the controller did not log its metrics address"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$HP/metrics")" = 405 ] || fail "POST not 405"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HP/api")" = 404 ] || fail "/api not 404"
ok "--http on loopback: POST 405, other paths 404"

PP=$(free_port)
mkdir -p "$T/prom"
cat >"$T/prom.yml" <<EOF2
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
  - job_name: iofleet
    static_configs:
      - targets: ["127.0.0.1:$HP"]
EOF2
"$PROM" --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
    --web.listen-address="127.0.0.1:$PP" >>"$T/prometheus.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null || fail "prometheus did not start"

start_agent a1
start_agent a2
wait_agents 2
cat >"$T/m.fio" <<EOF2
[reads]
ioengine=libaio
direct=1
filename=m1.dat:m2.dat
size=32m
rw=randread
bs=4k
iodepth=8
runtime=4
time_based
EOF2
"$I" plan add m "$T/m.fio" >/dev/null || fail "plan add"
run=$("$I" run m --wait --json 2>"$T/run.err" | jq -r .run) || fail "run: $(cat "$T/run.err")"
"$I" report "$run" --format json >"$T/r.json" || fail "report"
q () { curl -sf --get "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"; }
# until EXPR: until Prometheus's answer to EXPR has a series (30 s at most).
until_q () {
  for _ in $(seq 300); do
    [ "$(q "$1" | jq '.data.result | length')" -gt 0 ] 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
sel="run=\"$run\",step=\"0\",direction=\"read\""
ops=$(jq '.steps[0].fleet.read.ops' "$T/r.json")
# A scrape after the step's last snapshot: the counter at the report's.
until_q "iofleet_step_ops_total{$sel} == $ops" || true
# What the endpoint says, in the logs shown when the test fails.
curl -s "http://127.0.0.1:$HP/metrics" | grep -v '_bucket{' >"$T/metrics-now.log" || true
q "histogram_quantile(0.99, sum by (le) (iofleet_step_latency_seconds_bucket{$sel}))" >"$T/p99.json" || fail "query p99"
q "iofleet_step_latency_seconds_count{$sel}" >"$T/count.json" || fail "query count"
q "iofleet_step_ops_total{$sel}" >"$T/ops.json" || fail "query ops"
q "up{job=\"iofleet\"}" >"$T/up.json" || fail "query up"
q "histogram_quantile(0.99, sum by (le) (iofleet_target_latency_seconds_bucket{direction=\"read\"}))" >"$T/tp99.json" || fail "query target p99"
q "sum(iofleet_target_ops_total{direction=\"read\"})" >"$T/tops.json" || fail "query target ops"
q "sum(iofleet_target_latency_seconds_count{direction=\"read\"})" >"$T/tcount.json" || fail "query target count"
q "count(iofleet_target_ops_total)" >"$T/tn.json" || fail "query target series"
q "iofleet_agents{state=\"connected\"}" >"$T/agents.json" || fail "query agents"
python3 - "$T/r.json" "$T/p99.json" "$T/count.json" "$T/ops.json" "$T/up.json" "$T/agents.json" \
    "$T/tp99.json" "$T/tops.json" "$T/tcount.json" "$T/tn.json" <<'PY' || fail "Prometheus's figures are not the report's"
import json, math, sys
rep = json.load(open(sys.argv[1]))
val = lambda f: float(json.load(open(f))["data"]["result"][0]["value"][1])
read = rep["steps"][0]["fleet"]["read"]
p99, ops = read["percentiles"]["p99"], read["ops"]
prom = val(sys.argv[2]) * 1e9
# The bucket of 8 per power of two that holds the report's p99 (ns).
k = math.floor(math.log2(p99)); w = 2 ** k / 8
lo = 2 ** k + math.floor((p99 - 2 ** k) / w) * w
assert abs(prom - p99) <= w, f"PromQL p99 {prom:.0f} ns, report {p99} ns, bucket [{lo:.0f}, {lo + w:.0f})"
assert val(sys.argv[3]) == ops and val(sys.argv[4]) == ops, (val(sys.argv[3]), val(sys.argv[4]), ops)
assert val(sys.argv[5]) == 1 and val(sys.argv[6]) == 2
print(f"PromQL p99 {prom / 1e3:.1f} us, the report's {p99 / 1e3:.1f} us (bucket {lo / 1e3:.1f}..{(lo + w) / 1e3:.1f} us); {ops} reads both")
# The targets' series: 2 agents x 2 files, reads only; their buckets a
# power of two each.
tprom = val(sys.argv[7]) * 1e9
assert val(sys.argv[10]) == 4, val(sys.argv[10])
assert val(sys.argv[8]) == ops and val(sys.argv[9]) == ops, (val(sys.argv[8]), val(sys.argv[9]), ops)
assert 2 ** k <= tprom <= 2 ** (k + 1), f"targets' PromQL p99 {tprom:.0f} ns outside [{2 ** k}, {2 ** (k + 1)}] (report {p99})"
print(f"per target: 4 series, {ops} reads summed; PromQL p99 {tprom / 1e3:.1f} us in the report's power of two {2 ** k / 1e3:.1f}..{2 ** (k + 1) / 1e3:.1f} us")
PY
ok "Prometheus scraped the controller: histogram_quantile over the step's buckets is the report's p99 within its bucket, over the targets' within its power of two; counts exact"
curl -sf -H 'Accept-Encoding: gzip' -D "$T/h.txt" -o "$T/m.gz" "http://127.0.0.1:$HP/metrics" || fail "GET gzip"
grep -qi '^Content-Encoding: gzip' "$T/h.txt" || fail "no gzip when asked: $(cat "$T/h.txt")"
curl -sf -o "$T/m.txt" "http://127.0.0.1:$HP/metrics" || fail "GET plain"
gzip -dc "$T/m.gz" >"$T/m.unz" || fail "the gzip'd text does not inflate"
grep -q '^iofleet_target_ops_total{agent="a1",target=' "$T/m.unz" || fail "the gzip'd text has no target series"
grep -q '^# TYPE iofleet_target_latency_seconds histogram' "$T/m.txt" || fail "the plain text has no target histogram"
ok "gzip when asked ($(stat -c %s "$T/m.gz") bytes), plain text otherwise ($(stat -c %s "$T/m.txt") bytes)"

# --- a schedule: a baseline, then a run with a2 slowed (reads held to 200 IOPS) --
A2=${PIDS[-1]}
cat >"$T/n.fio" <<EOF2
[nightly]
ioengine=libaio
direct=1
filename=n.dat
size=16m
rw=randread
bs=4k
iodepth=4
runtime=4
time_based
iofleet_sla=p99<1us
EOF2
"$I" plan add nightly "$T/n.fio" >/dev/null || fail "plan add nightly"
"$I" schedule add nightly --cron '0 2 * * *' --plan nightly --by agent --fail-on-regression 10 \
  >/dev/null || fail "schedule add"
status_of () { "$I" runs --json | jq -r --argjson r "$1" '.[] | select(.id == $r) | .status'; }
wait_done () { for _ in $(seq 300); do case $(status_of "$1") in queued|running) sleep 0.1 ;; *) return 0 ;; esac; done; }
verdict_of () { sqlite3 -cmd ".timeout 5000" "$T/iofleet.db" "SELECT verdict FROM fires WHERE run_id = $1"; }
n1=$("$I" schedule run-now nightly) || fail "schedule run-now"
wait_done "$n1"
for _ in $(seq 50); do [ -n "$(verdict_of "$n1")" ] && break; sleep 0.1; done
slow_agent "$A2"
n2=$("$I" schedule run-now nightly) || fail "schedule run-now (2)"
unslow_agent_after "$n2"
for _ in $(seq 50); do [ -n "$(verdict_of "$n2")" ] && break; sleep 0.1; done
[ "$(verdict_of "$n2")" = regressed ] || fail "run $n2's verdict '$(verdict_of "$n2")', expected regressed"
# (exit 1: the run fails its SLA, as it is made to)
"$I" report "$n2" --by agent --format json >"$T/n2.json" || [ -s "$T/n2.json" ] || fail "report $n2"
# A scrape and a rule evaluation after the verdict.
until_q "iofleet_schedule_verdict{schedule=\"nightly\",verdict=\"regressed\",run=\"$n2\"} == 1" \
  || fail "no regressed verdict in /metrics for run $n2"
for _ in $(seq 300); do
  [ "$(curl -sf "http://127.0.0.1:$PP/api/v1/alerts" | jq '[.data.alerts[] | select(.state == "firing")] | length')" -ge 2 ] && break
  sleep 0.1
done
q "iofleet_schedule_verdict{schedule=\"nightly\"} == 1" >"$T/sv.json" || fail "query verdict"
q "iofleet_schedule_sla_failed{schedule=\"nightly\"}" >"$T/ss.json" || fail "query sla"
q "iofleet_schedule_regression_percent{schedule=\"nightly\",group=\"agent=a2\",metric=\"iops\"}" >"$T/sr.json" || fail "query regression"
q "iofleet_schedule_iops{schedule=\"nightly\",group=\"fleet\",direction=\"read\"}" >"$T/si.json" || fail "query iops"
q "iofleet_schedule_p99_seconds{schedule=\"nightly\",group=\"agent=a2\",direction=\"read\"}" >"$T/sp.json" || fail "query p99"
q "time() - iofleet_schedule_next_fire_timestamp_seconds" >"$T/sn.json" || fail "query next fire"
curl -sf "http://127.0.0.1:$PP/api/v1/alerts" >"$T/alerts.json" || fail "query alerts"
python3 - "$n2" "$T/n2.json" "$T/sv.json" "$T/ss.json" "$T/sr.json" "$T/si.json" "$T/sp.json" "$T/sn.json" "$T/alerts.json" <<'PY' || fail "the schedule's series are not its run's"
import json, sys
run, rep = sys.argv[1], json.load(open(sys.argv[2]))
res = lambda f: json.load(open(f))["data"]["result"]
v = res(sys.argv[3])
assert len(v) == 1 and v[0]["metric"]["verdict"] == "regressed" and v[0]["metric"]["run"] == run, v
assert [float(r["value"][1]) for r in res(sys.argv[4])] == [1.0], res(sys.argv[4])
reg = res(sys.argv[5])
assert len(reg) == 1 and float(reg[0]["value"][1]) < -10, reg
step = rep["steps"][0]
iops = res(sys.argv[6])
assert len(iops) == 1 and abs(float(iops[0]["value"][1]) - step["fleet"]["read"]["iops"]) <= 1e-6 * step["fleet"]["read"]["iops"], (iops, step["fleet"]["read"]["iops"])
a2 = [g for g in step["groups"] if g["value"] == "a2"][0]
p99 = res(sys.argv[7])
assert len(p99) == 1 and round(float(p99[0]["value"][1]) * 1e9) == a2["read"]["percentiles"]["p99"], (p99, a2["read"]["percentiles"])
assert float(res(sys.argv[8])[0]["value"][1]) < 0, "the schedule is not due yet"
firing = {a["labels"]["alertname"] for a in json.load(open(sys.argv[9]))["data"]["alerts"] if a["state"] == "firing"}
for want in ("IofleetScheduledRunRegressed", "IofleetScheduledRunSLAFailed"):
    assert want in firing, (want, firing)
assert "IofleetScheduleMissed" not in firing and "IofleetScheduledRunFailed" not in firing, firing
print(f"run {run}: verdict regressed, SLA failed, agent=a2 iops {float(reg[0]['value'][1]):.1f}%, fleet read IOPS {float(iops[0]['value'][1]):.0f} and a2's p99 the report's; firing: {', '.join(sorted(firing))}")
PY
ok "a schedule's latest run in /metrics: its verdict, SLA, regressions and figures are the report's; the regression and SLA rules fire, the missed-schedule rule does not"

# --- /api: the admin commands' JSON, read-only -------------------------------------
A="http://127.0.0.1:$HP/api"
curl -sf "$A/runs" >"$T/api-runs.json" || fail "GET /api/runs"
"$I" runs --json >"$T/cli-runs.json"
[ "$(jq -S 'map({id, status, plan})' "$T/api-runs.json")" = "$(jq -S 'map({id, status, plan})' "$T/cli-runs.json")" ] \
  || fail "/api/runs is not iofleet runs --json: $(head -c 300 "$T/api-runs.json")"
curl -sf "$A/runs/$n2?by=agent" >"$T/api-rep.json" || fail "GET /api/runs/$n2"
[ "$(jq -S 'del(.steps[].intervals)' "$T/api-rep.json")" = "$(jq -S 'del(.steps[].intervals)' "$T/n2.json")" ] \
  || fail "/api/runs/$n2?by=agent is not iofleet report $n2 --by agent --format json"
curl -sf "$A/compare?a=$n1&b=$n2" >"$T/api-cmp.json" || fail "GET /api/compare"
jq -e '.compare.rows | length > 0' "$T/api-cmp.json" >/dev/null || fail "/api/compare has no rows: $(head -c 300 "$T/api-cmp.json")"
curl -sf "$A/plans" | jq -e 'map(.name) | index("nightly") != null' >/dev/null || fail "/api/plans"
curl -sf "$A/inventory/a1" | jq -e '.agent == "a1" and (.inventory | type == "object")' >/dev/null || fail "/api/inventory/a1"
[ "$(curl -s -o "$T/api-bad.json" -w '%{http_code}' "$A/runs/99999")" = 404 ] || fail "/api/runs/99999 not 404"
jq -e '.ok == false and (.error | test("99999"))' "$T/api-bad.json" >/dev/null || fail "no error naming run 99999: $(cat "$T/api-bad.json")"
[ "$(curl -s -o "$T/api-bad2.json" -w '%{http_code}' "$A/compare?a=$n1&b=last")" = 400 ] || fail "/api/compare?b=last not 400"
jq -e '.ok == false and (.error | test("b=.last. is not a run id"))' "$T/api-bad2.json" >/dev/null \
  || fail "no error naming b=last: $(cat "$T/api-bad2.json")"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$A/schedule_rm")" = 404 ] || fail "/api/schedule_rm not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$A/runs")" = 405 ] || fail "POST /api/runs not 405"
ok "/api: runs, a report, a comparison, plans and an inventory as the CLI's JSON; an unknown run 404 and a run id that is not one 400, naming them; nothing else served, nothing written"

# --- the shipped dashboard: every panel's query returns data --------------------
DASH=$(dirname "$RULES")/iofleet-dashboard.json
jq -r '.panels[].targets[].expr' "$DASH" >"$T/exprs.txt"
[ "$(wc -l <"$T/exprs.txt")" -ge 10 ] || fail "the dashboard has $(wc -l <"$T/exprs.txt") queries"
while IFS= read -r e; do
  q "$e" >"$T/panel.json" || fail "dashboard query failed: $e"
  [ "$(jq '.data.result | length' "$T/panel.json")" -gt 0 ] || fail "dashboard query returns nothing: $e"
done <"$T/exprs.txt"
ok "the dashboard: $(wc -l <"$T/exprs.txt") queries over $(jq '.panels | length' "$DASH") panels, each returns data"

curl -sf "http://127.0.0.1:$PP/api/v1/rules" >"$T/rules.json" || fail "query rules"
python3 - "$T/rules.json" <<'PY' || fail "a shipped rule does not evaluate"
import json, sys
rules = [r for g in json.load(open(sys.argv[1]))["data"]["groups"] for r in g["rules"]]
assert len(rules) == 10, [r["name"] for r in rules]
for r in rules:
    assert r["health"] == "ok" and r.get("lastEvaluation", "").startswith("20"), (r["name"], r["health"], r.get("lastError"))
print("rules evaluated: " + ", ".join(f"{r['name']} ({r['state']})" for r in rules))
PY
ok "the shipped rules: promtool check rules passes; all 10 evaluate in Prometheus without error"
