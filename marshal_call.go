package askuser

import (
	"errors"
	"strconv"
	"time"

	"github.com/askuser-go/askuser/internal/jsonscan"
)

// stampLayout is RFC 3339 in UTC with exactly nine fractional digits, the
// form of SPEC §1.2 ("2026-11-30T09:00:00.123456789Z"). Unlike
// time.RFC3339Nano it keeps trailing zeros, so every stamp has the same
// width.
const stampLayout = "2006-01-02T15:04:05.000000000Z07:00"

// MarshalCall returns c in the ask_user JSON form (SPEC §1). For a
// normalized call every default is written out:
//
//	{"questions":[{"kind":…,"id":…,"header":…,"question":…,"multi_select":…,
//	"allow_other":…,"options":[{"label":…,"description":…,"default":…}]}],
//	"timeout_seconds":…,"asked_at":…,"nudge_at":…,"expires_at":…}
//
// in that field order, with "options" written as [] when there are none and
// "secret_name" and "purpose" after "options" where they are set (a
// normalized call sets them on secrets only). The stamps are written in UTC
// with nine fractional digits, and left out when zero.
//
// A call built in Go may leave out what the decoder fills: an empty ID or
// Kind and a zero TimeoutSeconds are omitted, so decoding the result
// generates the id and applies the defaults. The ask_user contract has no
// option values, so an Option is written by its Label; the fields the
// contract does not carry (Title, OtherLabel, Preview, Sensitive, …) are not
// written.
//
// Decoding the result of MarshalCall with the same Limits validates and
// gives the same call again, apart from the stamps.
func MarshalCall(c *Call) ([]byte, error) {
	if c == nil {
		return nil, errors.New("askuser: MarshalCall of a nil *Call")
	}
	size := 64
	for i := range c.Questions {
		q := &c.Questions[i]
		size += 120 + len(q.ID) + len(q.Header) + len(q.Text) + len(q.SecretName) + len(q.Purpose)
		for k := range q.Options {
			size += 48 + len(q.Options[k].Label) + len(q.Options[k].Description)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"questions":[`...)
	for i := range c.Questions {
		q := &c.Questions[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if q.Kind != "" {
			b = append(b, `"kind":`...)
			b = jsonscan.AppendQuote(b, string(q.Kind))
			b = append(b, ',')
		}
		if q.ID != "" {
			b = append(b, `"id":`...)
			b = jsonscan.AppendQuote(b, q.ID)
			b = append(b, ',')
		}
		b = append(b, `"header":`...)
		b = jsonscan.AppendQuote(b, q.Header)
		b = append(b, `,"question":`...)
		b = jsonscan.AppendQuote(b, q.Text)
		b = append(b, `,"multi_select":`...)
		b = strconv.AppendBool(b, q.MultiSelect)
		b = append(b, `,"allow_other":`...)
		b = strconv.AppendBool(b, q.AllowOther)
		b = append(b, `,"options":[`...)
		for k := range q.Options {
			o := &q.Options[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"label":`...)
			b = jsonscan.AppendQuote(b, o.Label)
			b = append(b, `,"description":`...)
			b = jsonscan.AppendQuote(b, o.Description)
			b = append(b, `,"default":`...)
			b = strconv.AppendBool(b, o.Default)
			b = append(b, '}')
		}
		b = append(b, ']')
		if q.SecretName != "" {
			b = append(b, `,"secret_name":`...)
			b = jsonscan.AppendQuote(b, q.SecretName)
		}
		if q.Purpose != "" {
			b = append(b, `,"purpose":`...)
			b = jsonscan.AppendQuote(b, q.Purpose)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if c.TimeoutSeconds != 0 {
		b = append(b, `,"timeout_seconds":`...)
		b = strconv.AppendInt(b, int64(c.TimeoutSeconds), 10)
	}
	b = appendStamp(b, `,"asked_at":"`, c.AskedAt)
	b = appendStamp(b, `,"nudge_at":"`, c.NudgeAt)
	b = appendStamp(b, `,"expires_at":"`, c.ExpiresAt)
	return append(b, '}'), nil
}

func appendStamp(b []byte, field string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(b, field...)
	b = t.UTC().AppendFormat(b, stampLayout)
	return append(b, '"')
}
