package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/jsontext"
)

// MaxFileSize bounds the configuration file Load reads.
const MaxFileSize = 1 << 20

// GoodCopy returns the path of the copy of the configuration file at path
// that was last known good: Save writes it with every change, and Open
// refreshes it whenever it loads the file without fault. When the file is
// damaged, Open runs under this copy's limits.
func GoodCopy(path string) string { return path + ".last-good" }

// Load reads the file at path over the defaults. A missing file gives the
// defaults and no error. A broken file gives the defaults and an error that
// names the file and, for JSON mistakes, the line and column; the file is not
// touched.
func Load(path string) (Config, error) {
	c, _, err := load(path)
	return c, err
}

// load is Load that also returns notes on what in the file was ignored.
func load(path string) (Config, []string, error) {
	c, notes, _, err := loadData(path)
	return c, notes, err
}

// loadData is load that also returns the file's contents (nil when the file
// does not exist or cannot be used).
func loadData(path string) (Config, []string, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil, nil, nil
	}
	if err != nil {
		return Default(), nil, nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return Default(), nil, nil, fmt.Errorf("config %s: file is larger than %d bytes", path, MaxFileSize)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// Save never writes an empty file: it was cut short.
		return Default(), nil, nil, fmt.Errorf("config %s: %w: the file is empty", path, ErrInvalid)
	}
	c, notes, err := parse(data)
	if err != nil {
		return Default(), nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, notes, data, nil
}

// Parse decodes a configuration file's contents over the defaults and
// validates the result. Unknown keys are refused, so a misspelt limit does
// not silently do nothing; keys an older client wrote for settings that are
// now the operator's are ignored (Store.Notes says which).
func Parse(data []byte) (Config, error) {
	c, _, err := parse(data)
	return c, err
}

// fileConfig is what a configuration file may hold: Config, and the keys
// of operatorKeys that older clients wrote, read only to be ignored.
type fileConfig struct {
	Config
	UserAgent json.RawMessage `json:"user_agent,omitempty"`
}

// notes returns a note for each ignored key the file held.
func (f *fileConfig) notes() []string {
	if f.UserAgent == nil {
		return nil
	}
	return []string{"the configuration file's \"user_agent\" is ignored and goes the next time a setting is saved: " + operatorKeys["user_agent"]}
}

func parse(data []byte) (Config, []string, error) {
	f := fileConfig{Config: Default()}
	if len(bytes.TrimSpace(data)) == 0 {
		return f.Config, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Default(), nil, describe(data, dec, err)
	}
	if dec.More() {
		return Default(), nil, fmt.Errorf("%s: %w: unexpected data after the closing brace", jsontext.Position(data, dec.InputOffset()), ErrInvalid)
	}
	if err := f.Config.Validate(); err != nil {
		return Default(), nil, err
	}
	return f.Config, f.notes(), nil
}

// describe turns a decoding error into one with a line and column.
func describe(data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s: %w: %v", jsontext.Position(data, syn.Offset), ErrInvalid, syn)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: %w: the file ends too early (missing '}' or '\"'?)", jsontext.Position(data, int64(len(data))), ErrInvalid)
	}
	// A value was wrong: find the top-level key that fails on its own, so
	// the message can point at its line.
	if key, off, kerr := failingKey(data); kerr != nil {
		if errors.As(kerr, &typ) {
			return fmt.Errorf("%s: %w: %q must be %s, not %s", jsontext.Position(data, off), ErrInvalid, key, typ.Type, typ.Value)
		}
		if strings.HasPrefix(kerr.Error(), "json: unknown field") {
			return fmt.Errorf("%s: %w: unknown key %q (see 'hivecrawl set --help' for the keys)", jsontext.Position(data, off), ErrInvalid, key)
		}
		if errors.Is(kerr, ErrInvalid) {
			return fmt.Errorf("%s: %q: %w", jsontext.Position(data, off), key, kerr)
		}
		return fmt.Errorf("%s: %w: %q: %v", jsontext.Position(data, off), ErrInvalid, key, kerr)
	}
	if t, terr := json.NewDecoder(bytes.NewReader(data)).Token(); terr == nil && t != json.Delim('{') {
		return fmt.Errorf("line 1: %w: the file must be one JSON object, {\"key\": value, ...}", ErrInvalid)
	}
	if errors.Is(err, ErrInvalid) {
		return fmt.Errorf("%s: %w", jsontext.Position(data, dec.InputOffset()), err)
	}
	return fmt.Errorf("%s: %w: %v", jsontext.Position(data, dec.InputOffset()), ErrInvalid, err)
}

// failingKey decodes each top-level key of data alone and returns the first
// one (in file order) that fails, with the offset of its name.
func failingKey(data []byte) (key string, off int64, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, terr := dec.Token(); terr != nil || t != json.Delim('{') {
		return "", 0, nil
	}
	for dec.More() {
		start := dec.InputOffset()
		t, terr := dec.Token()
		if terr != nil {
			return "", 0, nil
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if derr := dec.Decode(&raw); derr != nil {
			return "", 0, nil
		}
		one, _ := json.Marshal(map[string]json.RawMessage{name: raw})
		f := fileConfig{Config: Default()}
		d := json.NewDecoder(bytes.NewReader(one))
		d.DisallowUnknownFields()
		if derr := d.Decode(&f); derr != nil {
			// start is just before the separator and whitespace.
			rest := data[start:]
			skip := bytes.IndexByte(rest, '"')
			return name, start + int64(max(skip, 0)), derr
		}
	}
	return "", 0, nil
}

// Save writes c to path atomically: a temporary file in the same directory,
// fsynced, renamed over the old file, and the directory fsynced; then the
// same to GoodCopy(path). Both are readable only by their owner.
func Save(path string, c Config) error {
	_, err := save(path, c)
	return err
}

// save is Save that returns what it wrote.
func save(path string, c Config) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("save config %s: %w", path, err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	return data, atomicfile.WriteFile(GoodCopy(path), data, 0o600)
}

// keepGood makes GoodCopy(path) hold data, the contents of path that just
// loaded without fault (the contributor may have edited the file by hand).
func keepGood(path string, data []byte) error {
	good := GoodCopy(path)
	if old, err := os.ReadFile(good); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return atomicfile.WriteFile(good, data, 0o600)
}
