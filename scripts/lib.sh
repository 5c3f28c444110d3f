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
need_pkg() {
	local cmd=$1; shift
	case $cmd in
	*/*) compgen -G "$cmd" >/dev/null && return 0 ;;
	*) command -v "$cmd" >/dev/null 2>&1 && return 0 ;;
	esac
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "$cmd is missing and apt-get is not available: install $* by hand" >&2
		return 1
	fi
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	echo "Installing $* (for $cmd)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
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
