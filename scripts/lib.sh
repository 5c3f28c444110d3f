# Shared helpers for the scripts: sourced, not run.

# need_go: Go must be there, and new enough to fetch the release go.mod
# names (Go 1.21 and later download it by themselves through the module
# proxy; Debian 12's golang package, Go 1.19, cannot).
need_go() {
	local want local_version minor
	want=$(sed -n 's/^go //p' go.mod)
	if ! command -v go >/dev/null 2>&1; then
		echo "Go is not installed: Hivecrawl needs Go $want; see https://go.dev/doc/install" >&2
		exit 1
	fi
	local_version=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo unknown)
	minor=$(echo "$local_version" | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
	if [ -z "$minor" ] || [ "$minor" -lt 21 ]; then
		echo "Hivecrawl needs Go $want; this machine has $local_version, too old to fetch it." >&2
		echo "Install Go from https://go.dev/dl (Debian's golang package is older)." >&2
		exit 1
	fi
	go mod download
}

# need_pkg CMD PACKAGE...: install Debian packages when CMD is missing.
# A CMD with a slash is a path pattern, for programs not on PATH.
# Packages come without their recommendations, and nothing they bring is
# started or enabled (see apt_install).
need_pkg() {
	local cmd=$1; shift
	case $cmd in
	*/*) compgen -G "$cmd" >/dev/null && return 0 ;;
	*) command -v "$cmd" >/dev/null 2>&1 && return 0 ;;
	esac
	apt_install "$cmd" "$@"
}

# apt_install WHY PACKAGE...: apt-get install PACKAGE... for WHY, as a
# contributor's machine should be left: no recommended packages, no
# service started (a policy-rc.d that refuses every start, Debian's own
# switch, while apt runs) and none enabled (a unit or init script the
# install enabled is disabled again). Without apt-get it says what to
# install by hand.
apt_install() {
	local why=$1; shift
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "$why is missing and apt-get is not available: install $* by hand" >&2
		return 1
	fi
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	echo "Installing $* (for $why), without recommended packages or services"
	local before after policy=/usr/sbin/policy-rc.d own_policy=""
	before=$(enabled_units)
	if [ ! -e $policy ]; then
		printf '#!/bin/sh\n# hivecrawl test install: start no service\nexit 101\n' | $sudo tee $policy >/dev/null
		$sudo chmod 755 $policy
		own_policy=1
	fi
	local rc=0
	$sudo apt-get update -qq || rc=$?
	[ $rc -eq 0 ] && { DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends "$@" >/dev/null || rc=$?; }
	[ -n "$own_policy" ] && $sudo rm -f $policy
	after=$(enabled_units)
	local unit
	for unit in $after; do
		printf '%s\n' "$before" | grep -qxF "$unit" && continue
		echo "Disabling $unit, which the install enabled"
		case $unit in
		rc:*) $sudo update-rc.d "${unit#rc:}" disable >/dev/null 2>&1 || true ;;
		*) $sudo deb-systemd-helper disable "$unit" >/dev/null 2>&1 ||
			$sudo systemctl disable "$unit" >/dev/null 2>&1 || true ;;
		esac
	done
	return $rc
}

# enabled_units lists, sorted, the systemd units enabled through
# /etc/systemd/system and the init scripts started in a runlevel (as
# rc:NAME), whether or not systemd runs here.
enabled_units() {
	{
		find /etc/systemd/system -mindepth 2 -maxdepth 2 -path '*.wants/*' -printf '%f\n' 2>/dev/null
		find /etc/rc2.d /etc/rc3.d /etc/rc5.d -name 'S*' -printf 'rc:%f\n' 2>/dev/null |
			sed 's/^rc:S[0-9]*/rc:/'
	} | sort -u
}

# need_promtool puts Prometheus's promtool on PATH without installing the
# Prometheus server: the binary is taken out of Debian's prometheus
# package into the per-user cache (apt-get download, dpkg-deb), nothing
# installed, no service. Remove it with rm -r ~/.cache/hivecrawl/tools.
need_promtool() {
	local dir=${XDG_CACHE_HOME:-$HOME/.cache}/hivecrawl/tools
	export PATH=$dir:$PATH
	command -v promtool >/dev/null 2>&1 && return 0
	command -v apt-get >/dev/null 2>&1 || {
		echo "promtool is missing and apt-get is not available: install Prometheus's promtool by hand" >&2
		return 1
	}
	echo "Taking promtool out of Debian's prometheus package into $dir (the server is not installed)"
	local tmp
	tmp=$(mktemp -d)
	mkdir -p "$dir"
	(cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get download -qq prometheus >/dev/null; }) &&
		dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb | tar -x -C "$tmp" ./usr/bin/promtool &&
		install -m 755 "$tmp/usr/bin/promtool" "$dir/promtool"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# need_gotestsum installs gotestsum, the test runner that prints each
# package as it ends, at a fixed version into the per-user cache.
need_gotestsum() {
	local dir=${XDG_CACHE_HOME:-$HOME/.cache}/hivecrawl/tools
	export PATH=$dir:$PATH
	local want=v1.13.0
	if command -v gotestsum >/dev/null 2>&1 && gotestsum --version 2>/dev/null | grep -q "${want#v}"; then
		return 0
	fi
	echo "Installing gotestsum $want into $dir"
	GOBIN=$dir CGO_ENABLED=0 go install gotest.tools/gotestsum@$want
}

# commit_id prints the checkout's commit (12 hex digits, "-dirty" with
# uncommitted changes), or nothing outside a git checkout; builds stamp it
# with -ldflags "-X main.commit=...".
commit_id() {
	local c
	c=$(git rev-parse --short=12 HEAD 2>/dev/null) || return 0
	git diff --quiet HEAD -- 2>/dev/null || c=$c-dirty
	echo "$c"
}
