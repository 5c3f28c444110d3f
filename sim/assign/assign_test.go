package assign

import (
	"reflect"
	"testing"
)

func TestSchemesSmall(t *testing.T) {
	cfg := Paper().Shrink(0.1)
	cfg.Steps = 1500
	sc, err := NewScenario(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range sc.Pages {
		total += p
	}
	if d := float64(total) - cfg.TotalPages; d > float64(cfg.Hosts) || d < -float64(cfg.Hosts) {
		t.Fatalf("pages sum to %d, want about %.0f", total, cfg.TotalPages)
	}
	if len(sc.Split) <= len(sc.Whole) {
		t.Fatalf("%d pieces for %d hosts: nothing split", len(sc.Split), len(sc.Whole))
	}
	res := map[Scheme]*Result{}
	for _, s := range Schemes {
		r, err := sc.Run(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Completed == 0 || r.Completed+r.Cancelled+r.Lost+r.Refused > r.Submitted {
			t.Fatalf("%s: completed %d cancelled %d lost %d refused %d of %d", s, r.Completed, r.Cancelled, r.Lost, r.Refused, r.Submitted)
		}
		res[s] = r
	}
	// NC-CAN hands hosts to nearby crawlers: its RTTs must be lower than
	// consistent hashing's, which ignores the network.
	rtt := func(s Scheme) float64 { return res[s].mean(func(v Sample) float64 { return v.HalfRTT }) }
	if !(rtt(NCCAN) < rtt(DHT)) {
		t.Fatalf("RTT/2 NC-CAN %.1f, DHT %.1f", rtt(NCCAN), rtt(DHT))
	}
	again, err := sc.Run(LBI, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, res[LBI]) {
		t.Fatal("LBI run not deterministic")
	}
}
