#!/usr/bin/env bash
# The whole test suite: what `make test` and CI run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_go
# The desktop's tests drive a real browser and a private D-Bus session.
need_pkg chromium chromium
need_pkg dbus-daemon dbus
# The installer tests build with NSIS, inspect with file and check the
# .deb with lintian.
need_pkg makensis nsis
need_pkg file file
need_pkg lintian lintian
# hivecrawl(1) is checked as lintian does, with man --warnings.
need_pkg man man-db
# crawler/botauth checks its signatures with the web-bot-auth npm package,
# which the test installs into the user's cache.
need_pkg node nodejs
need_pkg npm npm
# The manager's PostgreSQL tests start a throwaway server
# (internal/pgtest) from Debian's server binaries, which are not on PATH.
need_pkg '/usr/lib/postgresql/*/bin/initdb' postgresql
# The metrics endpoints' text is checked with promtool.
need_pkg promtool prometheus
# The NAT lab's home routers (internal/netlab) use iptables MASQUERADE.
need_pkg iptables iptables
echo "== go vet"
go vet ./...
echo "== gofmt"
out=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$out" ]; then echo "gofmt needed:"; echo "$out"; exit 1; fi
echo "== go test -race"
# Time: the longest tests spend most of their time waiting (politeness
# waits, schedule ticks, processes starting and being killed). Those of
# cmd/hivecrawl run their clients as processes, so they call t.Parallel
# and run two at a time (-parallel defaults to the 2 cores), and the
# package builds its binary once. Tests that run two clients in one
# process stay one at a time: gowarc writes a process-wide uuid switch
# for every record (uuid.EnableRandPool) while go-libp2p-kad-dht reads it
# for every query, a data race the race detector catches as soon as one
# test's storage module writes WARC while another's DHT refreshes.
# internal/swarm's multi-process tests stay one after the other: each
# loads the machine on its own; only TestNAT and TestManagerDown, whose
# swarm spends 5 minutes waiting for its manager, run side by side.
# Packages are separate processes, so the race above cannot reach across
# them: -p 3 runs three packages at a time on the 2 cores (the default is
# one a core), which keeps the CPU busy while the long packages (app,
# internal/swarm, p2p/node, cmd/hivecrawl) wait. Every test must hold up on
# a busy machine anyway: volunteers' machines are.
# CGO is needed by the race detector.
# -count=1: every test runs, never a cached result from an earlier run.
CGO_ENABLED=1 go test -race -count=1 -p 3 -timeout 20m ./... 2>&1 | tee /tmp/hivecrawl-test.log
