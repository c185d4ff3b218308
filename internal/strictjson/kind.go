package strictjson

import "bytes"

// Kind names the kind of a raw JSON value by its first byte after any white
// space: "object", "array", "string", "number", "boolean" or "null" ("" for
// no value). It does not check that the value is valid JSON.
func Kind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
