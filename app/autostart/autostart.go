// Package autostart turns "start Hivecrawl when I log in" on and off: an
// XDG autostart entry on Linux and the other Unix desktops, a value under
// the current user's Run registry key on Windows, a LaunchAgent on macOS.
// Each platform is in its own file; all of them act for the current user
// only and need no administrator rights.
//
// On Linux an administrator may also install a system-wide entry
// (/etc/xdg/autostart; Hivecrawl's packages do not); turning autostart off
// then writes a user entry with Hidden=true, which the XDG specification
// says overrides it.
package autostart

// Name is the program's name in every platform's entry.
const Name = "Hivecrawl"

// Entry is the start-at-login entry of one program.
type Entry struct {
	// Exe is the absolute path of the program started at login, with Args.
	Exe  string
	Args []string
	// Dir overrides where the entry is written, for tests: the autostart
	// directory on Linux, the LaunchAgents directory on macOS. Unused on
	// Windows. "" = the platform's place.
	Dir string
}
