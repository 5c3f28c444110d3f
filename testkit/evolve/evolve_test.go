package evolve

import (
	"context"
	"testing"
	"time"
)

// TestStrategiesOnEvolvingSite runs every strategy on a small evolving site
// with the real crawler and channel database: conditional GETs spare the
// downloads of unchanged pages (a page whose validators match is not
// downloaded again), and the plans that choose pages ask for fewer than
// uniform recrawl at the same budget or keep the site fresher.
func TestStrategiesOnEvolvingSite(t *testing.T) {
	cfg := Config{
		Site:   SiteConfig{Sections: 4, PerSection: 7, Never: 0.2, MinRate: 1.0 / 500, MaxRate: 0.5, Horizon: 50 * time.Hour, PageBytes: 2000, Seed: 3},
		Rounds: 30, Interval: time.Hour, Samples: 4, Dir: t.TempDir(),
	}
	reps, err := Run(context.Background(), cfg, Strategies(20))
	if err != nil {
		t.Fatal(err)
	}
	by := make(map[string]Report)
	for _, r := range reps {
		t.Logf("%+v", r)
		by[r.Strategy] = r
	}
	unc, uni, ada, fou := by["uniform, unconditional"], by["uniform"], by["adaptive + selective"], by["fountain planner"]
	if unc.NotModified != 0 || unc.Downloads != unc.Requests {
		t.Fatalf("unconditional recrawl got 304s: %+v", unc)
	}
	if uni.Requests != unc.Requests || uni.NotModified == 0 || uni.Downloads >= unc.Downloads/2 || uni.Bytes >= unc.Bytes/2 {
		t.Fatalf("conditional GETs did not spare unchanged pages: %+v against %+v", uni, unc)
	}
	if uni.Freshness != unc.Freshness {
		t.Fatalf("a 304 changed freshness: %.4f against %.4f", uni.Freshness, unc.Freshness)
	}
	if ada.Requests >= uni.Requests {
		t.Fatalf("adaptive plan asked for %d pages, uniform %d", ada.Requests, uni.Requests)
	}
	if fou.Freshness <= uni.Freshness {
		t.Fatalf("planner freshness %.4f, uniform %.4f at the same budget", fou.Freshness, uni.Freshness)
	}
}
