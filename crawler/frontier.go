package crawler

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hivecrawl/hivecrawl/task"
)

// memEntries is how many URLtodo entries stay in memory (paper 000 §2.2);
// the rest wait in a temporary file.
const memEntries = 1000

// entry is one URL waiting to be fetched.
type entry struct {
	URL    string
	Depth  int
	Parent task.Digest // of the URL of the page the link was found on
}

// frontier is URLtodo: a FIFO of URLs to fetch holding at most max entries
// in memory. Once an entry has spilled to the temporary file, later entries
// follow it there so the order stays first-in first-out; the file is read
// back a batch at a time when memory runs empty. It is owned by one Run.
type frontier struct {
	dir string
	max int

	mem  []entry // head at index head
	head int

	file    *os.File // nil until the first spill
	w       *bufio.Writer
	rOff    int64 // next unread byte in file
	wOff    int64 // bytes written to file (including w's buffer)
	spilled int   // entries in the file not yet read back
	peakMem int
	scratch []byte
}

// newFrontier returns an empty URLtodo that spills to files in dir.
func newFrontier(dir string, max int) *frontier {
	if max <= 0 {
		max = memEntries
	}
	return &frontier{dir: dir, max: max}
}

// Len returns the number of waiting entries.
func (f *frontier) Len() int { return len(f.mem) - f.head + f.spilled }

// InMemory returns the number of entries held in memory now.
func (f *frontier) InMemory() int { return len(f.mem) - f.head }

// PeakInMemory returns the most entries ever held in memory at once.
func (f *frontier) PeakInMemory() int { return f.peakMem }

// Push appends e.
func (f *frontier) Push(e entry) error {
	if f.spilled == 0 && f.InMemory() < f.max {
		if f.head > 0 && len(f.mem) == cap(f.mem) {
			// Reuse the consumed front of the slice before growing it.
			n := copy(f.mem, f.mem[f.head:])
			clear(f.mem[n:])
			f.mem = f.mem[:n]
			f.head = 0
		}
		f.mem = append(f.mem, e)
		f.peakMem = max(f.peakMem, f.InMemory())
		return nil
	}
	return f.spill(e)
}

// Pop removes and returns the oldest entry; ok is false when empty.
func (f *frontier) Pop() (e entry, ok bool, err error) {
	if f.InMemory() == 0 && f.spilled > 0 {
		if err := f.refill(); err != nil {
			return entry{}, false, err
		}
	}
	if f.InMemory() == 0 {
		return entry{}, false, nil
	}
	e = f.mem[f.head]
	f.mem[f.head] = entry{}
	f.head++
	if f.head == len(f.mem) {
		f.mem, f.head = f.mem[:0], 0
	}
	return e, true, nil
}

func (f *frontier) spill(e entry) error {
	if f.file == nil {
		file, err := os.CreateTemp(f.dir, "hivecrawl-urltodo-*")
		if err != nil {
			return fmt.Errorf("create URLtodo spill file: %w", err)
		}
		f.file = file
		f.w = bufio.NewWriterSize(file, 64<<10)
	}
	f.scratch = binary.AppendUvarint(f.scratch[:0], uint64(e.Depth))
	f.scratch = binary.AppendUvarint(f.scratch, uint64(e.Parent))
	f.scratch = binary.AppendUvarint(f.scratch, uint64(len(e.URL)))
	f.scratch = append(f.scratch, e.URL...)
	n, err := f.w.Write(f.scratch)
	f.wOff += int64(n)
	if err != nil {
		return fmt.Errorf("write URLtodo spill file: %w", err)
	}
	f.spilled++
	return nil
}

// refill reads up to max spilled entries back into memory.
func (f *frontier) refill() error {
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("flush URLtodo spill file: %w", err)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f.file, f.rOff, f.wOff-f.rOff), 64<<10)
	f.mem, f.head = f.mem[:0], 0
	read := int64(0)
	for f.InMemory() < f.max && f.spilled > 0 {
		e, n, err := readEntry(br)
		if err != nil {
			return fmt.Errorf("read URLtodo spill file: %w", err)
		}
		read += int64(n)
		f.mem = append(f.mem, e)
		f.spilled--
	}
	f.rOff += read
	f.peakMem = max(f.peakMem, f.InMemory())
	if f.spilled == 0 {
		// Everything is back in memory: start the file over.
		if err := f.file.Truncate(0); err != nil {
			return fmt.Errorf("truncate URLtodo spill file: %w", err)
		}
		if _, err := f.file.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("rewind URLtodo spill file: %w", err)
		}
		f.w.Reset(f.file)
		f.rOff, f.wOff = 0, 0
	}
	return nil
}

func readEntry(br *bufio.Reader) (entry, int, error) {
	depth, err := binary.ReadUvarint(br)
	if err != nil {
		return entry{}, 0, err
	}
	parent, err := binary.ReadUvarint(br)
	if err != nil {
		return entry{}, 0, err
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return entry{}, 0, err
	}
	if n > 1<<20 {
		return entry{}, 0, errors.New("corrupt entry length")
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(br, buf); err != nil {
		return entry{}, 0, err
	}
	size := uvarintLen(depth) + uvarintLen(parent) + uvarintLen(n) + int(n)
	return entry{URL: string(buf), Depth: int(depth), Parent: task.Digest(parent)}, size, nil
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

// Close removes the spill file.
func (f *frontier) Close() error {
	if f.file == nil {
		return nil
	}
	name := f.file.Name()
	cerr := f.file.Close()
	f.file = nil
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("remove URLtodo spill file: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("close URLtodo spill file: %w", cerr)
	}
	return nil
}
