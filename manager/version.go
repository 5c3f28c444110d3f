package manager

import (
	"fmt"

	"github.com/hivecrawl/hivecrawl/internal/semver"
)

// DefaultUpdateHint is how an outdated client is told to update when the
// operator names no download page (Options.Admission.UpdateHint).
const DefaultUpdateHint = "go install github.com/hivecrawl/hivecrawl/cmd/hivecrawl@latest, or install your network's latest package"

// minClientVersion parses Options.Admission.MinClientVersion; nil when unset.
func (o Options) minClientVersion() (*semver.Version, error) {
	if o.Admission.MinClientVersion == "" {
		return nil, nil
	}
	v, err := semver.Parse(o.Admission.MinClientVersion)
	if err != nil {
		return nil, fmt.Errorf("minimum client version %q: %w: give a release such as 0.2.0", o.Admission.MinClientVersion, err)
	}
	return &v, nil
}

// outdated returns why a client stating version may take no task, "" when
// it may. The text is shown to the client's user (hivecrawl status, the
// dashboard, the tray), so it says what to do.
func (m *Manager) outdated(version string) string {
	if m.minVersion == nil || !semver.Older(version, *m.minVersion) {
		return ""
	}
	have := version
	if have == "" {
		have = "version unknown"
	}
	return fmt.Sprintf("this Hivecrawl (%s) is older than %s, the oldest version this network gives tasks to; update it: %s",
		have, m.minVersion, m.opts.Admission.UpdateHint)
}
