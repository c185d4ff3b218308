package askuser

import "strings"

// compact returns a copy of c that holds exactly what it needs: its
// questions and options in slices of their own length, and every string in
// one shared backing array. A decoded call otherwise keeps the whole input
// (keys, whitespace) and room for the largest call alive for as long as the
// ask is pending; compacting it is what keeps a pending ask small.
func compact(c *Form) *Form {
	out := new(Form)
	*out = *c
	nopts := 0
	for i := range c.Questions {
		nopts += len(c.Questions[i].Options)
	}
	out.Questions = make([]Question, len(c.Questions))
	copy(out.Questions, c.Questions)
	opts := make([]Option, nopts)
	k := 0
	for i := range out.Questions {
		q := &out.Questions[i]
		if q.Options == nil {
			continue
		}
		n := copy(opts[k:], q.Options)
		q.Options = opts[k : k+n : k+n]
		k += n
	}

	size := 0
	eachString(out, func(s *string) { size += len(*s) })
	var b strings.Builder
	b.Grow(size)
	eachString(out, func(s *string) { b.WriteString(*s) })
	arena, off := b.String(), 0
	eachString(out, func(s *string) {
		n := len(*s)
		*s = arena[off : off+n]
		off += n
	})
	return out
}

// eachString calls f with every string of the call, in a fixed order. An
// option's value that equals its label is not visited; it is pointed at
// the label afterwards, so the two share their bytes.
func eachString(c *Form, f func(*string)) {
	f(&c.Title)
	f(&c.Contract)
	f(&c.HumanIntent)
	for i := range c.Questions {
		q := &c.Questions[i]
		f(&q.ID)
		f((*string)(&q.Kind))
		f(&q.Header)
		f(&q.Text)
		f(&q.OtherLabel)
		f(&q.SecretName)
		f(&q.Purpose)
		f(&q.Prefill)
		for k := range q.Options {
			o := &q.Options[k]
			same := o.Value == o.Label
			f(&o.Label)
			f(&o.Description)
			f(&o.Preview)
			if same {
				o.Value = o.Label
			} else {
				f(&o.Value)
			}
		}
	}
}
