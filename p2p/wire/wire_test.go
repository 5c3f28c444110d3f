package wire

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"google.golang.org/protobuf/proto"
)

// testPeerID is a fixed, valid binary peer ID.
var testPeerID = func() []byte {
	_, pub, err := crypto.GenerateEd25519Key(strings.NewReader(strings.Repeat("k", 64)))
	if err != nil {
		panic(err)
	}
	id, err := peer.IDFromPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return []byte(id)
}()

var testAddr = ma.StringCast("/ip4/127.0.0.1/tcp/4901").Bytes()

func validPeer() *Peer {
	return &Peer{
		Id:    testPeerID,
		Addrs: [][]byte{testAddr},
		Coord: &Coordinate{Vec: []float64{0.01, -0.02, 0.003}, Error: 0.5, Height: 0.001},
		Load:  &Load{Rtl: 1.5, Rpl: 300},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		msg     Message
		wantErr bool
	}{
		{"coordinate ok", &Coordinate{Vec: []float64{1, 2}}, false},
		{"coordinate inf", &Coordinate{Vec: []float64{math.Inf(1)}}, true},
		{"coordinate negative error", &Coordinate{Vec: []float64{1}, Error: -1}, true},
		{"coordinate no dims", &Coordinate{}, true},
		{"peer ok", validPeer(), false},
		{"peer bad id", &Peer{Id: []byte("nope")}, true},
		{"peer bad addr", &Peer{Id: testPeerID, Addrs: [][]byte{{0xff, 0xff}}}, true},
		{"peer negative load", &Peer{Id: testPeerID, Load: &Load{Rtl: -1}}, true},
		{"peer infinite load", &Peer{Id: testPeerID, Load: &Load{Rtl: math.Inf(1)}}, false},
		{"peer with waiting tasks and idle threads", &Peer{Id: testPeerID, Load: &Load{Waiting: 4, Idle: MaxSlots}}, false},
		{"peer with too many idle threads", &Peer{Id: testPeerID, Load: &Load{Idle: MaxSlots + 1}}, true},
		{"heartbeat ok", &Heartbeat{Self: validPeer(), Neighbours: []*Peer{validPeer()}, Seq: 7}, false},
		{"heartbeat no self", &Heartbeat{}, true},
		{"heartbeat with certificates", &Heartbeat{Self: validPeer(), Certs: [][]byte{make([]byte, 120)}}, false},
		{"heartbeat empty certificate", &Heartbeat{Self: validPeer(), Certs: [][]byte{{}}}, true},
		{"heartbeat huge certificate", &Heartbeat{Self: validPeer(), Certs: [][]byte{make([]byte, MaxCertSize+1)}}, true},
		{"heartbeat too many certificates", &Heartbeat{Self: validPeer(), Certs: slices.Repeat([][]byte{{1}}, MaxCerts+1)}, true},
		{"heartbeat too many neighbours", &Heartbeat{Self: validPeer(), Neighbours: make([]*Peer, MaxNeighbours+1)}, true},
		{"insert ok", &Insert{Envelope: []byte{1}, Target: []float64{0.5, 0.5, 0.5}, Ttl: 3, Hops: 2}, false},
		{"insert with a path", &Insert{Envelope: []byte{1}, Target: []float64{0.5}, Lbi: true, Path: [][]byte{{1}, {2}}}, false},
		{"insert path too long", &Insert{Envelope: []byte{1}, Target: []float64{0.5}, Lbi: true, Path: slices.Repeat([][]byte{{1}}, MaxTTL+2)}, true},
		{"insert no envelope", &Insert{Target: []float64{0.5}}, true},
		{"insert huge envelope", &Insert{Envelope: make([]byte, MaxEnvelopeSize+1), Target: []float64{0.5}}, true},
		{"insert ttl too large", &Insert{Envelope: []byte{1}, Target: []float64{0.5}, Ttl: MaxTTL + 1}, true},
		{"insert looping", &Insert{Envelope: []byte{1}, Target: []float64{0.5}, Hops: MaxHops + 1}, true},
		{"insert response ok", &InsertResponse{Accepted: true, Owner: testPeerID, Hops: 4}, false},
		{"insert response refused", &InsertResponse{Error: "forged task"}, false},
		{"insert response accepted without owner", &InsertResponse{Accepted: true}, true},
		{"insert response neither", &InsertResponse{}, true},
		{"handover ok", &Handover{Certs: [][]byte{{3}}, Queued: [][]byte{{1}}, Running: [][]byte{{2}}}, false},
		{"handover too many certificates", &Handover{Certs: slices.Repeat([][]byte{{3}}, MaxZones+1)}, true},
		{"handover empty task", &Handover{Queued: [][]byte{{}}}, true},
		{"handover too many tasks", &Handover{Queued: make([][]byte, MaxHandoverTasks+1)}, true},
		{"handover response ok", &HandoverResponse{Accepted: true, Tasks: 2}, false},
		{"handover response long error", &HandoverResponse{Error: strings.Repeat("x", MaxErrorLen+1)}, true},
		{"handover response declined ok", &HandoverResponse{Accepted: true, Tasks: 1, Declined: []uint32{0, 2}}, false},
		{"handover response too many declined", &HandoverResponse{Accepted: true, Declined: make([]uint32, MaxDeclined+1)}, true},
		{"measure request ok", &MeasureRequest{HostPort: "example.com:443", Samples: 3}, false},
		{"measure request ipv6", &MeasureRequest{HostPort: "[2001:db8::1]:80"}, false},
		{"measure request no port", &MeasureRequest{HostPort: "example.com"}, true},
		{"measure request port zero", &MeasureRequest{HostPort: "example.com:0"}, true},
		{"measure request named port", &MeasureRequest{HostPort: "example.com:https"}, true},
		{"measure request no host", &MeasureRequest{HostPort: ":80"}, true},
		{"measure request space", &MeasureRequest{HostPort: "exa mple.com:80"}, true},
		{"measure request too many samples", &MeasureRequest{HostPort: "a:1", Samples: MaxSamples + 1}, true},
		{"measure response ok", &MeasureResponse{MedianMicros: 35_000, Samples: 3}, false},
		{"measure response error", &MeasureResponse{Error: "refused: private address"}, false},
		{"measure response zero median", &MeasureResponse{Samples: 3}, true},
		{"measure response no samples", &MeasureResponse{MedianMicros: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.msg.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestConnExchange(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	server := NewConn(b, MaxHandoverSize)
	done := make(chan error, 1)
	var got []*Handover
	go func() {
		for {
			var m Handover
			if err := server.Read(ctx, &m); err != nil {
				done <- err
				return
			}
			got = append(got, &m)
			if !m.More {
				done <- server.Write(ctx, &HandoverResponse{Accepted: true, Tasks: 3}, MaxHandoverResponseSize)
				return
			}
		}
	}()
	client := NewConn(a, MaxHandoverResponseSize)
	batches := []*Handover{
		{Certs: [][]byte{[]byte("c1")}, Queued: [][]byte{[]byte("t1"), []byte("t2")}, More: true},
		{Running: [][]byte{[]byte("t3")}},
	}
	if err := client.Write(ctx, batches[0], MaxHandoverSize); err != nil {
		t.Fatal(err)
	}
	var resp HandoverResponse
	if err := client.Exchange(ctx, batches[1], MaxHandoverSize, &resp); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server: %v", err)
	}
	if !resp.Accepted || resp.Tasks != 3 {
		t.Fatalf("response = %v", &resp)
	}
	if len(got) != 2 || !proto.Equal(got[0], batches[0]) || !proto.Equal(got[1], batches[1]) {
		t.Fatalf("server got %v, want %v", got, batches)
	}
}

func TestConnRefuses(t *testing.T) {
	tests := []struct {
		name    string
		send    func(ctx context.Context, w net.Conn) // raw bytes from the peer
		maxRead int
		want    error
	}{
		{"oversized frame", func(ctx context.Context, w net.Conn) {
			NewConn(w, 0).Write(ctx, &Insert{Envelope: make([]byte, 2000), Target: []float64{0.5}}, MaxInsertSize)
		}, 1000, ErrTooLarge},
		{"invalid message", func(ctx context.Context, w net.Conn) {
			b, _ := proto.Marshal(&Insert{Target: []float64{2}})
			w.Write(append([]byte{byte(len(b))}, b...))
		}, MaxInsertSize, ErrInvalid},
		{"silent peer", func(ctx context.Context, w net.Conn) {}, MaxInsertSize, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			go tt.send(ctx, a)
			var m Insert
			err := NewConn(b, tt.maxRead).Read(ctx, &m)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Read = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestWriteRefusesOversized(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	err := NewConn(a, 0).Write(context.Background(), &Insert{Envelope: make([]byte, 100), Target: []float64{0.5}}, 50)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Write = %v, want ErrTooLarge", err)
	}
}

// TestPeerAddrs: a peer record carries at most MaxAddrs addresses, and
// reads back its ID and every address it carries.
func TestPeerAddrs(t *testing.T) {
	var as []ma.Multiaddr
	for i := range MaxAddrs + 3 {
		as = append(as, ma.StringCast(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", 4000+i)))
	}
	p := &Peer{Id: testPeerID, Addrs: AddrBytes(as)}
	if err := p.Validate(); err != nil {
		t.Fatalf("a record of AddrBytes: %v", err)
	}
	id, got := p.Decode()
	if string(id) != string(testPeerID) || len(got) != MaxAddrs || !got[MaxAddrs-1].Equal(as[MaxAddrs-1]) {
		t.Fatalf("Decode = %s, %v; want the ID and the first %d addresses", id, got, MaxAddrs)
	}
}
