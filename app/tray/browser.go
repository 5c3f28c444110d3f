package tray

import (
	"errors"
	"strings"
)

// ErrNoBrowser is OpenBrowser's error when no graphical session is there
// to show a browser in.
var ErrNoBrowser = errors.New("no graphical session to open a browser in")

// NoBrowserTitle heads the notification that gives the link instead.
const NoBrowserTitle = "Open the Hivecrawl dashboard"

// NoBrowserHint says what to do when OpenBrowser failed with err for the
// one-time sign-in link: the words `hivecrawl open` prints and the tray's
// notification shows.
func NoBrowserHint(err error, link string) string {
	if errors.Is(err, ErrNoBrowser) {
		return "No desktop here to open a browser in. Open this link in a browser on this machine within two minutes:\n  " + link
	}
	why := strings.TrimSuffix(err.Error(), ".")
	return "No browser started (" + why + "). Open this link in your browser within two minutes:\n  " + link
}
