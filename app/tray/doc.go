// Package tray is the volunteer client's notification-area icon and menu
// (fyne.io/systray). Like Tailscale's tray it is only a client of the local
// API: it reads the status, pauses, resumes and snoozes through
// ui/localapi's Client, and opens the web page with a one-time sign-in link.
//
// The logic lives in Controller and ViewOf, which know nothing of systray,
// so they are tested without a display; Run puts a Controller on the
// screen. On Linux systray speaks the StatusNotifierItem and dbusmenu D-Bus
// protocols, which the tests drive on a private session bus.
//
// Caveats: systray keeps global state, so one process runs at most one tray,
// once. On macOS systray needs cgo and the main thread (call Run from main).
// The "offline" icon means only that the client is not running: a client
// that does not answer shows the error icon, and one whose manager does not
// answer shows the idle icon with that reason.
package tray
