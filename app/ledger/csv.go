package ledger

import (
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// csvHeader names WriteCSV's columns.
var csvHeader = []string{"issued_at", "task_id", "channel", "peer", "pages_accepted", "pages_new", "pages_changed", "bytes", "credits", "status", "receipt_base64"}

// WriteCSV writes every receipt, newest first, with its signed bytes in
// base64 so each row can be verified on its own.
func (l *Ledger) WriteCSV(w io.Writer) error {
	es, err := l.Entries(0)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, e := range es {
		r := e.Receipt
		status := e.State()
		cw.Write([]string{
			r.IssuedAt.UTC().Format(time.RFC3339), r.TaskID, r.Channel, r.Peer,
			strconv.Itoa(r.PagesAccepted), strconv.Itoa(r.PagesNew), strconv.Itoa(r.PagesChanged),
			strconv.FormatInt(r.Bytes, 10), strconv.FormatFloat(r.Credits, 'f', -1, 64), status,
			base64.StdEncoding.EncodeToString(e.Raw),
		})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write receipts CSV: %w", err)
	}
	return nil
}
