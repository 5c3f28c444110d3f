#!/usr/bin/env bash
# Builds the installers into $OUT (default dist/): the .deb and .rpm with
# nfpm (run with `go run`, so it stays out of the client's module graph)
# and the Windows installer with NSIS around a cross-compiled hivecrawl.exe.
# The manual page and the shell completions come from the program itself
# ('hivecrawl man', 'hivecrawl completion'), so they match its commands.
# SKIP_WINDOWS=1 leaves the Windows installer out; NSIS_FAST=1 stores its
# files uncompressed, in half a second instead of 20 (the tests use it).
# macOS: see installer/macos/README.md (built on a Mac).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_go
# The release is cmd/hivecrawl/version.go's unless VERSION names another.
# Package versions take no hyphen.
VERSION=${VERSION:-$(sed -n 's/^var version = "\(.*\)"$/\1/p' cmd/hivecrawl/version.go)}
VERSION=${VERSION#v}
if ! [[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]]; then
	echo "package.sh: version '$VERSION' is not a semantic version X.Y.Z" >&2
	exit 1
fi
PKGVERSION=${VERSION//-/.}
COMMIT=$(commit_id)
ARCH=${ARCH:-amd64}
OUT=${OUT:-dist}
NFPM=(go run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

echo "== hivecrawl $VERSION for linux/$ARCH"
CGO_ENABLED=0 GOOS=linux GOARCH=$ARCH go build -trimpath -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" \
	-o "$OUT/linux-$ARCH/hivecrawl" ./cmd/hivecrawl

echo "== manual page, shell completions and changelog"
GENERATED=$OUT/generated
mkdir -p "$GENERATED"
HOSTBIN=$OUT/linux-$ARCH/hivecrawl
if [ "$ARCH" != "$(go env GOHOSTARCH)" ] || [ "$(go env GOHOSTOS)" != linux ]; then
	HOSTBIN=$OUT/host/hivecrawl
	CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$VERSION" -o "$HOSTBIN" ./cmd/hivecrawl
fi
"$HOSTBIN" man | gzip -9n >"$GENERATED/hivecrawl.1.gz"
"$HOSTBIN" completion bash >"$GENERATED/hivecrawl.bash"
"$HOSTBIN" completion zsh >"$GENERATED/_hivecrawl"
"$HOSTBIN" completion fish >"$GENERATED/hivecrawl.fish"
# The Debian changelog names the release; a build of another version (a
# test, a snapshot) gets an entry of its own on top.
changelog_version=$(sed -n '1s/^hivecrawl (\([^)]*\)).*/\1/p' installer/linux/changelog)
{
	if [ "$changelog_version" != "$PKGVERSION" ]; then
		printf 'hivecrawl (%s) UNRELEASED; urgency=medium\n\n' "$PKGVERSION"
		printf '  * A build of commit %s, not a release.\n\n' "${COMMIT:-unknown}"
		printf ' -- %s  %s\n\n' "$(sed -n 's/^maintainer: //p' installer/nfpm.yaml)" \
			"$(git log -1 --format=%aD 2>/dev/null || date -R)"
	fi
	cat installer/linux/changelog
} | gzip -9n >"$GENERATED/changelog.gz"

# nfpm expands variables in the fields but not in file sources.
sed -e "s|\${BINARY}|$OUT/linux-$ARCH/hivecrawl|" -e "s|\${GENERATED}|$GENERATED|" installer/nfpm.yaml >"$OUT/nfpm.yaml"
for packager in deb rpm; do
	echo "== $packager"
	VERSION=$PKGVERSION ARCH=$ARCH "${NFPM[@]}" package --config "$OUT/nfpm.yaml" --packager "$packager" --target "$OUT/"
done

if [ -z "${SKIP_WINDOWS:-}" ]; then
	need_pkg makensis nsis
	echo "== hivecrawl.exe for windows/amd64 and its installer"
	# windowsgui: the tray program opens no console window.
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build -trimpath \
		-ldflags "-s -w -H windowsgui -X main.version=$VERSION -X main.commit=$COMMIT" -o "$OUT/windows-amd64/hivecrawl.exe" ./cmd/hivecrawl
	fast=()
	# /FINAL: the script's own SetCompressor is ignored, so it cannot turn
	# compression back on.
	[ -n "${NSIS_FAST:-}" ] && fast=("-XSetCompressor /FINAL zlib" "-XSetCompress off")
	makensis -V2 "${fast[@]}" -DVERSION="$VERSION" -DEXE="$OUT/windows-amd64/hivecrawl.exe" -DICONS="$PWD/assets/icons" \
		-DOUTFILE="$OUT/hivecrawl-$PKGVERSION-setup.exe" installer/windows/hivecrawl.nsi
fi
ls -l "$OUT"
