#!/usr/bin/env bash
# The committed simulation results (docs/results): `make results` writes
# them again from the code as it is; `make check-results` (CI) writes them
# into a temporary folder and fails when one differs from its committed
# copy. A summary holds nothing but what the experiment and its flags
# decide (no wall time, no output folder), so equal code gives equal bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

mode=${1:-write}
case $mode in
write | check) ;;
*)
	echo "usage: scripts/results.sh [write|check]" >&2
	exit 2
	;;
esac

need_go

# Each line: the experiment and its flags, then the folder under
# docs/results it writes.
EXPERIMENTS=(
	"webfountain:webfountain"
	"assignment:assignment"
	"recrawl-rec:recrawl-rec"
	"recrawl-rec --count-all:recrawl-rec/count-all"
	"recrawl-ruc:recrawl-ruc"
	"recrawl-ruc --count-all:recrawl-ruc/count-all"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/hivecrawl
go build -trimpath -o "$bin" ./cmd/hivecrawl

out=docs/results
if [ "$mode" = check ]; then
	out=$work/results
fi
for spec in "${EXPERIMENTS[@]}"; do
	args=${spec%%:*}
	dir=$out/${spec#*:}
	# A folder written again holds only what this run writes; the
	# count-all folders live inside their experiment's.
	if [ "$mode" = write ]; then
		find "$dir" -maxdepth 1 -type f -delete 2>/dev/null || true
	fi
	# shellcheck disable=SC2086 # args is the experiment and its flags
	"$bin" sim $args --out "$dir"
done

if [ "$mode" = check ]; then
	# README.md is written by hand, the rest by the runs above.
	if ! diff -r -x README.md docs/results "$out" >"$work/diff"; then
		echo "These committed results no longer follow from the code (make results writes them again):" >&2
		grep -E '^(Only in|diff -r)' "$work/diff" | sed 's/^/  /' >&2
		head -40 "$work/diff" >&2
		exit 1
	fi
	echo "Every committed result in docs/results follows from the code."
fi
