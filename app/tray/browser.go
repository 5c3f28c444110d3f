package tray

import "errors"

// ErrNoBrowser is OpenBrowser's error when no graphical session is there
// to show a browser in.
var ErrNoBrowser = errors.New("no graphical session to open a browser in")
