package envelope

import (
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
)

func testTask() *task.Task {
	return &task.Task{
		ID:       "t-1",
		Channel:  "news.example.com/w/",
		Seeds:    []string{"https://news.example.com/w/"},
		MaxDepth: 2,
		Issued:   time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
	}
}

func newKey(t testing.TB) crypto.PrivKey {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	manager := newKey(t)
	in := testTask()
	b, err := Seal(in, manager)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Open(b, manager.GetPublic())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if out.ID != in.ID || out.Channel != in.Channel || out.Seeds[0] != in.Seeds[0] || !out.Issued.Equal(in.Issued) {
		t.Fatalf("Open returned %+v, want %+v", out, in)
	}
}

func TestOpenRefuses(t *testing.T) {
	manager := newKey(t)
	other := newKey(t)
	good, err := Seal(testTask(), manager)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := testTask().Encode()
	if err != nil {
		t.Fatal(err)
	}
	forged, err := Seal(testTask(), other)
	if err != nil {
		t.Fatal(err)
	}
	receiptKind := Kind{Domain: "hivecrawl-receipt", PayloadType: []byte("/hivecrawl/receipt/json/1")}
	sameDomainOtherType := Kind{Domain: TaskKind.Domain, PayloadType: []byte("/hivecrawl/other/1")}
	wrongDomain, err := SealRecord(receiptKind, bare, manager)
	if err != nil {
		t.Fatal(err)
	}
	wrongType, err := SealRecord(sameDomainOtherType, bare, manager)
	if err != nil {
		t.Fatal(err)
	}
	badTask, err := SealRecord(TaskKind, []byte(`{"id":""}`), manager)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrUnsigned},
		{"bare task json", bare, ErrUnsigned},
		{"oversized", make([]byte, MaxSize+1), ErrUnsigned},
		{"signed by another key", forged, ErrForged},
		{"payload byte flipped", alterPayload(t, good, manager), ErrAltered},
		{"signature byte flipped", flipLast(good), ErrAltered},
		{"other domain", wrongDomain, ErrAltered},
		{"other payload type", wrongType, ErrWrongType},
		{"signed invalid task", badTask, ErrInvalidPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Open(tt.b, manager.GetPublic())
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %v, %v; want %v", got, err, tt.want)
			}
			if got != nil {
				t.Fatal("a refused envelope returned a task")
			}
		})
	}
}

// alterPayload changes one byte of the task JSON inside a sealed envelope,
// keeping the envelope well-formed.
func alterPayload(t *testing.T, b []byte, key crypto.PrivKey) []byte {
	t.Helper()
	payload, err := OpenPayload(b, TaskKind, key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	i := indexOf(b, payload)
	if i < 0 {
		t.Fatal("payload not found in envelope")
	}
	out := append([]byte(nil), b...)
	// "t-1" becomes "t-2": still a valid task, but not what was signed.
	for j := i; j < i+len(payload)-2; j++ {
		if out[j] == 't' && out[j+1] == '-' && out[j+2] == '1' {
			out[j+2] = '2'
			return out
		}
	}
	t.Fatal("task id not found in payload")
	return nil
}

func indexOf(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

func flipLast(b []byte) []byte {
	out := append([]byte(nil), b...)
	out[len(out)-1] ^= 0x01
	return out
}

func TestOpenRecordGeneric(t *testing.T) {
	k := newKey(t)
	kind := Kind{Domain: "hivecrawl-receipt", PayloadType: []byte("/hivecrawl/receipt/1")}
	b, err := SealRecord(kind, []byte("42 pages"), k)
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenRecord(b, kind, k.GetPublic(), func(p []byte) (string, error) { return string(p), nil })
	if err != nil || got != "42 pages" {
		t.Fatalf("OpenRecord = %q, %v", got, err)
	}
	if _, err := Open(b, k.GetPublic()); !errors.Is(err, ErrAltered) {
		t.Fatalf("a receipt opened as a task: %v", err)
	}
}

func FuzzOpen(f *testing.F) {
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		f.Fatal(err)
	}
	good, err := Seal(testTask(), k)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte(`{"id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := Open(b, k.GetPublic())
		if err != nil {
			return
		}
		if err := tk.Validate(); err != nil {
			t.Fatalf("opened task does not validate: %v", err)
		}
	})
}
