package bucket

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		name, in string
		want     Location
		bad      bool
	}{
		{name: "bucket only", in: "s3://crawl-warc", want: Location{Bucket: "crawl-warc"}},
		{name: "trailing slash", in: "s3://crawl-warc/", want: Location{Bucket: "crawl-warc"}},
		{name: "prefix", in: "s3://crawl-warc/hivecrawl/2026", want: Location{Bucket: "crawl-warc", Prefix: "hivecrawl/2026"}},
		{name: "prefix with trailing slash", in: "s3://crawl-warc/a/", want: Location{Bucket: "crawl-warc", Prefix: "a"}},
		{name: "upper-case scheme", in: "S3://crawl.warc.1/x", want: Location{Bucket: "crawl.warc.1", Prefix: "x"}},
		{name: "safe characters in prefix", in: "s3://abc/Crawl=2026_(main)!*'-.x", want: Location{Bucket: "abc", Prefix: "Crawl=2026_(main)!*'-.x"}},
		{name: "other scheme", in: "https://crawl-warc/x", bad: true},
		{name: "no scheme", in: "crawl-warc/x", bad: true},
		{name: "empty", in: "", bad: true},
		{name: "short bucket", in: "s3://ab", bad: true},
		{name: "long bucket", in: "s3://" + strings.Repeat("a", 64), bad: true},
		{name: "upper-case bucket", in: "s3://Crawl", bad: true},
		{name: "underscore in bucket", in: "s3://crawl_warc", bad: true},
		{name: "bucket starts with a hyphen", in: "s3://-crawl", bad: true},
		{name: "bucket ends with a dot", in: "s3://crawl.", bad: true},
		{name: "two dots", in: "s3://crawl..warc", bad: true},
		{name: "IP address", in: "s3://192.168.1.1", bad: true},
		{name: "xn-- prefix", in: "s3://xn--crawl", bad: true},
		{name: "credentials", in: "s3://key:secret@crawl", bad: true},
		{name: "port", in: "s3://crawl:9000/x", bad: true},
		{name: "query", in: "s3://crawl/x?y=1", bad: true},
		{name: "fragment", in: "s3://crawl/x#y", bad: true},
		{name: "empty segment", in: "s3://crawl/a//b", bad: true},
		{name: "dot segment", in: "s3://crawl/a/./b", bad: true},
		{name: "dot-dot segment", in: "s3://crawl/../b", bad: true},
		{name: "leading slash in prefix", in: "s3://crawl//b", bad: true},
		{name: "space", in: "s3://crawl/a b", bad: true},
		{name: "percent", in: "s3://crawl/a%20b", bad: true},
		{name: "non-ASCII", in: "s3://crawl/ärchiv", bad: true},
		{name: "control character", in: "s3://crawl/a\nb", bad: true},
		{name: "long prefix", in: "s3://crawl/" + strings.Repeat("a", MaxPrefix+1), bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseURL(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrInvalidURL) {
					t.Fatalf("ParseURL(%q) = %+v, %v; want ErrInvalidURL", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if again, err := ParseURL(got.String()); err != nil || again != got {
				t.Fatalf("String %q parses to %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestLocationKey(t *testing.T) {
	if k := (Location{Bucket: "b"}).Key("warc/x.warc.gz"); k != "warc/x.warc.gz" {
		t.Errorf("no prefix: %q", k)
	}
	if k := (Location{Bucket: "b", Prefix: "p/q"}).Key("warc/x.warc.gz"); k != "p/q/warc/x.warc.gz" {
		t.Errorf("prefix: %q", k)
	}
}
