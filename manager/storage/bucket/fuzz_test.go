package bucket

import (
	"strings"
	"testing"
)

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"s3://crawl-warc", "s3://crawl-warc/a/b/", "S3://x.y.z/p=1", "s3://a..b/c", "s3://crawl/a//b", "s3://192.168.0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := ParseURL(s)
		if err != nil {
			return
		}
		if err := checkBucket(loc.Bucket); err != nil {
			t.Fatalf("accepted bucket %q: %v", loc.Bucket, err)
		}
		if strings.HasPrefix(loc.Prefix, "/") || strings.HasSuffix(loc.Prefix, "/") || strings.Contains(loc.Prefix, "//") || len(loc.Prefix) > MaxPrefix {
			t.Fatalf("accepted prefix %q", loc.Prefix)
		}
		for _, seg := range strings.Split(loc.Prefix, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("accepted prefix %q", loc.Prefix)
			}
		}
		if again, err := ParseURL(loc.String()); err != nil || again != loc {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, loc, loc.String(), again, err)
		}
	})
}

func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"https://s3.example.net", "http://127.0.0.1:9000/", "http://[::1]:9000", "https://u:p@h", "https://h/p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		host, secure, err := ParseEndpoint(s)
		if err != nil {
			return
		}
		if host == "" || strings.ContainsAny(host, "/@?#") {
			t.Fatalf("ParseEndpoint(%q) accepted host %q", s, host)
		}
		if secure != strings.HasPrefix(strings.ToLower(s), "https://") {
			t.Fatalf("ParseEndpoint(%q): secure %v", s, secure)
		}
	})
}
