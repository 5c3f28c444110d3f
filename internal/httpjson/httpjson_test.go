package httpjson

import (
	"net/http/httptest"
	"testing"
)

func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(*httptest.ResponseRecorder)
		code int
		body string
	}{
		{"compact", func(w *httptest.ResponseRecorder) { Write(w, 200, map[string]int{"accepted": 2}) }, 200, "{\"accepted\":2}\n"},
		{"indented", func(w *httptest.ResponseRecorder) { WriteIndented(w, 201, map[string]int{"added": 1}) }, 201, "{\n  \"added\": 1\n}\n"},
		{"error", func(w *httptest.ResponseRecorder) { Error(w, 400, "bad <input>") }, 400, "{\"error\":\"bad \\u003cinput\\u003e\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tc.do(w)
			if w.Code != tc.code || w.Body.String() != tc.body || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("answer %d %q %q, want %d %q", w.Code, w.Header().Get("Content-Type"), w.Body.String(), tc.code, tc.body)
			}
		})
	}
}
