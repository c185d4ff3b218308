// Package canonjson writes the canonical JSON strings that action digests
// hash (approval.Digest, route.ActionDigest), so that the two agree
// byte for byte: a digest made without a quorum policy is the same either
// way, and a remembered consent keeps holding.
package canonjson

// AppendString appends s as a JSON string with the minimal escapes: '"'
// and '\\', the short escapes for \b \f \n \r \t, \u00XX for the other
// control characters, and every other byte as it is.
func AppendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
