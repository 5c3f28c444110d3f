// Package jsontext words what encoding/json reports in terms a person
// editing a JSON file can act on: where in the file (line and column
// rather than a byte offset) and what kind of value JSON expected.
package jsontext

import (
	"bytes"
	"fmt"
	"reflect"
)

// Position formats a byte offset of data as "line L, column C" (1-based);
// an offset outside data is clamped to it.
func Position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Kind names a Go kind as JSON calls it: "a list", "an object", "a
// string", "true or false" or "a number".
func Kind(k reflect.Kind) string {
	switch k {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a number"
}
