#!/bin/bash
# nodes_floor.sh: what three nodes on this machine can reach with no coordination at all,
# beside one node and three nodes sharing one store, in one run (issue 36 item 2).
#
#   bench/nodes_floor.sh [rounds]        (needs ./folio: make build; PostgreSQL as for make test)
#
# Each round runs `publish` for 24 workspaces for 10 s three ways, in turn:
#   one    one node (folio cluster --nodes 1), one load generator at 64 clients;
#   shared three nodes on one database (folio cluster --nodes 3), a load generator of 21
#          clients and 8 workspaces per node, as behind the balancer;
#   apart  three nodes on three databases of the same PostgreSQL, without NATS: nothing is
#          shared but the machine; the same three load generators.
# It prints each run's throughput and CPU per publish (the nodes' process_cpu_seconds_total
# plus the PostgreSQL processes' /proc time), then the medians of shared and apart against
# one. apart is the floor: three nodes can do no better than three that never coordinate.
set -u
BIN=${BIN:-./folio}
ROUNDS=${1:-3}
D=$(mktemp -d /tmp/folio-floor.XXXXXX) && chmod 755 "$D" # PostgreSQL runs as its own user
trap '[ -n "${KEEP:-}" ] || rm -rf "$D"' EXIT
PORT=18381 PG=15532 NATS=16322
CREATEDB=$(command -v createdb || ls /usr/lib/postgresql/*/bin/createdb 2>/dev/null | tail -1)
[ -x "$BIN" ] && [ -n "$CREATEDB" ] || { echo "needs $BIN (make build) and PostgreSQL's createdb" >&2; exit 2; }

pgcpu() { local s=0 p; for p in $(pgrep -x postgres); do [ -r /proc/$p/stat ] && s=$((s + $(awk '{print $14+$15}' /proc/$p/stat))); done; echo "$s"; }
nodecpu() { local u; for u in "$@"; do curl -s "$u/metrics" | awk '/^process_cpu_seconds_total/{print $2}'; done | awk '{s+=$1} END{printf "%.2f", s}'; }
up() { local i; for i in $(seq 1 150); do curl -sf "$1/healthz" >/dev/null && return 0; sleep 0.2; done; echo "no answer from $1" >&2; return 1; }

run() { # run MODE: prints "MODE pages/s cpu-ms-per-publish"
	local mode=$1 n=1 urls pids="" extra="" k a na b nb ops
	[ "$mode" = shared ] && n=3
	rm -rf "$D/data"; mkdir -p "$D/data"
	"$BIN" cluster --nodes $n --data "$D/data" --port $PORT --nats-port $NATS --pg-port $PG -- --enforce-limits=false >"$D/cluster.log" 2>&1 &
	local cluster=$!
	urls="http://127.0.0.1:$PORT"
	[ "$mode" = shared ] && urls="$urls http://127.0.0.1:$((PORT + 1)) http://127.0.0.1:$((PORT + 2))"
	for u in $urls; do up "$u" || return 1; done
	if [ "$mode" = apart ]; then
		for k in 1 2; do
			"$CREATEDB" -h 127.0.0.1 -p $PG -U folio "folio$k" || return 1
			"$BIN" serve --addr 127.0.0.1:$((PORT + k)) --base-url http://127.0.0.1:$((PORT + k)) \
				--store "postgres://folio@127.0.0.1:$PG/folio$k" --data "$D/data/apart$k" --enforce-limits=false >"$D/apart$k.log" 2>&1 &
			extra="$extra $!"
			urls="$urls http://127.0.0.1:$((PORT + k))"
		done
		for u in $urls; do up "$u" || return 1; done
	fi
	a=$(pgcpu); na=$(nodecpu $urls)
	rm -f "$D"/bench*.out
	if [ "$mode" = one ]; then
		"$BIN" bench --targets "$urls" --scenario publish --tenants 24 --concurrency 64 --duration 10s >"$D/bench1.out" 2>&1
	else
		k=0
		for u in $urls; do
			k=$((k + 1))
			"$BIN" bench --targets "$u" --scenario publish --tenants 8 --concurrency 21 --duration 10s >"$D/bench$k.out" 2>&1 &
			pids="$pids $!"
		done
		wait $pids
	fi
	b=$(pgcpu); nb=$(nodecpu $urls)
	grep -q FAIL "$D"/bench*.out && { echo "a check failed in $mode:" >&2; cat "$D"/bench*.out >&2; }
	ops=$(awk '$1=="publish"{s+=$2} END{print s+0}' "$D"/bench*.out)
	[ -n "$extra" ] && kill -INT $extra && wait $extra 2>/dev/null
	kill -INT $cluster; wait $cluster 2>/dev/null
	awk -v m="$mode" -v ops="$ops" -v nc="$(awk -v x="$nb" -v y="$na" 'BEGIN{print x-y}')" -v pc="$((b - a))" \
		'BEGIN{ if (ops == 0) { print m, 0, 0; exit } printf "%s %.0f %.3f\n", m, ops/10, (nc + pc/100)/ops*1000 }'
}

for r in $(seq 1 "$ROUNDS"); do
	for mode in one shared apart; do
		line=$(run $mode) || exit 1
		echo "round $r: $line" | awk '{printf "round %s %-6s %5d publishes/s  %.3f ms CPU per publish\n", $2, $3, $4, $5}'
		echo "$r $line" >>"$D/all"
	done
done
awk '
	{ tp[$2, $1] = $3; cpu[$2, $1] = $4; rounds[$1] = 1 }
	function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END {
		split("shared apart", modes, " ")
		for (k = 1; k <= 2; k++) {
			n = 0; delete t; delete c
			for (r in rounds) { n++; t[n] = tp[modes[k], r] / tp["one", r]; c[n] = cpu[modes[k], r] / cpu["one", r] }
			printf "%-6s against one node, medians of %d rounds: throughput %.2fx, CPU per publish %.2fx\n", modes[k], n, median(t, n), median(c, n)
		}
	}' "$D/all"
