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
#    path 404; an off-host --http is refused at start, naming the rule;
#  - the shipped alerting rules (packaging/prometheus/iofleet-rules.yml)
#    pass promtool check rules, and each, loaded into that Prometheus,
#    evaluates without error (health "ok") on the controller's series.
. "$(dirname "$0")/lib.sh"
PROM=$(command -v prometheus || true)
[ -n "$PROM" ] || { echo "skip: no prometheus (scripts/install-deps installs it)"; exit 77; }
RULES=$(cd "$(dirname "$0")/../../packaging/prometheus" && pwd)/iofleet-rules.yml
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
fleet_setup
I="$BIN/iofleet"
promtool check rules "$RULES" >"$T/promtool.log" 2>&1 || fail "promtool check rules: $(cat "$T/promtool.log")"
free_port () { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$BIN/iofleet-controller" --no-config --db "$T/x.db" --http 0.0.0.0:9464 2>"$T/e1" && fail "--http 0.0.0.0 accepted"
grep -q "not a loopback address; HTTP off this host needs TLS and a bearer token" "$T/e1" \
  || fail "off-host refusal: $(cat "$T/e1")"

start_controller --http 127.0.0.1:0
for _ in $(seq 50); do grep -q "metrics on http://" "$T/controller.log" && break; sleep 0.1; done
HP=$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+' "$T/controller.log" | grep -oE '[0-9]+$')
[ -n "$HP" ] || fail "the controller did not log its metrics address"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$HP/metrics")" = 405 ] || fail "POST not 405"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HP/api")" = 404 ] || fail "/api not 404"
ok "--http: off-host refused; POST 405, other paths 404"

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
sleep 2.5       # a scrape (each second) after the step's last snapshot
# What the endpoint says, in the logs shown when the test fails.
curl -s "http://127.0.0.1:$HP/metrics" | grep -v '_bucket{' >"$T/metrics-now.log" || true
q () { curl -sf --get "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"; }
sel="run=\"$run\",step=\"0\",direction=\"read\""
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
gzip -dc "$T/m.gz" | grep -q '^iofleet_target_ops_total{agent="a1",target=' || fail "the gzip'd text has no target series"
grep -q '^# TYPE iofleet_target_latency_seconds histogram' "$T/m.txt" || fail "the plain text has no target histogram"
ok "gzip when asked ($(stat -c %s "$T/m.gz") bytes), plain text otherwise ($(stat -c %s "$T/m.txt") bytes)"

curl -sf "http://127.0.0.1:$PP/api/v1/rules" >"$T/rules.json" || fail "query rules"
python3 - "$T/rules.json" <<'PY' || fail "a shipped rule does not evaluate"
import json, sys
rules = [r for g in json.load(open(sys.argv[1]))["data"]["groups"] for r in g["rules"]]
assert len(rules) == 4, [r["name"] for r in rules]
for r in rules:
    assert r["health"] == "ok" and r.get("lastEvaluation", "").startswith("20"), (r["name"], r["health"], r.get("lastError"))
print("rules evaluated: " + ", ".join(f"{r['name']} ({r['state']})" for r in rules))
PY
ok "the shipped rules: promtool check rules passes; all 4 evaluate in Prometheus without error"
