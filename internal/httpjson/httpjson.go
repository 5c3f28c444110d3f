// Package httpjson writes the JSON answers of the program's HTTP APIs (the
// client's local API and web page, the manager's API and IndexNow
// endpoint): a value, or an error as {"error": "…"}.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// ErrorBody is an error answer, as clients decode it.
type ErrorBody struct {
	Error string `json:"error"`
}

// Write answers code with v, compact.
func Write(w http.ResponseWriter, code int, v any) { write(w, code, v, "") }

// WriteIndented answers code with v indented by two spaces, for APIs a
// person reads with curl.
func WriteIndented(w http.ResponseWriter, code int, v any) { write(w, code, v, "  ") }

// Error answers code with msg as an ErrorBody, compact.
func Error(w http.ResponseWriter, code int, msg string) { Write(w, code, ErrorBody{Error: msg}) }

func write(w http.ResponseWriter, code int, v any, indent string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", indent)
	_ = enc.Encode(v) // the asker went away; nothing to do
}

// ErrorIndented answers code with msg as an ErrorBody, indented like
// WriteIndented.
func ErrorIndented(w http.ResponseWriter, code int, msg string) {
	WriteIndented(w, code, ErrorBody{Error: msg})
}
