package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// Store holds the live configuration of one client and its file.
type Store struct {
	path string

	// notify serialises Update from start to the end of its watchers'
	// calls, so watchers see changes in order.
	notify sync.Mutex

	mu      sync.Mutex // guards the fields below
	cfg     Config
	problem error    // why the file was not loaded; changes are then not saved
	notes   []string // what the loaded file held that is ignored
	// disk is the file's contents as the store last read or wrote them
	// (nil: no file), to tell a hand edit from the store's own writes.
	disk   []byte
	subs   map[int]chan Config
	watch  map[int]func(Config)
	nextID int
}

// Open loads the file at path into a new Store. It never fails, and a
// damaged file never lifts the contributor's limits: the store then holds
// the settings of GoodCopy(path), or, when there is no good copy either,
// the defaults with crawling held (Config.Held) until the file is fixed.
// Problem returns what is wrong and what was done, for the caller to show
// the contributor; the damaged file is left as it is, to be fixed by hand.
func Open(path string) *Store {
	s := &Store{path: path, subs: make(map[int]chan Config), watch: make(map[int]func(Config))}
	s.disk, _ = readFile(path)
	c, notes, data, err := loadData(path)
	switch {
	case err == nil:
		s.cfg, s.notes = c, notes
		if data != nil {
			// Best effort: without the copy a later damage holds crawling
			// rather than lifting limits.
			_ = keepGood(path, data)
		}
	default:
		good := GoodCopy(path)
		gc, gnotes, gdata, gerr := loadData(good)
		if gerr == nil && gdata != nil {
			s.cfg, s.notes = gc, gnotes
			s.problem = fmt.Errorf("%w; running under the last good settings (%s) until it is fixed and Hivecrawl restarted", err, good)
		} else {
			s.cfg = Default()
			s.cfg.Held = "the settings file is damaged and there is no good copy of your limits to run under"
			s.problem = fmt.Errorf("%w; crawling is paused until it is fixed and Hivecrawl restarted (no good copy in %s)", err, good)
		}
	}
	return s
}

// Path returns the configuration file's path.
func (s *Store) Path() string { return s.path }

// Problem returns why the configuration file could not be used, or nil.
// While it is non-nil, changes apply but are not written to the file.
func (s *Store) Problem() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

// Notes returns what the file held when it was opened that is ignored
// (settings now made by the operator), in words for the contributor; the
// caller should log them. Such keys leave the file with the next change.
func (s *Store) Notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

// Get returns a copy of the current configuration.
func (s *Store) Get() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.clone()
}

// Update calls fn on a copy of the configuration; if fn succeeds and the
// result is valid, the copy is saved and becomes current, watchers are
// called with it before Update returns, and subscribers get it. Errors from
// fn and validation are returned unchanged (validation errors wrap
// ErrInvalid). While the file is damaged (Problem), the change applies to
// the running client but is not saved, and Update says so with an error
// wrapping ErrNotSaved.
//
// The file is read again first: when it was edited by hand since the
// store last read or wrote it, the edit becomes the configuration the
// change applies to, so that saving the change does not undo the edit. An
// edit that does not load fails Update (wrapping ErrInvalid) and the file
// is left as it is, for its author to fix.
func (s *Store) Update(fn func(*Config) error) error {
	s.notify.Lock()
	defer s.notify.Unlock()
	s.mu.Lock()
	edited, err := s.reload()
	if err != nil {
		s.mu.Unlock()
		return err
	}
	next := s.cfg.clone()
	err = fn(&next)
	if err == nil {
		err = next.Validate()
	}
	var unsaved error
	switch {
	case err != nil:
	case s.problem == nil:
		data, serr := save(s.path, next)
		if data != nil {
			s.disk = data // written, even when its good copy was not
		}
		if serr != nil {
			err = fmt.Errorf("keep setting: %w", serr)
			break
		}
		s.cfg = next
	default:
		unsaved = fmt.Errorf("applied until Hivecrawl stops but %w: %w", ErrNotSaved, s.problem)
		s.cfg = next
	}
	if err != nil && !edited {
		s.mu.Unlock()
		return err
	}
	// The configuration changed: by fn, or by the hand edit alone.
	cur := s.cfg
	for _, ch := range s.subs {
		// Latest value wins: drop an unread older one.
		select {
		case <-ch:
		default:
		}
		ch <- cur.clone()
	}
	watchers := make([]func(Config), 0, len(s.watch))
	for _, w := range s.watch {
		watchers = append(watchers, w)
	}
	s.mu.Unlock()
	for _, w := range watchers {
		w(cur.clone())
	}
	if err != nil {
		return err
	}
	return unsaved
}

// reload reads the file again and, when it differs from what the store
// last read or wrote, makes it the configuration (edited true) or, when it
// does not load, returns why. The caller holds s.mu.
func (s *Store) reload() (edited bool, err error) {
	data, err := readFile(s.path)
	if err != nil || bytes.Equal(data, s.disk) && (data == nil) == (s.disk == nil) {
		// Unreadable now: the save that follows says so.
		return false, nil
	}
	var (
		c     = Default()
		notes []string
	)
	if data != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			err = invalidf("the file is empty")
		} else {
			c, notes, err = parse(data)
		}
	}
	if err != nil {
		return false, invalidf("%s was changed outside Hivecrawl and does not load (%v): fix it, or undo the change, and try again; nothing was changed, so the edit is kept", s.path, err)
	}
	s.cfg, s.notes, s.problem, s.disk = c, notes, nil, data
	if data != nil {
		_ = keepGood(s.path, data) // best effort, as in Open
	}
	return true, nil
}

// readFile returns the file's contents, nil and no error when there is
// none.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Watch calls fn with the new configuration after every change, before
// Update returns, so a caller that changes a setting and then reads the
// state sees the effect (the governor's Apply is such a fn). fn may call Get
// but not Update. The returned function ends the watch.
func (s *Store) Watch(fn func(Config)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	s.watch[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watch, id)
	}
}

// Apply sets KEY=VALUE changes together (all or none) through Update.
func (s *Store) Apply(changes ...Change) error {
	return s.Update(func(c *Config) error { return c.Apply(changes...) })
}

// Subscribe returns a channel that receives the configuration after every
// change (only the latest if the reader is slow) and a function that ends
// the subscription. The channel is not closed.
func (s *Store) Subscribe() (<-chan Config, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	ch := make(chan Config, 1)
	s.subs[id] = ch
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

// clone copies c deeply enough that the copy shares no slices with c.
func (c Config) clone() Config {
	if c.Schedule.Windows != nil {
		ws := make([]Window, len(c.Schedule.Windows))
		for i, w := range c.Schedule.Windows {
			w.Days = append([]Day(nil), w.Days...)
			ws[i] = w
		}
		c.Schedule.Windows = ws
	}
	return c
}
