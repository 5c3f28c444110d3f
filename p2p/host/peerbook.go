package host

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// DefaultBookSize is how many peers a PeerBook keeps.
const DefaultBookSize = 32

// maxBookFile bounds the file a PeerBook reads: DefaultBookSize peers
// with a few addresses each take a few KiB.
const maxBookFile = 1 << 20

// PeerBook remembers good peers across restarts: overlay members this
// peer exchanged heartbeats with, and the addresses they were reached
// at. When the manager cannot be reached, a peer joins the overlay
// through them. It keeps the Size most recently seen; it is safe for
// concurrent use.
type PeerBook struct {
	path string
	size int

	mu    sync.Mutex // guards peers
	peers map[peer.ID]bookEntry
}

// bookEntry is one peer in the file.
type bookEntry struct {
	ID    string    `json:"id"`
	Addrs []string  `json:"addrs"`
	Seen  time.Time `json:"seen"`
}

// OpenPeerBook reads the book kept at path (none yet is an empty book).
// A damaged file is renamed path+".damaged" and the book starts empty,
// with the reason returned beside the book: it holds only hints, which
// the overlay gives again.
func OpenPeerBook(path string, size int) (*PeerBook, error) {
	b := &PeerBook{path: path, size: cmp.Or(size, DefaultBookSize), peers: map[peer.ID]bookEntry{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return b, fmt.Errorf("peer book: %w", err)
	}
	defer f.Close()
	var entries []bookEntry
	// A file past the bound reads as cut short: damaged.
	dec := json.NewDecoder(io.LimitReader(f, maxBookFile))
	if err := dec.Decode(&entries); err != nil {
		aside := path + ".damaged"
		return b, errors.Join(fmt.Errorf("peer book %s is damaged, moved to %s: %w", path, aside, err), os.Rename(path, aside))
	}
	for _, e := range entries {
		if ai, err := e.addrInfo(); err == nil {
			b.peers[ai.ID] = e
		}
	}
	b.trimLocked()
	return b, nil
}

// addrInfo parses e, dropping addresses that do not parse; an entry
// without a valid ID or address fails.
func (e bookEntry) addrInfo() (peer.AddrInfo, error) {
	id, err := peer.Decode(e.ID)
	if err != nil {
		return peer.AddrInfo{}, err
	}
	ai := peer.AddrInfo{ID: id}
	for _, s := range e.Addrs {
		if a, err := ma.NewMultiaddr(s); err == nil {
			ai.Addrs = append(ai.Addrs, a)
		}
	}
	if len(ai.Addrs) == 0 {
		return ai, fmt.Errorf("peer %s: no address", id)
	}
	return ai, nil
}

// Note records that ai was a good peer at now. A peer without addresses
// is not recorded: it could not be dialled after a restart.
func (b *PeerBook) Note(ai peer.AddrInfo, now time.Time) {
	if len(ai.Addrs) == 0 {
		return
	}
	e := bookEntry{ID: ai.ID.String(), Seen: now.UTC()}
	for _, a := range ai.Addrs {
		e.Addrs = append(e.Addrs, a.String())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.peers[ai.ID] = e
	b.trimLocked()
}

// trimLocked drops the least recently seen peers past the book's size.
func (b *PeerBook) trimLocked() {
	if len(b.peers) <= b.size {
		return
	}
	for _, e := range b.sortedLocked()[b.size:] {
		id, _ := peer.Decode(e.ID)
		delete(b.peers, id)
	}
}

// sortedLocked returns the entries, most recently seen first.
func (b *PeerBook) sortedLocked() []bookEntry {
	out := make([]bookEntry, 0, len(b.peers))
	for _, e := range b.peers {
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y bookEntry) int {
		return cmp.Or(y.Seen.Compare(x.Seen), cmp.Compare(x.ID, y.ID))
	})
	return out
}

// Peers returns the book's peers, most recently seen first.
func (b *PeerBook) Peers() []peer.AddrInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []peer.AddrInfo
	for _, e := range b.sortedLocked() {
		if ai, err := e.addrInfo(); err == nil {
			out = append(out, ai)
		}
	}
	return out
}

// Save writes the book to its file, atomically.
func (b *PeerBook) Save() error {
	b.mu.Lock()
	data, err := json.MarshalIndent(b.sortedLocked(), "", "  ")
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("peer book: %w", err)
	}
	if err := atomicfile.WriteFile(b.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("peer book: %w", err)
	}
	return nil
}
