// Package loopback holds the conventions of the program's HTTP APIs on
// loopback, the client's and the manager's alike: the info file that
// says where one listens and its token (api.json), the token's header,
// and the Host check that keeps other web sites' pages out (DNS
// rebinding).
package loopback

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"

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

// RemoveInfo deletes the info file if it still names url (a newer instance
// may have replaced it).
func RemoveInfo(path, url string) {
	if info, err := ReadInfo(path); err == nil && info.URL == url {
		os.Remove(path)
	}
}

// ErrNotRunning means no program answers: api.json is missing or its
// address does not answer.
var ErrNotRunning = errors.New("hivecrawl is not running")

// TokenHeader carries the API token (a bearer token in Authorization
// also does).
const TokenHeader = "X-Hivecrawl-Token"

// HostAllowed accepts a Host header naming localhost, 127.0.0.1 or [::1],
// with no port or port.
func HostAllowed(host, port string) bool {
	name, p := host, ""
	if h, pp, err := net.SplitHostPort(host); err == nil {
		name, p = h, pp
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if p != "" && p != port {
		return false
	}
	switch strings.ToLower(name) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// SetHeaders sets the security headers every answer of a loopback API
// carries: no framing, no sniffing, no referrer, no caching, and the
// content security policy csp.
func SetHeaders(h http.Header, csp string) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", csp)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
