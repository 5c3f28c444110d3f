package localapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// Info is what api.json holds: where the running client listens and its
// token.
type Info struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// WriteInfo writes info to path, readable only by the owner, replacing any
// old file atomically.
func WriteInfo(path string, info Info) error {
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encode API info: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write API info: %w", err)
	}
	return nil
}

// ReadInfo reads api.json; a missing file is ErrNotRunning.
func ReadInfo(path string) (Info, error) {
	var info Info
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return info, ErrNotRunning
	}
	if err != nil {
		return info, fmt.Errorf("read API info %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &info); err != nil || info.URL == "" {
		return Info{}, fmt.Errorf("API info %s is damaged (delete it and restart hivecrawl): %v", path, err)
	}
	return info, nil
}

// removeInfo deletes the info file if it still names url (a newer instance
// may have replaced it).
func removeInfo(path, url string) {
	if info, err := ReadInfo(path); err == nil && info.URL == url {
		os.Remove(path)
	}
}
