package wire

import (
	"testing"

	"google.golang.org/protobuf/proto"
)

// fuzzDecode checks that decoding never panics, that whatever passes
// validation survives a round trip, and that it stays within max.
func fuzzDecode[T any, P interface {
	*T
	Message
}](f *testing.F, max int, seeds ...P) {
	for _, s := range seeds {
		b, err := proto.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m P = new(T)
		if err := Unmarshal(b, m, max); err != nil {
			return
		}
		again, err := proto.Marshal(m)
		if err != nil {
			t.Fatalf("re-encode valid message: %v", err)
		}
		var m2 P = new(T)
		if err := Unmarshal(again, m2, max+len(again)); err != nil {
			t.Fatalf("re-decode valid message: %v", err)
		}
		if !proto.Equal(m, m2) {
			t.Fatalf("round trip changed the message: %v != %v", m, m2)
		}
	})
}

func FuzzHeartbeat(f *testing.F) {
	fuzzDecode(f, MaxHeartbeatSize, &Heartbeat{Self: validPeer(), Neighbours: []*Peer{validPeer(), validPeer()}, Seq: 9, Certs: [][]byte{make([]byte, 117)}})
}

func FuzzInsert(f *testing.F) {
	fuzzDecode(f, MaxInsertSize, &Insert{Envelope: []byte("envelope"), Target: []float64{0.25, 0.5, 0.75}, Ttl: 3, Hops: 1, Lbi: true, Path: [][]byte{[]byte("cert")}})
}

func FuzzInsertResponse(f *testing.F) {
	fuzzDecode(f, MaxInsertResponseSize, &InsertResponse{Accepted: true, Owner: testPeerID, Hops: 3}, &InsertResponse{Error: "forged"})
}

func FuzzHandover(f *testing.F) {
	fuzzDecode(f, MaxHandoverSize, &Handover{
		Certs:   [][]byte{[]byte("cert")},
		Queued:  [][]byte{[]byte("a"), []byte("b")},
		Running: [][]byte{[]byte("c")},
		More:    true,
	})
}

func FuzzHandoverResponse(f *testing.F) {
	fuzzDecode(f, MaxHandoverResponseSize, &HandoverResponse{Accepted: true, Tasks: 3}, &HandoverResponse{Error: "full"}, &HandoverResponse{Accepted: true, Tasks: 1, Declined: []uint32{1, 2}})
}

func FuzzMeasureRequest(f *testing.F) {
	fuzzDecode(f, MaxMeasureRequestSize, &MeasureRequest{HostPort: "example.com:443", Samples: 3}, &MeasureRequest{HostPort: "[::1]:80"})
}

func FuzzMeasureResponse(f *testing.F) {
	fuzzDecode(f, MaxMeasureResponseSize,
		&MeasureResponse{MedianMicros: 42_000, Samples: 3, Coord: &Coordinate{Vec: []float64{0.1, 0.2, 0.3}}},
		&MeasureResponse{Error: "refused"})
}
