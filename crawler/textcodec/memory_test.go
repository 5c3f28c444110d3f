package textcodec

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
)

// heapAlloc returns the bytes of live heap objects, after collecting.
func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestEncoderHistory checks what an encoder keeps once it has compressed a
// page's text: its tables and a history of encoderWindow, not zstd's
// default 8 MB window, which stayed resident in every client that had
// crawled.
func TestEncoderHistory(t *testing.T) {
	text := bytes.Repeat([]byte("Main text of a page, extracted and about to be stored. "), 2000)
	before := heapAlloc()
	enc := newEncoder()
	enc.EncodeAll(text, nil)
	kept := heapAlloc() - before
	runtime.KeepAlive(enc)
	t.Logf("an encoder that compressed one text keeps %.1f MB", float64(kept)/(1<<20))
	if kept > 4<<20 {
		t.Fatalf("an encoder that compressed one text keeps %.1f MB, want its tables and a %d KB history (< 4 MB)", float64(kept)/(1<<20), encoderWindow>>10)
	}
}

// TestEncoderMemory checks that the text encoder keeps one set of tables
// after crawls compressed text at once on many CPUs, not one per CPU.
func TestEncoderMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	text := bytes.Repeat([]byte("Main text of a page, extracted and about to be stored. "), 2000)
	Encode(text) // the encoder and its dictionary are made once
	before := heapAlloc()
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
	kept := heapAlloc() - before
	// One encoder's tables are about 1.3 MB; one per CPU were 14 MB.
	if kept > 4<<20 {
		t.Fatalf("the encoder keeps %.1f MB after concurrent use, want one encoder's tables (< 4 MB)", float64(kept)/(1<<20))
	}
}
