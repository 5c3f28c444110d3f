package storage

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// surt returns the SURT sort key of URL u as pywb and cdxj-indexer write
// it (the Python surt package's default, IA canonicalisation): scheme,
// user info and fragment dropped, host lower case without "www." (or
// "www2." …) and reversed with commas, a default port dropped and another
// kept, then ")" and the path and query, lower case, the query's
// parameters sorted and an empty query or a trailing slash (but for the
// root) dropped: "http://www.Example.com/A/?b=2&a=1" →
// "com,example)/a?a=1&b=2". Session-ID parameters, which the Python
// package also removes, are kept. A URL that does not parse is its own
// key, as in cdxj-indexer.
func surt(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return u
	}
	host := strings.ToLower(pu.Hostname())
	host = strings.TrimSuffix(host, ".")
	if rest, ok := strings.CutPrefix(host, "www"); ok {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i < len(rest) && rest[i] == '.' && i+1 < len(rest) {
			host = rest[i+1:]
		}
	}
	var labels []string
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		labels = []string{"[" + host + "]"} // an IPv6 address is not split
	} else {
		labels = strings.Split(host, ".")
		slices.Reverse(labels)
	}
	key := strings.Join(labels, ",")
	if port := pu.Port(); port != "" && !(port == "80" && pu.Scheme == "http" || port == "443" && pu.Scheme == "https") {
		key += ":" + port
	}
	path := strings.ToLower(pu.EscapedPath())
	if path == "" {
		path = "/"
	}
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	key += ")" + path
	if q := strings.ToLower(pu.RawQuery); q != "" {
		params := strings.Split(q, "&")
		slices.Sort(params)
		key += "?" + strings.Join(params, "&")
	}
	return key
}
