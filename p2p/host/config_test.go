package host

import (
	"testing"
)

func TestParseBootstrap(t *testing.T) {
	const id = "12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA"
	tests := []struct {
		name    string
		in      []string
		peers   int
		addrs   int // of the first peer
		wantErr bool
	}{
		{"none", nil, 0, 0, false},
		{"one", []string{"/ip4/127.0.0.1/tcp/4901/p2p/" + id}, 1, 1, false},
		{"two addresses of one peer", []string{"/ip4/127.0.0.1/tcp/4901/p2p/" + id, "/ip4/127.0.0.1/udp/4901/quic-v1/p2p/" + id}, 1, 2, false},
		{"no peer ID", []string{"/ip4/127.0.0.1/tcp/4901"}, 0, 0, true},
		{"garbage", []string{"bootstrap.example:4901"}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBootstrap(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseBootstrap(%v) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if len(got) != tt.peers {
				t.Fatalf("ParseBootstrap(%v) = %d peers, want %d", tt.in, len(got), tt.peers)
			}
			if tt.peers > 0 && len(got[0].Addrs) != tt.addrs {
				t.Fatalf("first peer has %d addresses, want %d: %v", len(got[0].Addrs), tt.addrs, got)
			}
		})
	}
}

func FuzzParseBootstrap(f *testing.F) {
	f.Add("/ip4/127.0.0.1/tcp/4901/p2p/12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA")
	f.Add("/dns4/boot.example/udp/4901/quic-v1/p2p/12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		infos, err := ParseBootstrap([]string{s})
		if err != nil {
			return
		}
		for _, ai := range infos {
			if ai.ID == "" {
				t.Fatalf("parsed %q into a peer without ID", s)
			}
		}
	})
}
