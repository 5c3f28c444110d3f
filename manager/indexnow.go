package manager

import "github.com/hivecrawl/hivecrawl/manager/site"

// IndexNowURL returns the URL sites submit to, or "" when
// Options.Site.IndexNow is not set.
func (m *Manager) IndexNowURL() string {
	if m.inow == nil {
		return ""
	}
	return m.inow.Origin() + site.IndexNowPath
}

// indexNowConfig is what the IndexNow endpoint is given.
func (m *Manager) indexNowConfig() site.IndexNowConfig {
	return site.IndexNowConfig{
		Channels: m.db,
		Wake:     m.Wake,
		Fetcher:  m.fetcher,
		Now:      m.opts.Now,
		Log:      m.log,
	}
}
