//go:build !adversary

package main

import (
	"flag"

	"github.com/hivecrawl/hivecrawl/app"
)

// adversaryBuilt reports whether this program carries the test kit's
// dishonest volunteers (adversary.go). An installed program does not.
const adversaryBuilt = false

// adversaryFlags adds no flag: this program has no dishonest volunteer.
func adversaryFlags(*flag.FlagSet) func() (*app.Adversary, error) {
	return func() (*app.Adversary, error) { return nil, nil }
}
