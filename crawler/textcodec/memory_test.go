package textcodec

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
)

// TestEncoderMemory checks that the text encoder keeps one set of tables
// after crawls compressed text at once on many CPUs, not one per CPU.
func TestEncoderMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	text := bytes.Repeat([]byte("Main text of a page, extracted and about to be stored. "), 2000)
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	Encode(text) // the encoder and its dictionary are made once
	before := heap()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				Encode(text)
			}
		}()
	}
	wg.Wait()
	kept := heap() - before
	// One encoder's tables are about 1.3 MB; one per CPU were 14 MB.
	if kept > 4<<20 {
		t.Fatalf("the encoder keeps %.1f MB after concurrent use, want one encoder's tables (< 4 MB)", float64(kept)/(1<<20))
	}
}
