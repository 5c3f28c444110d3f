// Package assets holds the files the client shows, embedded with go:embed:
// the local web page (web/: HTML, CSS, JavaScript, no third-party code) and
// the icons (icons/: one PNG and one ICO per tray state, and the
// application icon).
//
// The icons are drawn by ./gen (`go generate ./assets`); the generated files
// are committed so that builds need no generator.
package assets

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:generate go run ./gen

//go:embed web icons
var files embed.FS

// Web returns the web page's files, rooted at the page ("index.html").
func Web() fs.FS {
	sub, err := fs.Sub(files, "web")
	if err != nil {
		panic(err) // "web" is embedded above
	}
	return sub
}

// Icon states, one icon each.
const (
	IconCrawling  = "crawling"
	IconIdle      = "idle"
	IconPaused    = "paused"
	IconThrottled = "throttled"
	IconOffline   = "offline"
	IconError     = "error"
	// IconApp is the application icon (256 px PNG).
	IconApp = "hivecrawl"
)

// IconPNG returns the PNG of the named icon (64 px; 256 px for IconApp).
func IconPNG(name string) ([]byte, error) { return icon(name, "png") }

// IconICO returns the ICO of the named icon (16 to 256 px).
func IconICO(name string) ([]byte, error) { return icon(name, "ico") }

func icon(name, ext string) ([]byte, error) {
	b, err := files.ReadFile("icons/" + name + "." + ext)
	if err != nil {
		return nil, fmt.Errorf("icon %q: %w", name, err)
	}
	return b, nil
}
