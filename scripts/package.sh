#!/usr/bin/env bash
# Builds the installers into $OUT (default dist/): the .deb and .rpm with
# nfpm (run with `go run`, so it stays out of the client's module graph)
# and the Windows installer with NSIS around a cross-compiled hivecrawl.exe.
# SKIP_WINDOWS=1 leaves the Windows installer out. macOS: see
# installer/macos/README.md (built on a Mac).
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
# nfpm expands variables in the fields but not in file sources.
sed "s|\${BINARY}|$OUT/linux-$ARCH/hivecrawl|" installer/nfpm.yaml >"$OUT/nfpm.yaml"
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
	makensis -V2 -DVERSION="$VERSION" -DEXE="$OUT/windows-amd64/hivecrawl.exe" -DICONS="$PWD/assets/icons" \
		-DOUTFILE="$OUT/hivecrawl-$PKGVERSION-setup.exe" installer/windows/hivecrawl.nsi
fi
ls -l "$OUT"
