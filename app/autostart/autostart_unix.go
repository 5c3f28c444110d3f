//go:build !windows && !darwin

package autostart

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// desktopFile is the entry's file name, the same as the package's so that a
// user entry overrides a system-wide one.
const desktopFile = "hivecrawl.desktop"

// Path returns the user's entry file.
func (e Entry) Path() string {
	dir := e.Dir
	if dir == "" {
		base := os.Getenv("XDG_CONFIG_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".config")
		}
		dir = filepath.Join(base, "autostart")
	}
	return filepath.Join(dir, desktopFile)
}

// systemPaths lists the system-wide entries a package may install.
func (e Entry) systemPaths() []string {
	if e.Dir != "" {
		return nil
	}
	dirs := os.Getenv("XDG_CONFIG_DIRS")
	if dirs == "" {
		dirs = "/etc/xdg"
	}
	var out []string
	for _, d := range filepath.SplitList(dirs) {
		out = append(out, filepath.Join(d, "autostart", desktopFile))
	}
	return out
}

// Set turns starting at login on or off.
func (e Entry) Set(on bool) error {
	path := e.Path()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	data := DesktopEntry(e.Exe, e.Args, !on)
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Enabled reports whether the program starts at login: the user's entry
// decides; without one, a system-wide entry does.
func (e Entry) Enabled() (bool, error) {
	for _, p := range append([]string{e.Path()}, e.systemPaths()...) {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("autostart: %w", err)
		}
		return !hidden(data), nil
	}
	return false, nil
}

// DesktopEntry is the XDG autostart entry that runs exe with args; hidden
// entries turn it off.
func DesktopEntry(exe string, args []string, hide bool) []byte {
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\nType=Application\nName=" + Name + "\n")
	b.WriteString("Comment=Volunteer web crawler: crawls the web for an open search engine with a little of your bandwidth\n")
	b.WriteString("Exec=" + execLine(exe, args) + "\n")
	b.WriteString("Icon=hivecrawl\nTerminal=false\nCategories=Network;\nX-GNOME-Autostart-enabled=" + fmt.Sprint(!hide) + "\n")
	if hide {
		b.WriteString("Hidden=true\n")
	}
	return b.Bytes()
}

// execLine quotes the command as the Desktop Entry specification asks:
// arguments with reserved characters in double quotes, with ", `, $ and \
// escaped by a backslash, and % doubled.
func execLine(exe string, args []string) string {
	parts := make([]string, 0, 1+len(args))
	for _, a := range append([]string{exe}, args...) {
		a = strings.ReplaceAll(a, "%", "%%")
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`") {
			r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
			a = `"` + r.Replace(a) + `"`
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// hidden reports whether a desktop entry is switched off (Hidden=true or
// X-GNOME-Autostart-enabled=false in its [Desktop Entry] group).
func hidden(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	group := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		if group != "[Desktop Entry]" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Hidden":
			if strings.TrimSpace(v) == "true" {
				return true
			}
		case "X-GNOME-Autostart-enabled":
			if strings.TrimSpace(v) == "false" {
				return true
			}
		}
	}
	return false
}
