package web

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
)

// Bounds of the credits endpoints' parameters.
const (
	defaultReceipts = 200
	maxReceipts     = 10000
	defaultDays     = 30
	maxDays         = 366
)

// CreditsInfo is the answer to GET /ui/receipts.
type CreditsInfo struct {
	// Available is false when the client has no ledger to show.
	Available bool      `json:"available"`
	Receipts  []Receipt `json:"receipts"`
}

func (u *UI) receipts(w http.ResponseWriter, r *http.Request) {
	limit, ok := intParam(r, "limit", defaultReceipts, 1, maxReceipts)
	if !ok {
		httpjson.Error(w, http.StatusBadRequest, "limit must be a whole number from 1 to "+strconv.Itoa(maxReceipts))
		return
	}
	out := CreditsInfo{Receipts: []Receipt{}}
	if u.opts.Credits != nil {
		rs, err := u.opts.Credits.Receipts(r.Context(), limit)
		if err != nil {
			u.fail(w, "read receipts", err)
			return
		}
		out.Available = true
		out.Receipts = append(out.Receipts, rs...)
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (u *UI) receiptsCSV(w http.ResponseWriter, r *http.Request) {
	if u.opts.Credits == nil {
		httpjson.Error(w, http.StatusNotFound, "this client keeps no credits ledger")
		return
	}
	// Buffer it, so a failure half-way is an error and not a cut file.
	var buf bytes.Buffer
	if err := u.opts.Credits.WriteReceiptsCSV(r.Context(), &buf); err != nil {
		u.fail(w, "export receipts", err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="hivecrawl-receipts-`+u.opts.Now().Format(time.DateOnly)+`.csv"`)
	w.Write(buf.Bytes())
}

func (u *UI) creditDays(w http.ResponseWriter, r *http.Request) {
	n, ok := intParam(r, "days", defaultDays, 1, maxDays)
	if !ok {
		httpjson.Error(w, http.StatusBadRequest, "days must be a whole number from 1 to "+strconv.Itoa(maxDays))
		return
	}
	days := []CreditDay{}
	if u.opts.Credits != nil {
		now := u.opts.Now()
		ds, err := u.opts.Credits.CreditDays(r.Context(), now.AddDate(0, 0, 1-n), now)
		if err != nil {
			u.fail(w, "read credit days", err)
			return
		}
		days = append(days, ds...)
	}
	httpjson.Write(w, http.StatusOK, days)
}

// intParam reads the query parameter name as an int in [lo, hi], or def
// when it is absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, bool) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

func (u *UI) fail(w http.ResponseWriter, what string, err error) {
	u.opts.Logger.Error("Web page request failed", "what", what, "err", err)
	httpjson.Error(w, http.StatusInternalServerError, what+": "+err.Error())
}
