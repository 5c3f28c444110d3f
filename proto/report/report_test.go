package report

import (
	"bufio"
	"bytes"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    Report
		ok   bool
	}{
		{"expired", Report{Task: []byte{1}, Reason: Expired}, true},
		{"refused", Report{Task: []byte{1}, Reason: Refused}, true},
		{"no task", Report{Reason: Expired}, false},
		{"unknown reason", Report{Task: []byte{1}, Reason: "bored"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate(%+v) = %v", tt.r, err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	write(&buf, Report{Task: []byte("envelope"), Reason: Expired})
	f.Add(buf.Bytes())
	f.Add([]byte{0x05, '{', '}', ' ', ' ', 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Report
		if Decode(bufio.NewReader(bytes.NewReader(b)), &r) == nil {
			r.Validate()
		}
		var a Answer
		Decode(bufio.NewReader(bytes.NewReader(b)), &a)
	})
}
