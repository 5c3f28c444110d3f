package boltfile

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// CheckLimit is the largest file Open walks page by page and checks with
// tx.Check; larger files get only the header and size checks, since a full
// check reads the whole file at every start.
const CheckLimit = 64 << 20

// Action is what Open does with a damaged file.
type Action int

const (
	// Refuse returns an error wrapping ErrDamaged and leaves the file alone.
	Refuse Action = iota
	// MoveAside renames the file to NAME.broken-TIME, logs one line and
	// opens a new, empty file.
	MoveAside
)

// Policy says what a file is and what to do when it is damaged.
type Policy struct {
	// Name says what the file is, for messages: "ledger", "task queue".
	Name string
	// OnDamage is Refuse (the zero value) or MoveAside. A file opened
	// read-only is always refused.
	OnDamage Action
	// Advice tells the user what to do about a refused file.
	Advice string
	// Logger gets MoveAside's line; nil = slog.Default().
	Logger *slog.Logger
	// Now stamps moved-aside files; nil = time.Now.
	Now func() time.Time
}

// Open opens the bbolt file at path with opts, as bolt.Open does, after
// checking it is not damaged; a damaged file is refused or moved aside as
// p says. Open never panics on a damaged file.
func Open(path string, opts *bolt.Options, p Policy) (*bolt.DB, error) {
	readOnly := opts != nil && opts.ReadOnly
	problem, err := inspect(path)
	if err != nil {
		return nil, fmt.Errorf("open %s %s: %w", p.Name, path, err)
	}
	var db *bolt.DB
	if problem == nil {
		db, problem, err = openChecked(path, opts)
		if err != nil {
			return nil, fmt.Errorf("open %s %s: %w", p.Name, path, err)
		}
	}
	if problem == nil {
		return db, nil
	}
	if p.OnDamage != MoveAside || readOnly {
		advice := p.Advice
		if advice == "" {
			advice = "restore it from a backup or move it aside"
		}
		return nil, fmt.Errorf("%s %s: %w (%v); %s", p.Name, path, ErrDamaged, problem, advice)
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	aside, err := MoveAsidePath(path, now())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w (%v), and moving it aside failed: %v", p.Name, path, ErrDamaged, problem, err)
	}
	log := p.Logger
	if log == nil {
		log = slog.Default()
	}
	log.Warn("Damaged "+p.Name+" moved aside; starting with an empty one", "file", path, "moved_to", aside, "problem", problem.Error())
	db, problem, err = openChecked(path, opts)
	if err == nil && problem != nil {
		db.Close()
		err = problem
	}
	if err != nil {
		return nil, fmt.Errorf("open new %s %s: %w", p.Name, path, err)
	}
	return db, nil
}

// Check reports whether the bbolt file at path is damaged, by the checks
// Open makes, without changing it: nil for a sound file, an error wrapping
// ErrDamaged for a damaged one, another error when it cannot be read.
func Check(path string) error {
	db, err := Open(path, &bolt.Options{ReadOnly: true, Timeout: time.Second}, Policy{Name: "file", OnDamage: Refuse})
	if err != nil {
		return err
	}
	return db.Close()
}

// MoveAsidePath renames a damaged file (or directory) to
// path.broken-TIME and returns the new name.
func MoveAsidePath(path string, now time.Time) (string, error) {
	aside := path + ".broken-" + now.UTC().Format("20060102T150405Z")
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.broken-%s-%d", path, now.UTC().Format("20060102T150405Z"), i)
	}
	return aside, os.Rename(path, aside)
}

// openChecked opens the file, turning bbolt's panics and faults into a
// problem, and runs tx.Check on small files. err is for failures that are
// not the file's contents (locks, permissions).
func openChecked(path string, opts *bolt.Options) (db *bolt.DB, problem, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				closeQuietly(db)
			}
			db, problem, err = nil, fmt.Errorf("bbolt failed reading it: %v", r), nil
		}
	}()
	db, err = bolt.Open(path, 0o600, opts)
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, nil, fmt.Errorf("locked by another process (is another copy running with the same data directory?): %w", err)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, err, nil
	case err != nil:
		return nil, nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	if info.Size() > CheckLimit {
		return db, nil, nil
	}
	err = db.View(func(tx *bolt.Tx) error {
		var first error
		n := 0
		for e := range tx.Check() {
			if first == nil {
				first = e
			}
			n++
		}
		if n > 1 {
			return fmt.Errorf("%w, and %d more problems", first, n-1)
		}
		return first
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("consistency check: %w", err), nil
	}
	return db, nil, nil
}

// closeQuietly closes a db bbolt panicked on, which may panic again.
func closeQuietly(db *bolt.DB) {
	defer func() { recover() }()
	db.Close()
}
