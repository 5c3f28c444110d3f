package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

func newPeerID(t testing.TB) peer.ID {
	t.Helper()
	_, pub, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestPeerBookKeepsTheNewestAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peers.json")
	b, err := OpenPeerBook(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	ids := []peer.ID{newPeerID(t), newPeerID(t), newPeerID(t)}
	addr := ma.StringCast("/ip4/198.51.100.7/tcp/4901")
	for i, id := range ids {
		b.Note(peer.AddrInfo{ID: id, Addrs: []ma.Multiaddr{addr}}, t0.Add(time.Duration(i)*time.Minute))
	}
	b.Note(peer.AddrInfo{ID: newPeerID(t)}, t0.Add(time.Hour)) // no address: not kept
	if err := b.Save(); err != nil {
		t.Fatal(err)
	}

	again, err := OpenPeerBook(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Peers()
	if len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Fatalf("peers after a restart: %v, want the two seen last, newest first (%s, %s)", got, ids[2], ids[1])
	}
	if !got[0].Addrs[0].Equal(addr) {
		t.Errorf("address %s, want %s", got[0].Addrs[0], addr)
	}
}

func TestPeerBookDamagedFileMovedAside(t *testing.T) {
	for name, content := range map[string]string{
		"not json":  "{peers",
		"cut short": `[{"id":"`,
		"oversized": "[" + strings.Repeat(" ", maxBookFile) + "]",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "peers.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := OpenPeerBook(path, 0)
			if err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("err = %v, want it to say the book is damaged", err)
			}
			if len(b.Peers()) != 0 {
				t.Error("a damaged book gave peers")
			}
			if _, err := os.Stat(path + ".damaged"); err != nil {
				t.Errorf("damaged file not kept aside: %v", err)
			}
			if err := b.Save(); err != nil {
				t.Errorf("the empty book cannot be saved over it: %v", err)
			}
		})
	}
}

func TestPeerBookSkipsBadEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peers.json")
	good := newPeerID(t)
	content := `[{"id":"not a peer","addrs":["/ip4/198.51.100.7/tcp/4901"]},
		{"id":"` + good.String() + `","addrs":["nonsense","/ip4/198.51.100.8/udp/4901/quic-v1"]},
		{"id":"` + newPeerID(t).String() + `","addrs":["nonsense"]}]`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := OpenPeerBook(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := b.Peers()
	if len(got) != 1 || got[0].ID != good || len(got[0].Addrs) != 1 {
		t.Fatalf("peers %v, want only %s with its one valid address", got, good)
	}
}

func FuzzPeerBook(f *testing.F) {
	f.Add([]byte(`[{"id":"12D3KooWAu8ZGC15MrA4WzT4SPD8srs72JfH5FjEifhsJQjpiBba","addrs":["/ip4/198.51.100.7/tcp/4901"],"seen":"2026-11-26T06:00:00Z"}]`))
	f.Add([]byte(`{`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "peers.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, _ := OpenPeerBook(path, 4)
		peers := b.Peers()
		if len(peers) > 4 {
			t.Fatalf("%d peers in a book of 4", len(peers))
		}
		for _, ai := range peers {
			if ai.ID == "" || len(ai.Addrs) == 0 {
				t.Fatalf("peer without ID or address: %v", ai)
			}
		}
		if err := b.Save(); err != nil {
			t.Fatal(err)
		}
	})
}
