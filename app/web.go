package app

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

// webPage mounts the local web page on the API server; Serve runs it.
func (c *Client) webPage(api *localapi.Server) *web.UI {
	page := web.New(web.Options{
		Status: c, Credits: webCredits{c.ledger}, Auth: api,
		SessionFile: c.dirs.WebSessionsFile(),
		Logger:      c.log.With("part", "web"), Now: c.opts.Now,
	})
	page.Mount(api)
	return page
}

// webCredits shows the ledger on the web page.
type webCredits struct{ l *ledger.Ledger }

var _ web.Credits = webCredits{}

// Receipts returns up to limit receipts, newest first.
func (w webCredits) Receipts(ctx context.Context, limit int) ([]web.Receipt, error) {
	es, err := w.l.Entries(limit)
	if err != nil {
		return nil, err
	}
	out := make([]web.Receipt, len(es))
	for i, e := range es {
		var lr LocalReceipt
		local := json.Unmarshal(e.Raw, &lr) == nil && lr.Kind == LocalReceiptKind
		out[i] = web.Receipt{Receipt: e.Receipt, Confirmed: e.Confirmed, Signed: !local, Raw: e.Raw}
	}
	return out, nil
}

// CreditDays returns the ledger's days from first to last.
func (w webCredits) CreditDays(ctx context.Context, first, last time.Time) ([]web.CreditDay, error) {
	ds, err := w.l.Days(first, last)
	if err != nil {
		return nil, err
	}
	out := make([]web.CreditDay, len(ds))
	for i, d := range ds {
		out[i] = web.CreditDay{Date: d.Date, Confirmed: d.Confirmed, Pending: d.Pending, Pages: d.PagesAccepted}
	}
	return out, nil
}

// WriteReceiptsCSV writes every receipt as CSV.
func (w webCredits) WriteReceiptsCSV(ctx context.Context, out io.Writer) error {
	return w.l.WriteCSV(out)
}
