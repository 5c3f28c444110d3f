package recrawl

import (
	"testing"
	"time"
)

// paperChannels returns 16,000 channels in paper 000's five groups (60 …
// 960 min) with the shares of design.md §9.
func paperChannels() []Channel {
	shares := []float64{0.034, 0.247, 0.447, 0.239, 0.033}
	var out []Channel
	for p, s := range shares {
		for range int(s * 16000) {
			out = append(out, Channel{Group: p, ChangeInterval: time.Duration(60<<p) * time.Minute})
		}
	}
	return out
}

func benchStrategies(b *testing.B) map[string]func() Strategy {
	b.Helper()
	chans := paperChannels()
	must := func(s Strategy, err error) Strategy {
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	return map[string]func() Strategy{
		"IIR":        func() Strategy { return must(NewIIR(chans, Config{}, epoch)) },
		"ICR":        func() Strategy { return must(NewICR(chans, Config{}, epoch)) },
		"Controller": func() Strategy { return must(NewController(chans, Config{}, epoch)) },
	}
}

// BenchmarkRecord measures one submit/succeed/fail cycle of one channel.
func BenchmarkRecord(b *testing.B) {
	for name, mk := range benchStrategies(b) {
		b.Run(name, func(b *testing.B) {
			s := mk()
			n := len(paperChannels())
			b.ResetTimer()
			for i := range b.N {
				ch := i % n
				now := epoch.Add(time.Duration(i) * time.Second)
				s.Submitted(ch, now)
				s.Succeeded(ch, now)
				s.Submitted(ch, now)
				s.Failed(ch, FailExpired, now)
				_ = s.Interval(ch)
			}
		})
	}
}

// BenchmarkReassign measures one reassignment over 16,000 channels, each
// with a few updates recorded.
func BenchmarkReassign(b *testing.B) {
	for name, mk := range benchStrategies(b) {
		b.Run(name, func(b *testing.B) {
			s := mk()
			n := len(paperChannels())
			for ch := range n {
				for k := range 3 {
					now := epoch.Add(time.Duration(ch+k*n) * time.Second)
					s.Submitted(ch, now)
					s.Succeeded(ch, now)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				s.Reassign(epoch.Add(time.Duration(i+1) * 100 * time.Hour))
			}
		})
	}
}
