package claudehook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askuserwire"
)

// Config says what the hook asks. Its zero value asks AskUserQuestion's
// questions, with the default wait, and decides no permission.
type Config struct {
	// ApproveTools names the tools ("Bash", "Write", "mcp__github__merge")
	// whose every call is asked as a request_approval: allowed only if a
	// person approves, denied otherwise. Names are compared exactly.
	// AskUserQuestion is always asked as questions, listed here or not.
	ApproveTools []string
	// TimeoutSeconds is the wait of every ask, written as the call's
	// timeout_seconds (0: DefaultTimeoutSeconds). The orchestrator or
	// service that asks must allow it (its ceiling), or refuses the call.
	TimeoutSeconds int
}

func (c Config) timeout() int {
	if c.TimeoutSeconds > 0 {
		return c.TimeoutSeconds
	}
	return DefaultTimeoutSeconds
}

// A Call is what the hook asks for one input: the arguments of a call in
// one of askuser's contracts, to be asked in Dialect (by an orchestrator,
// or askuser serve), and what Reply needs to read its result back.
type Call struct {
	// Dialect is DialectAskUser or DialectApproval.
	Dialect string
	// Arguments are the call's JSON arguments, valid in Dialect under a
	// ceiling of Config.TimeoutSeconds.
	Arguments []byte

	toolInput []byte     // the tool's input, echoed in updatedInput
	questions []question // AskUserQuestion's, in order; their ids are q1, q2, …
}

// Plan returns what the hook asks for in: for AskUserQuestion, an
// ask_user call of its questions (each with its options, multiSelect as
// multi_select, free text allowed as Claude Code allows it, no default);
// for a tool in ApproveTools, a request_approval call whose action names
// the tool and what it acts on and whose details are its whole input. For
// any other tool it returns nil: the hook makes no decision. An input it
// cannot turn into a valid call is an error that says why; the hook then
// answers Fallback.
func (c Config) Plan(in *Input) (*Call, error) {
	switch {
	case in.ToolName == AskUserQuestion:
		return c.questionCall(in)
	case slices.Contains(c.ApproveTools, in.ToolName):
		return c.approvalCall(in)
	}
	return nil, nil
}

type askCall struct {
	Questions      []askQuestion `json:"questions"`
	TimeoutSeconds int           `json:"timeout_seconds"`
	HumanIntent    string        `json:"human_intent,omitempty"`
}

type askQuestion struct {
	ID          string   `json:"id"`
	Header      string   `json:"header"`
	Question    string   `json:"question"`
	MultiSelect bool     `json:"multi_select"`
	Options     []option `json:"options"`
}

// maxHeaderRunes is ask_user's bound on a header.
const maxHeaderRunes = 16

func (c Config) questionCall(in *Input) (*Call, error) {
	qs, err := askQuestions(in.ToolInput)
	if err != nil {
		return nil, err
	}
	call := askCall{TimeoutSeconds: c.timeout(), HumanIntent: intent(in.Cwd)}
	for i, q := range qs {
		header := q.Header
		switch {
		case strings.TrimSpace(header) == "":
			header = "Question " + strconv.Itoa(i+1)
		case utf8.RuneCountInString(header) > maxHeaderRunes:
			header = clip(header, maxHeaderRunes)
		}
		opts := q.Options
		if opts == nil {
			opts = []option{}
		}
		call.Questions = append(call.Questions, askQuestion{ID: questionID(i), Header: header, Question: q.Question, MultiSelect: q.MultiSelect, Options: opts})
	}
	args, err := marshal(call)
	if err != nil {
		return nil, err
	}
	if _, err := askuserwire.Decode(args, dialect.Limits{MaxTimeoutSeconds: c.timeout()}); err != nil {
		return nil, fmt.Errorf("the questions cannot be asked as ask_user: %v", err)
	}
	return &Call{Dialect: DialectAskUser, Arguments: args, toolInput: in.ToolInput, questions: qs}, nil
}

func questionID(i int) string { return "q" + strconv.Itoa(i+1) }

type approvalCall struct {
	Action         string `json:"action"`
	Reason         string `json:"reason"`
	Risk           string `json:"risk"`
	Details        string `json:"details"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	HumanIntent    string `json:"human_intent,omitempty"`
}

// summaryFields are the members of a tool's input that say what it acts
// on, in the order they are looked for: Bash's command, the file of Read,
// Write and Edit, NotebookEdit's notebook, WebFetch's url, WebSearch's
// query, Glob's and Grep's pattern, an agent task's description.
var summaryFields = []string{"command", "file_path", "notebook_path", "url", "query", "pattern", "path", "description"}

func (c Config) approvalCall(in *Input) (*Call, error) {
	var fields map[string]any
	if err := json.Unmarshal(in.ToolInput, &fields); err != nil {
		return nil, fmt.Errorf("tool_input of %s: %v", clip(in.ToolName, 80), err)
	}
	tool := oneLine(in.ToolName)
	action := "Use the " + tool + " tool"
	for _, f := range summaryFields {
		if s, ok := fields[f].(string); ok && strings.TrimSpace(s) != "" {
			action = tool + ": " + oneLine(s)
			break
		}
	}
	reason := "Claude Code asks permission to use the " + tool + " tool"
	if d, ok := fields["description"].(string); ok && strings.TrimSpace(d) != "" {
		reason += ": " + oneLine(d)
	}
	var details bytes.Buffer
	if err := json.Indent(&details, in.ToolInput, "", "  "); err != nil {
		return nil, fmt.Errorf("tool_input of %s: %v", clip(in.ToolName, 80), err)
	}
	if details.Len() > approvalwire.MaxDetailsBytes {
		return nil, fmt.Errorf("the input of %s is %d bytes, more than the %d the approval card shows in full; a person must see all of it to decide", clip(tool, 80), details.Len(), approvalwire.MaxDetailsBytes)
	}
	args, err := marshal(approvalCall{
		Action:         clip(action, approvalwire.MaxActionRunes),
		Reason:         clip(reason, approvalwire.MaxReasonRunes),
		Risk:           approvalwire.RiskMedium,
		Details:        details.String(),
		TimeoutSeconds: c.timeout(),
		HumanIntent:    intent(in.Cwd),
	})
	if err != nil {
		return nil, err
	}
	if _, err := approvalwire.Decode(args, dialect.Limits{MaxTimeoutSeconds: c.timeout()}); err != nil {
		return nil, fmt.Errorf("the permission request cannot be asked as request_approval: %v", err)
	}
	return &Call{Dialect: DialectApproval, Arguments: args}, nil
}

// intent is the line shown above an ask: which Claude Code asks, by the
// directory it works in (its end, where a long path is cut).
func intent(cwd string) string {
	const lead = "Claude Code in "
	if cwd == "" {
		return "Claude Code"
	}
	cwd = oneLine(cwd)
	max := approvalwire.MaxIntentRunes - utf8.RuneCountInString(lead)
	if r := []rune(cwd); len(r) > max {
		cwd = "…" + string(r[len(r)-max+1:])
	}
	return lead + cwd
}

// marshal writes v on one line, without HTML escapes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
