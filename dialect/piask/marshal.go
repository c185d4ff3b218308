package piask

import (
	"errors"

	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
)

type callOut struct {
	Title     string         `json:"title,omitempty"`
	Questions []callQuestion `json:"questions"`
}

type callQuestion struct {
	ID      string       `json:"id"`
	Label   string       `json:"label"`
	Prompt  string       `json:"prompt"`
	Type    string       `json:"type"`
	Options []callOption `json:"options"`
}

type callOption struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Preview     string `json:"preview,omitempty"`
}

// MarshalCall writes a normalized call back as the contract's call, every
// default written out: Decode of the result gives the same call again.
// Only choice questions can be written.
func MarshalCall(c *askuser.Form) ([]byte, error) {
	out := callOut{Title: c.Title, Questions: make([]callQuestion, len(c.Questions))}
	for i := range c.Questions {
		q := &c.Questions[i]
		if q.Kind != askuser.KindChoice {
			return nil, errors.New("piask: question " + q.ID + " is not a choice question; the pi-ask contract has only choice questions")
		}
		cq := callQuestion{ID: q.ID, Label: q.Header, Prompt: q.Text, Type: TypeOf(q), Options: make([]callOption, len(q.Options))}
		for k, o := range q.Options {
			cq.Options[k] = callOption{Value: o.Value, Label: o.Label, Description: o.Description, Preview: o.Preview}
		}
		out.Questions[i] = cq
	}
	return wire.Marshal(out)
}
