#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-10s}
for pkg in $(go list ./...); do
	for f in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
		echo "== $pkg $f"
		go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg"
	done
done
