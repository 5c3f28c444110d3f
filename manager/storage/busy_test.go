package storage

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"

	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// holdSlot opens an upload stream to r that sends the header of a genuine
// upload (of a task of its own round) and none of its page, so that its
// handler holds one of storage's slots until the returned stream is
// reset; it returns once the slot is taken.
func holdSlot(t *testing.T, r *rig, round int) network.Stream {
	t.Helper()
	_, env := r.issue(t, round)
	st := openUpload(t, r)
	if err := frame.Write(st, &upload.Header{Task: env, Pages: 1}, upload.MaxHeaderSize); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return len(r.st.sem) == cap(r.st.sem) })
	return st
}

// openUpload opens an upload stream to r from a new host.
func openUpload(t *testing.T, r *rig) network.Stream {
	t.Helper()
	h := newHost(t)
	h.Peerstore().AddAddrs(r.h.ID(), r.h.Addrs(), time.Hour)
	st, err := h.NewStream(context.Background(), r.h.ID(), upload.UploadProtocol)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestNoSlotWithoutAGenuineHeader: a stream that sends nothing of a
// header, or the header of a task the manager did not sign, holds none of
// storage's slots: any peer could otherwise keep every upload out.
func TestNoSlotWithoutAGenuineHeader(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.Concurrent = 1; o.BusyWait = 200 * time.Millisecond })
	idle := openUpload(t, r)
	defer idle.Reset()
	if _, err := idle.Write([]byte{10}); err != nil { // a header's length, and nothing of it
		t.Fatal(err)
	}
	forged := openUpload(t, r)
	defer forged.Reset()
	if err := frame.Write(forged, &upload.Header{Task: []byte("not an envelope"), Pages: 1}, upload.MaxHeaderSize); err != nil {
		t.Fatal(err)
	}
	if err := forged.CloseWrite(); err != nil { // as an uploader does after its last page
		t.Fatal(err)
	}
	br := bufio.NewReader(forged)
	b, err := frame.ReadBytes(br, br, upload.MaxResponseSize)
	if err != nil {
		t.Fatalf("no answer to a forged header: %v", err)
	}
	if resp, err := upload.DecodeResponse(b); err != nil || !resp.Final || resp.Error == "" {
		t.Fatalf("answer to a forged header %+v, %v; want a refusal for good", resp, err)
	}
	tk, env := r.issue(t, 1)
	if rc, _ := r.upload(t, tk.ID, env, site()); rc.PagesAccepted != len(site()) {
		t.Fatalf("upload beside an idle stream: receipt %+v", rc)
	}
}

// bigPages returns pages far larger than a stream's flow-control window
// (yamux: 256 KiB), in text that does not compress.
func bigPages() []*task.Page {
	b := make([]byte, 300<<10)
	rand.Read(b)
	text := hex.EncodeToString(b) // 600 KB
	return []*task.Page{page("http://site.example/", text), page("http://site.example/a", text[:len(text)/2])}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBusyStorageTakesUploadsInTurn: an upload that finds every slot
// taken waits for one, its writes held by flow control, and is stored
// once the slot frees.
func TestBusyStorageTakesUploadsInTurn(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.Concurrent = 1 })
	tk, env := r.issue(t, 1)
	holder := holdSlot(t, r, 2)
	up, _ := r.client(t)
	up.Timeout = time.Minute
	pages := bigPages()
	done := make(chan error, 1)
	go func() {
		_, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil))
		done <- err
	}()
	// The upload's stream is open and waiting beside the holder's.
	waitUntil(t, func() bool {
		n := 0
		for _, c := range r.h.Network().Conns() {
			for _, s := range c.GetStreams() {
				if s.Protocol() == upload.UploadProtocol {
					n++
				}
			}
		}
		return n == 2
	})
	holder.Reset()
	if err := <-done; err != nil {
		t.Fatalf("upload that waited for a slot: %v", err)
	}
	if tot, err := r.st.Totals(); err != nil || tot.Pages != 2 {
		t.Fatalf("totals %+v, %v; want the 2 pages stored", tot, err)
	}
}

// TestBusyStorageTurnsAwayAtOnce: an upload still without a slot after
// BusyWait is turned away with a reset, which ends its writes; left
// blocked on a full window, it would fail only at its own timeout.
func TestBusyStorageTurnsAwayAtOnce(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.Concurrent = 1; o.BusyWait = 200 * time.Millisecond })
	tk, env := r.issue(t, 1)
	holder := holdSlot(t, r, 2)
	defer holder.Reset()
	up, _ := r.client(t)
	up.Timeout = time.Minute
	pages := bigPages()
	_, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil))
	if err == nil {
		t.Fatal("an upload to busy storage succeeded")
	}
	var timeout net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout()) {
		t.Fatalf("the turned-away upload ran into its timeout: %v", err)
	}
	t.Logf("turned away: %v", err)
}
