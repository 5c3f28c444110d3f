#!/usr/bin/env bash
# The whole-system benchmarks: what `make bench` runs. Each section is a
# function listed in SECTIONS; add new ones at the end. Run one section with
# `scripts/bench.sh crawl` (names as in SECTIONS).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_go

# crawl: Hivecrawl's crawl engine against Colly on a local synthetic web
# (issue 2). The benchmark is its own module (bench/) so that Colly stays out
# of the main module. BENCH_CRAWL_FLAGS passes extra flags, e.g. "-rounds 3".
bench_crawl() {
	echo "== crawl: Hivecrawl vs Colly (bench/crawlbench)"
	local bin
	bin=$(mktemp -d)/crawlbench
	(cd bench/crawlbench && go build -o "$bin" .)
	"$bin" ${BENCH_CRAWL_FLAGS:-}
	rm -rf "$(dirname "$bin")"
}

# swarm: the whole swarm on loopback as processes (issue 8): coordinate CAN
# with load balancing on insert vs consistent hashing vs the CAN without it,
# then each client's idle footprint. BENCH_SWARM_FLAGS passes extra flags,
# e.g. "-duration 2m -peers 12 -hosts 60".
bench_swarm() {
	echo "== swarm: CAN+LBI vs consistent hashing vs CAN without LBI (bench/swarmbench)"
	CGO_ENABLED=0 go run ./bench/swarmbench ${BENCH_SWARM_FLAGS:-}
}

# tasksize: the encoded size of a recrawl task against the host's known
# pages (1k to 1M, all with validators), from the manager's channel
# database (manager/channels BenchmarkTaskSize); no network.
bench_tasksize() {
	echo "== tasksize: recrawl task size against host size (manager/channels)"
	go test -run '^$' -bench BenchmarkTaskSize -benchtime 1x ./manager/channels/
}

# recrawl: recrawl strategies on an evolving synthetic site (issue 19):
# uniform with and without conditional GETs, adaptive per-page frequencies
# with the selective rule, and the planner, at one budget of known pages a
# round; the real crawler and channel database, virtual time.
# BENCH_RECRAWL_FLAGS passes extra flags, e.g. "-rounds 336 -seed 2".
bench_recrawl() {
	echo "== recrawl: uniform vs adaptive vs planner on an evolving site (bench/evolvebench)"
	go run ./bench/evolvebench ${BENCH_RECRAWL_FLAGS:-}
}

# assign: paper 002 §5.3's assignment experiment in the simulator (issue 17):
# consistent hashing vs NC-CAN vs NC-CAN+LBI throughput side by side for
# three seeds, then the diagnosis (hosts per crawler, throughput ceilings)
# and an ablation. BENCH_ASSIGN_FLAGS passes extra flags, e.g.
# "-seeds 1 -ablation=false" or "-load-join -one-connection".
bench_assign() {
	echo "== assign: DHT vs NC-CAN vs NC-CAN+LBI in the paper 002 simulator (bench/assignbench)"
	go run ./bench/assignbench ${BENCH_ASSIGN_FLAGS:-}
}

# text: main-text quality (issue 20): precision, recall and F1 of
# Hivecrawl's extractor, go-trafilatura and go-trafilatura with fallback on
# go-trafilatura's comparison set (read from the module cache), generated
# pages and Debian's python3-doc (skipped when not installed).
# BENCH_TEXT_FLAGS passes extra flags, e.g. "-sets comparison -empty".
bench_text() {
	echo "== text: main-text extraction quality (bench/textbench)"
	go run ./bench/textbench ${BENCH_TEXT_FLAGS:-}
}

# textsize: compressed text / HTML bytes of a crawl (issue 20): the fixture
# and python3-doc (when installed) crawled on loopback by the real crawler,
# with the text dictionary, plain zstd and uncompressed.
bench_textsize() {
	go run ./bench/textsize ${BENCH_TEXTSIZE_FLAGS:-}
}

# schedule: the manager's scheduling round on PostgreSQL (issue 21): one
# and two managers sharing a database of 1,000,000 channels, 20,000 due:
# start time, round time, tasks issued per second, and a round with
# nothing due. HIVECRAWL_BENCH_CHANNELS and HIVECRAWL_BENCH_DUE change the
# counts.
bench_schedule() {
	echo "== schedule: scheduling rounds of one and two managers on PostgreSQL (manager BenchmarkScheduleRound)"
	need_pkg '/usr/lib/postgresql/*/bin/initdb' postgresql
	go test -run '^$' -bench BenchmarkScheduleRound -benchtime 1x -timeout 60m ./manager/
}

# caps: what the manager's limits per address and per domain cost (issue
# 43): the swarm's can+lbi with and without them, on a shared-hosting web
# of three hosts at each address, then on the usual web of one host an
# address. BENCH_CAPS_FLAGS passes extra flags to both.
bench_caps() {
	echo "== caps: can+lbi with and without the limits per address and domain (bench/swarmbench)"
	for per in 3 1; do
		CGO_ENABLED=0 go run ./bench/swarmbench -variants can+lbi,can+lbi-nocaps -per-address "$per" ${BENCH_CAPS_FLAGS:-}
	done
}

# presets: each preset's footprint per client (issue 46): one swarm per
# preset, every client on it, while the web is crawled and once idle
# again. BENCH_PRESETS_FLAGS replaces the flags below.
bench_presets() {
	echo "== presets: Quiet, Standard and Full on the swarm (bench/swarmbench -only presets)"
	CGO_ENABLED=0 go run ./bench/swarmbench -only presets ${BENCH_PRESETS_FLAGS:--peers 4 -hosts 240 -duration 2m -idle 2m}
}

# zones: the manager's certified zone map at 10,000 members renewing
# every 10 s, with joins, leaves, crashes and moves at session rates, in
# simulated time (issue 42): one manager on bbolt, one on PostgreSQL, two
# sharing PostgreSQL. HIVECRAWL_BENCH_MEMBERS, HIVECRAWL_BENCH_SECONDS and
# HIVECRAWL_BENCH_SESSION (minutes) change the sizes.
bench_zones() {
	echo "== zones: the manager's zone map at 10,000 members (manager/zones BenchmarkSwarm)"
	need_pkg '/usr/lib/postgresql/*/bin/initdb' postgresql
	go test -run '^$' -bench BenchmarkSwarm -benchtime 1x -timeout 60m ./manager/zones/
}

SECTIONS=(crawl swarm tasksize recrawl assign text textsize schedule caps presets zones)

want=("$@")
[ ${#want[@]} -eq 0 ] && want=("${SECTIONS[@]}")
for s in "${want[@]}"; do
	if ! declare -F "bench_$s" >/dev/null; then
		echo "unknown benchmark section: $s (have: ${SECTIONS[*]})" >&2
		exit 2
	fi
	"bench_$s"
done
