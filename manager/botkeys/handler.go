package botkeys

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
)

// CacheMaxAge is how long sites may cache the directory: a withdrawal
// reaches a site that refetches on expiry within this, and a request signed
// just before it stays verifiable for botauth.DefaultValidity more.
const CacheMaxAge = 60 * time.Second

// Handler serves the key directory at GET (and HEAD)
// botauth.DirectoryPath, with the directory's media type, a short public
// cache lifetime (CacheMaxAge) and an ETag for conditional requests. Mount
// it on the manager's public web server at botauth.DirectoryPath.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != botauth.DirectoryPath {
			http.NotFound(w, req)
			return
		}
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		d, err := r.Directory()
		if err != nil {
			// Not an older copy: it could list a withdrawn key.
			http.Error(w, "the key directory cannot be read now; try again shortly", http.StatusServiceUnavailable)
			return
		}
		b, err := d.Marshal()
		if err != nil {
			http.Error(w, "cannot encode the key directory", http.StatusInternalServerError)
			return
		}
		sum := sha256.Sum256(b)
		h := w.Header()
		h.Set("Content-Type", botauth.DirectoryContentType)
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(CacheMaxAge/time.Second)))
		h.Set("ETag", `"`+base64.RawURLEncoding.EncodeToString(sum[:12])+`"`)
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, req, "", time.Time{}, bytes.NewReader(b))
	})
}
