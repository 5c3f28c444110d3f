package jsontext

import (
	"reflect"
	"testing"
)

func TestPosition(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	for _, tc := range []struct {
		name string
		off  int64
		want string
	}{
		{"start", 0, "line 1, column 1"},
		{"second line", 4, "line 2, column 3"},
		{"third line", 19, "line 3, column 8"},
		{"before the start", -5, "line 1, column 1"},
		{"past the end", 999, "line 4, column 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Position(data, tc.off); got != tc.want {
				t.Fatalf("Position(%d) = %q, want %q", tc.off, got, tc.want)
			}
		})
	}
}

func TestKind(t *testing.T) {
	for k, want := range map[reflect.Kind]string{
		reflect.Slice:   "a list",
		reflect.Map:     "an object",
		reflect.Pointer: "an object",
		reflect.String:  "a string",
		reflect.Bool:    "true or false",
		reflect.Float64: "a number",
		reflect.Int:     "a number",
	} {
		if got := Kind(k); got != want {
			t.Errorf("Kind(%v) = %q, want %q", k, got, want)
		}
	}
}
