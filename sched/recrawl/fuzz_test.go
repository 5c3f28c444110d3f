package recrawl

import (
	"math"
	"testing"
	"time"
)

// FuzzStrategies drives every strategy with an arbitrary event stream and
// checks the invariants callers rely on: intervals stay positive and finite,
// groups stay ordered (IIR, ICR), the cap holds, and estimates stay sane.
func FuzzStrategies(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(3), true)
	f.Add([]byte{255, 0, 255, 0, 17, 34, 51, 68}, uint8(5), false)
	f.Add([]byte("reassign after many updates and failures"), uint8(2), true)
	f.Fuzz(func(t *testing.T, data []byte, groups uint8, capOn bool) {
		k := int(groups%6) + 1
		var chans []Channel
		for i := range 2 * k {
			chans = append(chans, Channel{Group: i % k, ChangeInterval: time.Duration(60<<(i%k)) * time.Minute})
		}
		cfg := Config{Groups: k, Cap: capOn}
		mk := []func() (Strategy, error){
			func() (Strategy, error) { return NewIIR(chans, cfg, epoch) },
			func() (Strategy, error) { return NewICR(chans, cfg, epoch) },
			func() (Strategy, error) { return NewController(chans, cfg, epoch) },
			func() (Strategy, error) { return NewFixed(chans, cfg, epoch) },
		}
		for _, m := range mk {
			s, err := m()
			if err != nil {
				t.Fatal(err)
			}
			now := epoch
			for _, b := range data {
				now = now.Add(time.Duration(b&0x3f) * time.Minute)
				ch := int(b) % len(chans)
				switch b >> 6 {
				case 0:
					s.Submitted(ch, now)
				case 1:
					s.Succeeded(ch, now)
				case 2:
					s.Failed(ch, Failure(int(b)%3+1), now)
				case 3:
					if s.Due(now) || b&1 == 1 {
						s.Reassign(now)
					}
				}
			}
			iv := s.Intervals()
			_, ordered := s.(*Controller)
			_, fixed := s.(*Fixed)
			for p, v := range iv {
				if v <= 0 || v > 1<<62 {
					t.Fatalf("%T: group %d interval %v", s, p, v)
				}
				if p > 0 && !ordered && !fixed && iv[p] < iv[p-1] {
					t.Fatalf("%T: intervals out of order %v", s, iv)
				}
			}
			for ch, c := range chans {
				got := s.Interval(ch)
				if (capOn || ordered) && !fixed && got < c.ChangeInterval/2 {
					t.Fatalf("%T: channel %d interval %v below half of %v", s, ch, got, c.ChangeInterval)
				}
			}
		}
		var e ChangeEstimate
		for i := 0; i+2 < len(data); i += 3 {
			e.Observe(int(data[i]), int(data[i+1]), time.Duration(data[i+2])*time.Minute)
		}
		if v, ok := e.Interval(); ok && (v <= 0 || math.IsNaN(float64(v))) {
			t.Fatalf("estimate %v", v)
		}
	})
}
