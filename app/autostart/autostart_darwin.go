package autostart

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Label is the LaunchAgent's label and file name.
const Label = "org.hivecrawl.client"

// Path returns the LaunchAgent file.
func (e Entry) Path() string {
	dir := e.Dir
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, "Library", "LaunchAgents")
	}
	return filepath.Join(dir, Label+".plist")
}

// Set writes or removes the LaunchAgent; launchd reads it at the next login.
func (e Entry) Set(on bool) error {
	path := e.Path()
	if !on {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("autostart: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	var args strings.Builder
	for _, a := range append([]string{e.Exe}, e.Args...) {
		args.WriteString("\t\t<string>")
		xml.EscapeText(&args, []byte(a))
		args.WriteString("</string>\n")
	}
	plist := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + Label + `</string>
	<key>ProgramArguments</key>
	<array>
` + args.String() + `	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
</dict>
</plist>
`
	if err := os.WriteFile(path, []byte(plist), 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Enabled reports whether the LaunchAgent exists.
func (e Entry) Enabled() (bool, error) {
	_, err := os.Stat(e.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
