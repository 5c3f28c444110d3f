package webfountain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunSmall(t *testing.T) {
	r, err := Run(32, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Strategies) != 4 {
		t.Fatalf("%d strategies", len(r.Strategies))
	}
	T := r.Model.Periods
	// Strategy 2 optimises only the last period, so it cannot end worse
	// than the uniform baseline there.
	if s2, u := r.Strategies[1].Plan.ObsoleteAt(T-1), r.Strategies[3].Plan.ObsoleteAt(T-1); s2 > u*1.0001 {
		t.Fatalf("strategy 2 ends with %g obsolete pages, uniform %g", s2, u)
	}
	dir := t.TempDir()
	body, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "Table 3") || !strings.Contains(body, "Strategy 3") {
		t.Fatalf("summary:\n%s", body)
	}
	for _, f := range []string{"fig3-crawls.svg", "fig4-obsolete.svg", "fig3-crawls.csv", "fig4-obsolete.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
}
