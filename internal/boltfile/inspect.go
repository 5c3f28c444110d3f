package boltfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
)

// bbolt's on-disk format (go.etcd.io/bbolt/internal/common): a page is a
// 16-byte header (id, flags, count, overflow) and its elements; pages 0 and
// 1 hold the meta, of which the valid one with the higher txid is current.
const (
	pageHeaderSize = 16
	elementSize    = 16 // branch and leaf elements alike
	metaMagic      = 0xED0CDAED
	metaVersion    = 2
	checksumOffset = 56 // bytes of the meta the checksum covers
	minPages       = 4  // a new file: two metas, a freelist, a leaf

	branchFlag   = 0x01
	leafFlag     = 0x02
	freelistFlag = 0x10
	bucketFlag   = 0x01 // leaf element that is a bucket
	noFreelist   = ^uint64(0)
	maxDepth     = 64
)

type meta struct {
	pageSize       uint64
	root, freelist uint64
	hwm, txid      uint64
}

// inspect checks the file at path without mapping it. problem describes
// damage; err is a failure to look (permissions). A missing file is fine:
// bbolt creates it.
func inspect(path string) (problem, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case info.IsDir():
		return errors.New("a directory is where the file should be"), nil
	case info.Size() == 0:
		return errors.New("the file is empty"), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := info.Size()
	m, problem := readMeta(f, size)
	if problem != nil {
		return problem, nil
	}
	if size%int64(m.pageSize) != 0 {
		return fmt.Errorf("size %d is not a whole number of %d-byte pages (truncated?)", size, m.pageSize), nil
	}
	if m.hwm < minPages || m.hwm > uint64(size)/m.pageSize {
		return fmt.Errorf("the file has %d bytes but its header counts %d pages of %d bytes (truncated?)", size, m.hwm, m.pageSize), nil
	}
	if size > CheckLimit {
		return nil, nil
	}
	w := walker{f: f, m: m, seen: map[uint64]bool{}}
	if m.freelist != noFreelist {
		if err := w.freelist(); err != nil {
			return err, nil
		}
	}
	return w.tree(m.root, 0), nil
}

// readMeta returns the meta bbolt would use: the valid one of pages 0
// and 1 with the higher txid.
func readMeta(f io.ReaderAt, size int64) (meta, error) {
	m0, ok0 := metaAt(f, 0)
	var sizes []uint64
	if ok0 {
		sizes = []uint64{m0.pageSize}
	} else {
		for ps := uint64(1024); ps <= 16<<20; ps <<= 1 {
			sizes = append(sizes, ps)
		}
	}
	var m1 meta
	ok1 := false
	for _, ps := range sizes {
		if int64(ps) >= size {
			break
		}
		if m, ok := metaAt(f, int64(ps)); ok && m.pageSize == ps {
			m1, ok1 = m, true
			break
		}
	}
	switch {
	case ok0 && ok1 && m1.txid > m0.txid:
		return m1, nil
	case ok0:
		return m0, nil
	case ok1:
		return m1, nil
	}
	return meta{}, errors.New("neither header page is valid (not a bbolt file, or overwritten)")
}

func metaAt(f io.ReaderAt, off int64) (meta, bool) {
	var b [pageHeaderSize + 64]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return meta{}, false
	}
	d := b[pageHeaderSize:]
	le := binary.LittleEndian
	h := fnv.New64a()
	h.Write(d[:checksumOffset])
	if le.Uint32(d[0:]) != metaMagic || le.Uint32(d[4:]) != metaVersion || le.Uint64(d[checksumOffset:]) != h.Sum64() {
		return meta{}, false
	}
	m := meta{pageSize: uint64(le.Uint32(d[8:])), root: le.Uint64(d[16:]), freelist: le.Uint64(d[32:]),
		hwm: le.Uint64(d[40:]), txid: le.Uint64(d[48:])}
	if m.pageSize < 512 || m.pageSize > 16<<20 || m.pageSize&(m.pageSize-1) != 0 {
		return meta{}, false
	}
	return m, true
}

