package ledger

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"testing"
	"time"
)

func TestWriteCSV(t *testing.T) {
	l, _ := open(t)
	r := receipt("t,1", 2.5, noon)
	r.Channel = `news "daily", example.com/w/`
	l.Add([]byte{0, 1, 2, 255}, r, true, noon)
	l.Add([]byte("x"), receipt("t2", 1, noon.Add(time.Hour)), false, noon)
	var buf bytes.Buffer
	if err := l.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "issued_at" {
		t.Fatalf("rows %q", rows)
	}
	newest, older := rows[1], rows[2]
	if newest[1] != "t2" || newest[9] != "pending" {
		t.Errorf("first row %q", newest)
	}
	raw, _ := base64.StdEncoding.DecodeString(older[10])
	if older[1] != "t,1" || older[2] != r.Channel || older[8] != "2.5" || older[9] != "confirmed" || !bytes.Equal(raw, []byte{0, 1, 2, 255}) {
		t.Errorf("second row %q", older)
	}
}
