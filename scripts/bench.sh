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
	(cd bench && go build -o "$bin" ./crawlbench)
	"$bin" ${BENCH_CRAWL_FLAGS:-}
	rm -rf "$(dirname "$bin")"
}

SECTIONS=(crawl)

want=("$@")
[ ${#want[@]} -eq 0 ] && want=("${SECTIONS[@]}")
for s in "${want[@]}"; do
	if ! declare -F "bench_$s" >/dev/null; then
		echo "unknown benchmark section: $s (have: ${SECTIONS[*]})" >&2
		exit 2
	fi
	"bench_$s"
done
