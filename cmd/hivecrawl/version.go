package main

import (
	"runtime/debug"
)

// version is Hivecrawl's release, a semantic version. It names the crawler
// to web sites (crawler.UserAgent); scripts/package.sh reads it from here
// and builds packages with it (-ldflags "-X main.version=..." gives
// another).
var version = "0.2.0"

// commit is the source revision, set at build time with
// -ldflags "-X main.commit=..." (make build, scripts/package.sh); without
// it, the revision the Go tool recorded, if it did (-buildvcs).
var commit = ""

// versionLine is what --version prints: "hivecrawl 0.2.0 (3f2a9c1d0b4e)".
func versionLine() string {
	return "hivecrawl " + version + " (" + revision() + ")"
}

// revision returns the build's source revision, "unknown" when nothing
// recorded one.
func revision() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
