package crawler

import "testing"

func TestUserAgent(t *testing.T) {
	for _, tc := range []struct {
		name, version, contact, want string
	}{
		{"release tag", "v1.4.0", ContactURL, "Hivecrawl/1.4.0 (+https://github.com/hivecrawl/hivecrawl)"},
		{"without v", "1.4.0", "https://operator.example/bot", "Hivecrawl/1.4.0 (+https://operator.example/bot)"},
		{"commits after a tag", "v1.4.0-3-g1f6fbb9-dirty", ContactURL, "Hivecrawl/1.4.0-3-g1f6fbb9-dirty (+" + ContactURL + ")"},
		{"pre-release with build", "v2.0.0-rc.1+linux.amd64", "", "Hivecrawl/2.0.0-rc.1+linux.amd64"},
		{"development build", "dev", ContactURL, DefaultUserAgent},
		{"no version", "", ContactURL, DefaultUserAgent},
		{"bare commit", "1f6fbb9-dirty", "", "Hivecrawl/0.0.0-dev+1f6fbb9-dirty"},
		{"not semantic", "v1.4", "", "Hivecrawl/0.0.0-dev+v1.4"},
		{"leading zero", "v01.2.3", "", "Hivecrawl/0.0.0-dev+v01.2.3"},
		{"odd characters", "go1.26 (devel)", "", "Hivecrawl/0.0.0-dev+go1.26--devel-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := UserAgent(tc.version, tc.contact)
			if got != tc.want {
				t.Fatalf("UserAgent(%q, %q) = %q, want %q", tc.version, tc.contact, got, tc.want)
			}
			if !ValidUserAgent(got) || productToken(got) != "Hivecrawl" {
				t.Fatalf("%q is not a User-Agent naming Hivecrawl", got)
			}
		})
	}
}