// walker reads pages with ReadAt and checks that every page the tree
// reaches lies inside the file, has the right type and holds its elements.
type walker struct {
	f    io.ReaderAt
	m    meta
	seen map[uint64]bool
}

// page reads page id with its overflow pages.
func (w *walker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.m.hwm {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, w.m.hwm)
	}
	if w.seen[id] {
		return nil, fmt.Errorf("page %d is referenced twice", id)
	}
	w.seen[id] = true
	ps := w.m.pageSize
	head := make([]byte, pageHeaderSize)
	if _, err := w.f.ReadAt(head, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := binary.LittleEndian.Uint64(head); got != id {
		return nil, fmt.Errorf("page %d says it is page %d", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(head[12:]))
	if overflow >= w.m.hwm-id {
		return nil, fmt.Errorf("page %d runs past the file's %d pages", id, w.m.hwm)
	}
	buf := make([]byte, (overflow+1)*ps)
	if _, err := w.f.ReadAt(buf, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return buf, nil
}

func (w *walker) freelist() error {
	p, err := w.page(w.m.freelist)
	if err != nil {
		return fmt.Errorf("free list: %w", err)
	}
	le := binary.LittleEndian
	if le.Uint16(p[8:])&freelistFlag == 0 {
		return fmt.Errorf("free list: page %d is not a free-list page", w.m.freelist)
	}
	n, start := uint64(le.Uint16(p[10:])), uint64(pageHeaderSize)
	if n == 0xFFFF {
		if len(p) < pageHeaderSize+8 {
			return errors.New("free list: too short")
		}
		n, start = le.Uint64(p[pageHeaderSize:]), pageHeaderSize+8
	}
	if n > (uint64(len(p))-start)/8 {
		return fmt.Errorf("free list: %d entries do not fit its page", n)
	}
	for i := uint64(0); i < n; i++ {
		if id := le.Uint64(p[start+8*i:]); id < 2 || id >= w.m.hwm {
			return fmt.Errorf("free list: page %d is outside the file's %d pages", id, w.m.hwm)
		}
	}
	return nil
}

// tree checks the b-tree at page id and the buckets stored in it.
func (w *walker) tree(id uint64, depth int) error {
	if depth > maxDepth {
		return errors.New("the tree is too deep (a loop?)")
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	flags, n := le.Uint16(p[8:]), uint64(le.Uint16(p[10:]))
	if pageHeaderSize+n*elementSize > uint64(len(p)) {
		return fmt.Errorf("page %d: %d elements do not fit", id, n)
	}
	for i := uint64(0); i < n; i++ {
		at := pageHeaderSize + i*elementSize
		e := p[at : at+elementSize]
		switch {
		case flags&branchFlag != 0:
			pos, ksize := uint64(le.Uint32(e[0:])), uint64(le.Uint32(e[4:]))
			if at+pos+ksize > uint64(len(p)) {
				return fmt.Errorf("page %d: key %d runs past the page", id, i)
			}
			if err := w.tree(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
		case flags&leafFlag != 0:
			eflags, pos := le.Uint32(e[0:]), uint64(le.Uint32(e[4:]))
			ksize, vsize := uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
			if at+pos+ksize+vsize > uint64(len(p)) {
				return fmt.Errorf("page %d: entry %d runs past the page", id, i)
			}
			if eflags&bucketFlag == 0 {
				continue
			}
			if vsize < 16 {
				return fmt.Errorf("page %d: bucket %d has a %d-byte header", id, i, vsize)
			}
			if root := le.Uint64(p[at+pos+ksize:]); root != 0 { // 0: inline bucket
				if err := w.tree(root, depth+1); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("page %d is neither a branch nor a leaf (flags %#x)", id, flags)
		}
	}
	return nil
}
