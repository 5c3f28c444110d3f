#!/usr/bin/env bash
# The whole test suite: what `make test` and CI run.
#
# It installs what the tests need and nothing more: Debian packages
# without their recommendations, with no service started or enabled
# (scripts/lib.sh apt_install), promtool taken out of Debian's package
# rather than the Prometheus server installed, and gotestsum, the runner
# that prints each package as it ends, into the per-user cache. The
# README lists it all and how to remove it.
#
# Every run keeps its whole log under a name of its own, printed first:
# $HIVECRAWL_TEST_LOGS (default ~/.cache/hivecrawl/test-logs)/RUN/,
# with test.log (what the terminal showed), events.json (every test
# event) and vet.log (go vet's findings on the packages without tests).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

logs=${HIVECRAWL_TEST_LOGS:-${XDG_CACHE_HOME:-$HOME/.cache}/hivecrawl/test-logs}
run=$logs/$(date -u +%Y%m%dT%H%M%SZ)-$$
mkdir -p "$run"
exec > >(tee "$run/test.log") 2>&1
tee_pid=$!
# At exit, let tee write the last lines before the script's caller goes on.
trap 'exec >&- 2>&-; wait $tee_pid' EXIT
echo "== log: $run"
started=$SECONDS

need_go
# The desktop's tests drive a real browser and a private D-Bus session
# (the session daemon alone, not the system bus).
need_pkg chromium chromium
need_pkg dbus-daemon dbus-daemon dbus-session-bus-common
# The battery pause is tested against python3-dbusmock's UPower on a
# private bus (testkit/dbustest).
need_pkg '/usr/lib/python3/dist-packages/dbusmock/__init__.py' python3-dbusmock
# The installer tests build with NSIS, inspect with file and check the
# .deb with lintian; hivecrawl(1) is checked as lintian does, with man.
need_pkg makensis nsis
# The Windows build runs under Wine (wine64 puts its loader off PATH).
need_pkg /usr/lib/wine/wine64 wine64
need_pkg file file
need_pkg lintian lintian
need_pkg man man-db
# crawler/botauth checks its signatures with the web-bot-auth npm package,
# which the test installs into the user's cache.
need_pkg node nodejs
need_pkg npm npm
# The manager's PostgreSQL tests start a throwaway server
# (testkit/pgtest) from Debian's server binaries, which are not on PATH.
need_pkg '/usr/lib/postgresql/*/bin/initdb' postgresql
# The NAT lab's home routers (swarm/netlab) use iptables MASQUERADE.
need_pkg iptables iptables
# The text extraction is checked on real large pages: Python's Sphinx docs.
need_pkg '/usr/share/doc/python3*/html/library/shutil.html' python3-doc
# The metrics endpoints' text is checked with promtool.
need_promtool
need_gotestsum

echo "== gofmt"
out=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$out" ]; then echo "gofmt needed:"; echo "$out"; exit 1; fi

# CGO is needed by the race detector.
export CGO_ENABLED=1
echo "== go test -race -vet=all"
# scripts/gotest-json.sh runs the packages as two go test commands side
# by side, each with its own timeout and parallelism (see there), and
# gotestsum prints each package as it ends.
status=0
gotestsum --format pkgname --format-icons text \
	--raw-command -- scripts/gotest-json.sh "$run" || status=$?
if [ -s "$run/go-test.stderr" ]; then
	echo "== go test's other output"
	cat "$run/go-test.stderr"
fi
# The packages without tests were vetted beside the tests
# (scripts/gotest-json.sh).
vet=$(cat "$run/vet.status" 2>/dev/null || echo "did not run")
if [ -s "$run/vet.log" ] || [ "$vet" != 0 ]; then
	echo "== go vet -race, packages without tests: exit status $vet"
	cat "$run/vet.log" 2>/dev/null || true
	[ "$vet" = 0 ] || status=1
fi
echo "== $((SECONDS - started)) s in all; log: $run"
# The closing line counts the tests (subtests included) as gotestsum did.
count() { grep -c "\"Action\":\"$1\",\"Package\":\"[^\"]*\",\"Test\":" "$run/events.json" || true; }
echo "tests: $(count pass) passed, $(count fail) failed, $(count skip) skipped"
exit $status
