package web_test

import (
	"strings"
	"testing"
)

// Credit totals that sum to nothing can be a hair below zero (the ledger
// adds and takes away floats); the page shows 0, never −0.
func TestBrowserCreditsNeverNegativeZero(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	signIn(t, ctx, r, "")
	got := text(t, ctx, "formatted credits", `[-1e-14, -0.04, 0, 0.04, 0.06, 12.34, -2.5].map(v => window.HC.fmtCredits(v)).join(' ')`,
		func(s string) bool { return s != "" })
	if want := "0 0 0 0 0.1 12.3 -2.5"; got != want {
		t.Errorf("credits formatted as %q, want %q", got, want)
	}
	pending := text(t, ctx, "pending credits", `document.getElementById('credits-pending').textContent`,
		func(s string) bool { return s != "–" })
	if strings.Contains(pending, "-") || strings.Contains(pending, "−") {
		t.Errorf("pending credits shown as %q", pending)
	}
}
