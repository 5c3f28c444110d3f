package wire_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/testkit/p2ptest"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

const echoProtocol = "/hivecrawl/test/echo/1.0.0"

// TestCallAnswer: a request Call sends is answered by Answer on the other
// peer, which learns who asked; a request over the answerer's limit and
// an answer over the caller's fail at both ends and reset the stream.
func TestCallAnswer(t *testing.T) {
	a, b := p2ptest.Host(t), p2ptest.Host(t)
	answered := make(chan error, 1)
	b.SetStreamHandler(echoProtocol, func(s network.Stream) {
		var req wire.InsertResponse
		answered <- wire.Answer(s, &req, 64, 1<<10, func(_ context.Context, from peer.ID) wire.Message {
			return &wire.InsertResponse{Error: req.Error + " from " + from.String(), Hops: req.Hops + 1}
		})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a.Peerstore().AddAddrs(b.ID(), b.Addrs(), time.Minute)

	var resp wire.InsertResponse
	relayed, err := wire.Call(ctx, a, b.ID(), echoProtocol, &wire.InsertResponse{Error: "hello", Hops: 1}, 1<<10, &resp, 1<<10)
	if err != nil || relayed {
		t.Fatalf("call: relayed %v, %v", relayed, err)
	}
	if want := "hello from " + a.ID().String(); resp.Error != want || resp.Hops != 2 {
		t.Fatalf("answer %q, %d hops; want %q, 2", resp.Error, resp.Hops, want)
	}
	if err := <-answered; err != nil {
		t.Fatalf("answerer: %v", err)
	}

	_, err = wire.Call(ctx, a, b.ID(), echoProtocol, &wire.InsertResponse{Error: strings.Repeat("x", 100)}, 1<<10, &resp, 1<<10)
	if err == nil {
		t.Fatal("a request over the answerer's limit was answered")
	}
	if err := <-answered; !errors.Is(err, wire.ErrTooLarge) {
		t.Fatalf("answerer of a request over its limit: %v, want %v", err, wire.ErrTooLarge)
	}

	_, err = wire.Call(ctx, a, b.ID(), echoProtocol, &wire.InsertResponse{Error: strings.Repeat("y", 40)}, 1<<10, &resp, 16)
	if !errors.Is(err, wire.ErrTooLarge) {
		t.Fatalf("an answer over the caller's limit: %v, want %v", err, wire.ErrTooLarge)
	}
	<-answered
}
