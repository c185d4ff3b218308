// Package routefile reads a routes file: named routes, the groups their
// quorums and steps name, and the rules that choose a route for a request,
// for askuser serve, askuser approve and askuser validate (--routes FILE).
// The file is YAML or JSON (JSON is read as the YAML it also is); every
// field is checked when the file is read, and an error names the line and
// column, the field, and what is allowed there.
//
// The format, with every field:
//
//	version: 1                      # optional; 1 is the only version
//	groups:                         # optional: group name -> members (verified principals)
//	  sre: [alice@example.com, bob@example.com]
//	routes:                         # required: route name -> route
//	  oncall:
//	    steps:                      # required: 1-16 steps, in order
//	      - responders: [card]      # the first step begins with the ask
//	      - after: 2m               # a duration: 90s, 2m, 1h30m
//	        from: previous          # previous (default) | start | nudge
//	        responders: [slack:#ops]
//	      - after: 10m
//	        people: [lead@example.com, group:sre]
//	        responders: [email]
//	    repeat: 0                   # optional: 0-100 more times
//	    repeat_after: 15m           # required when repeat > 0
//	    quorum:                     # optional, for approvals
//	      required: 2
//	      eligible: [carol@example.com, group:sre, {group: sre, per_member: true}]
//	      veto: eligible            # eligible (default) | anyone
//	      exclude_owner: false
//	rules:                          # optional: the first that matches chooses
//	  - tool: request_approval      # a name or a list; absent: any tool
//	    session_prefix: prod-       # absent: any session
//	    risk: [irreversible]        # a risk or a list; absent: any
//	    route: oncall               # required
//
// Names of routes and groups are 1-64 lowercase letters, digits, '-' and
// '_'. Where the file is YAML, aliases, tags and several documents are
// refused; duplicate keys are refused in YAML and JSON alike.
package routefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askuser-go/askuser/route"
	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest routes file Parse reads: 1 MiB.
const MaxSize = 1 << 20

// A File is a routes file, read and checked.
type File struct {
	// Groups are the groups the file defines, by name: their members,
	// in the file's order.
	Groups map[string][]string
	// Routes are the routes by name. Every group a quorum names is
	// expanded into its members (the snapshot an ask keeps).
	Routes map[string]route.Route
	// Names are the route names in the file's order.
	Names []string
	// Rules choose a route for a request, in the file's order.
	Rules []Rule
}

// A Rule chooses Route for the requests it matches: every condition given
// holds (an absent one holds for every request).
type Rule struct {
	// Tools are the tool names matched (request_approval, ask_user, …);
	// empty: any.
	Tools []string
	// SessionPrefix is what the session id begins with; empty: any.
	SessionPrefix string
	// Risks are the risks matched (low, medium, high, irreversible); a
	// request without a risk (a question) matches none. Empty: any.
	Risks []string
	// Route is the name of the route chosen.
	Route string
	// Line is the rule's line in the file.
	Line int
}

// An Error is what is wrong with a routes file, and where.
type Error struct {
	File   string // the name given to Parse
	Line   int    // 1-based; 0 when the file as a whole is wrong
	Column int    // 1-based; 0 with Line
	Path   string // the field: routes.oncall.steps[1].after
	Msg    string // what is wrong and what is allowed
}

// Error says where the file is wrong, what is wrong and what is allowed.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// risks are the risks a rule may name, as request_approval spells them.
var risks = []string{"low", "medium", "high", "irreversible"}

// Parse reads a routes file; name is how errors name it. The error is an
// *Error.
func Parse(name string, data []byte) (*File, error) {
	p := &parser{name: name}
	f, err := p.file(data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{File: name, Msg: err.Error()}
	}
	return f, nil
}

type parser struct {
	name string
}

func (p *parser) errAt(n *yaml.Node, path, format string, args ...any) error {
	e := &Error{File: p.name, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

func (p *parser) file(data []byte) (*File, error) {
	if len(data) > MaxSize {
		return nil, p.errAt(nil, "", "the file is %d bytes; at most %d are read", len(data), MaxSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, p.errAt(nil, "", "the file is empty; it needs at least routes:")
		}
		return nil, p.errAt(nil, "", "not YAML or JSON: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, p.errAt(&more, "", "a routes file is one document; remove the second (after ---)")
	}
	if len(doc.Content) == 0 {
		return nil, p.errAt(nil, "", "the file is empty; it needs at least routes:")
	}
	root := doc.Content[0]
	f := &File{Groups: map[string][]string{}, Routes: map[string]route.Route{}}
	fields, err := p.mapping(root, "", "version", "groups", "routes", "rules")
	if err != nil {
		return nil, err
	}
	if n, ok := fields["version"]; ok {
		v, err := p.integer(n.val, "version")
		if err != nil {
			return nil, err
		}
		if v != 1 {
			return nil, p.errAt(n.val, "version", "version %d is not known; allowed: 1", v)
		}
	}
	if n, ok := fields["groups"]; ok {
		if err := p.groups(n.val, f); err != nil {
			return nil, err
		}
	}
	rn, ok := fields["routes"]
	if !ok {
		return nil, p.errAt(root, "routes", "required: a routes file defines at least one route")
	}
	if err := p.routes(rn.val, f); err != nil {
		return nil, err
	}
	if n, ok := fields["rules"]; ok {
		if err := p.rules(n.val, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

type field struct {
	key, val *yaml.Node
}

// mapping checks that n is a mapping of the allowed keys, each at most
// once, with no alias or tag, and returns its fields.
func (p *parser) mapping(n *yaml.Node, path string, allowed ...string) (map[string]field, error) {
	if err := p.plain(n, path); err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, pathOr(path), "expected a mapping of %s, got %s", strings.Join(allowed, ", "), kind(n))
	}
	out := map[string]field{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := p.plain(k, path); err != nil {
			return nil, err
		}
		at := join(path, k.Value)
		if k.Kind != yaml.ScalarNode || (allowed != nil && !slices.Contains(allowed, k.Value)) {
			return nil, p.errAt(k, at, "unknown field; allowed: %s", strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errAt(k, at, "duplicate field; a field may appear only once")
		}
		if err := p.plain(v, at); err != nil {
			return nil, err
		}
		out[k.Value] = field{k, v}
	}
	return out, nil
}

// entries returns the key-value pairs of a mapping whose keys are names
// (of routes, groups), in order, refusing duplicates and bad names.
func (p *parser) entries(n *yaml.Node, path, what string) ([]field, error) {
	if err := p.plain(n, path); err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, path, "expected a mapping of %s names, got %s", what, kind(n))
	}
	var out []field
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := p.plain(k, path); err != nil {
			return nil, err
		}
		at := join(path, k.Value)
		if k.Kind != yaml.ScalarNode || !isName(k.Value) {
			return nil, p.errAt(k, at, "%s name %q: must be 1-64 lowercase letters, digits, '-' or '_'", what, k.Value)
		}
		if seen[k.Value] {
			return nil, p.errAt(k, at, "%s %s is defined twice", what, k.Value)
		}
		seen[k.Value] = true
		if err := p.plain(v, at); err != nil {
			return nil, err
		}
		out = append(out, field{k, v})
	}
	return out, nil
}

// plain refuses aliases, anchors' uses and explicit tags other than the
// core ones.
func (p *parser) plain(n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode {
		return p.errAt(n, pathOr(path), "aliases (*%s) are not allowed in a routes file; write the value out", n.Value)
	}
	if n.Style&yaml.TaggedStyle != 0 && !strings.HasPrefix(n.Tag, "!!") {
		return p.errAt(n, pathOr(path), "tags (%s) are not allowed in a routes file", n.Tag)
	}
	return nil
}

func (p *parser) groups(n *yaml.Node, f *File) error {
	es, err := p.entries(n, "groups", "group")
	if err != nil {
		return err
	}
	for _, e := range es {
		at := "groups." + e.key.Value
		members, nodes, err := p.strings(e.val, at)
		if err != nil {
			return err
		}
		if len(members) == 0 {
			return p.errAt(e.val, at, "a group needs at least one member")
		}
		if len(members) > route.MaxEligible {
			return p.errAt(e.val, at, "a group has at most %d members, not %d", route.MaxEligible, len(members))
		}
		for i, m := range members {
			if err := route.CheckPerson(m); err != nil || strings.HasPrefix(m, "group:") {
				if err == nil {
					err = fmt.Errorf("%q: a group's members are principals, not groups", m)
				}
				return p.errAt(nodes[i], fmt.Sprintf("%s[%d]", at, i), "%v", err)
			}
			if slices.Contains(members[:i], m) {
				return p.errAt(nodes[i], fmt.Sprintf("%s[%d]", at, i), "%s is listed twice", m)
			}
		}
		f.Groups[e.key.Value] = members
	}
	return nil
}

func (p *parser) routes(n *yaml.Node, f *File) error {
	es, err := p.entries(n, "routes", "route")
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return p.errAt(n, "routes", "a routes file defines at least one route")
	}
	for _, e := range es {
		r, err := p.route(e.val, "routes."+e.key.Value, f)
		if err != nil {
			return err
		}
		r.Name = e.key.Value
		f.Routes[r.Name] = r
		f.Names = append(f.Names, r.Name)
	}
	return nil
}

func (p *parser) route(n *yaml.Node, path string, f *File) (route.Route, error) {
	var r route.Route
	fields, err := p.mapping(n, path, "steps", "repeat", "repeat_after", "quorum")
	if err != nil {
		return r, err
	}
	sn, ok := fields["steps"]
	if !ok {
		return r, p.errAt(n, path+".steps", "required: a route needs at least one step")
	}
	if sn.val.Kind != yaml.SequenceNode {
		return r, p.errAt(sn.val, path+".steps", "expected a list of steps, got %s", kind(sn.val))
	}
	for i, s := range sn.val.Content {
		step, err := p.step(s, fmt.Sprintf("%s.steps[%d]", path, i), f)
		if err != nil {
			return r, err
		}
		r.Steps = append(r.Steps, step)
	}
	if fv, ok := fields["repeat"]; ok {
		if r.Repeat, err = p.integer(fv.val, path+".repeat"); err != nil {
			return r, err
		}
	}
	if fv, ok := fields["repeat_after"]; ok {
		if r.RepeatAfter, err = p.duration(fv.val, path+".repeat_after"); err != nil {
			return r, err
		}
	}
	if fv, ok := fields["quorum"]; ok {
		q, err := p.quorum(fv.val, path+".quorum", f)
		if err != nil {
			return r, err
		}
		r.Quorum = &q
	}
	if err := r.Check(); err != nil {
		// Check names the field within the route ("steps[1].after: …");
		// point at that field's node.
		field, msg, _ := strings.Cut(err.Error(), ": ")
		return r, p.errAt(p.locate(n, field), path+"."+field, "%s", msg)
	}
	return r, nil
}

// locate finds the node of a field path within a route
// (steps[1].after), as near as the route's nodes go.
func (p *parser) locate(n *yaml.Node, path string) *yaml.Node {
	cur := n
	for part := range strings.SplitSeq(path, ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		next := valueOf(cur, name)
		if next == nil {
			return cur
		}
		cur = next
		if hasIdx {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || cur.Kind != yaml.SequenceNode || i >= len(cur.Content) {
				return cur
			}
			cur = cur.Content[i]
		}
	}
	return cur
}

func valueOf(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (p *parser) step(n *yaml.Node, path string, f *File) (route.Step, error) {
	var s route.Step
	fields, err := p.mapping(n, path, "responders", "people", "after", "from")
	if err != nil {
		return s, err
	}
	if fv, ok := fields["responders"]; ok {
		var nodes []*yaml.Node
		if s.Responders, nodes, err = p.strings(fv.val, path+".responders"); err != nil {
			return s, err
		}
		for i, name := range s.Responders {
			if _, err := route.ParseChannel(name); err != nil {
				return s, p.errAt(nodes[i], fmt.Sprintf("%s.responders[%d]", path, i), "%v", err)
			}
		}
	}
	if fv, ok := fields["people"]; ok {
		var nodes []*yaml.Node
		if s.People, nodes, err = p.strings(fv.val, path+".people"); err != nil {
			return s, err
		}
		for i, who := range s.People {
			at := fmt.Sprintf("%s.people[%d]", path, i)
			if err := route.CheckPerson(who); err != nil {
				return s, p.errAt(nodes[i], at, "%v", err)
			}
			if g, ok := strings.CutPrefix(who, "group:"); ok && f.Groups[g] == nil {
				return s, p.errAt(nodes[i], at, "group %s is not defined; define it under groups:%s", g, defined(f.Groups))
			}
		}
	}
	if fv, ok := fields["after"]; ok {
		if s.After, err = p.duration(fv.val, path+".after"); err != nil {
			return s, err
		}
	}
	if fv, ok := fields["from"]; ok {
		v, err := p.str(fv.val, path+".from")
		if err != nil {
			return s, err
		}
		switch a := route.Anchor(v); a {
		case route.AnchorPrevious, route.AnchorStart, route.AnchorNudge:
			s.From = a
		default:
			return s, p.errAt(fv.val, path+".from", "%q is not an anchor; allowed: previous (the default), start, nudge", v)
		}
	}
	return s, nil
}

func (p *parser) quorum(n *yaml.Node, path string, f *File) (route.Quorum, error) {
	var q route.Quorum
	fields, err := p.mapping(n, path, "required", "eligible", "veto", "exclude_owner")
	if err != nil {
		return q, err
	}
	fv, ok := fields["required"]
	if !ok {
		return q, p.errAt(n, path+".required", "required: how many approvers must approve")
	}
	if q.Required, err = p.integer(fv.val, path+".required"); err != nil {
		return q, err
	}
	ev, ok := fields["eligible"]
	if !ok {
		return q, p.errAt(n, path+".eligible", "required: the principals and groups who may approve")
	}
	items := []*yaml.Node{ev.val}
	if ev.val.Kind == yaml.SequenceNode {
		items = ev.val.Content
	}
	for i, it := range items {
		a, err := p.approver(it, fmt.Sprintf("%s.eligible[%d]", path, i), f)
		if err != nil {
			return q, err
		}
		q.Eligible = append(q.Eligible, a)
	}
	if vv, ok := fields["veto"]; ok {
		v, err := p.str(vv.val, path+".veto")
		if err != nil {
			return q, err
		}
		q.Veto = route.Veto(v)
	}
	if ov, ok := fields["exclude_owner"]; ok {
		if q.ExcludeOwner, err = p.boolean(ov.val, path+".exclude_owner"); err != nil {
			return q, err
		}
	}
	return q, nil
}

// approver reads an eligible entry: "alice@example.com", "group:sre", or
// {group: sre, per_member: true}.
func (p *parser) approver(n *yaml.Node, path string, f *File) (route.Approver, error) {
	var a route.Approver
	group, node := "", n
	if err := p.plain(n, path); err != nil {
		return a, err
	}
	if n.Kind == yaml.MappingNode {
		fields, err := p.mapping(n, path, "group", "per_member")
		if err != nil {
			return a, err
		}
		gv, ok := fields["group"]
		if !ok {
			return a, p.errAt(n, path+".group", "required: the group's name (a principal is written alone, as a string)")
		}
		if group, err = p.str(gv.val, path+".group"); err != nil {
			return a, err
		}
		node = gv.val
		if pv, ok := fields["per_member"]; ok {
			if a.PerMember, err = p.boolean(pv.val, path+".per_member"); err != nil {
				return a, err
			}
		}
	} else {
		s, err := p.str(n, path)
		if err != nil {
			return a, err
		}
		g, isGroup := strings.CutPrefix(s, "group:")
		if !isGroup {
			if err := route.CheckPerson(s); err != nil {
				return a, p.errAt(n, path, "%v", err)
			}
			return route.Approver{Principal: s}, nil
		}
		group = g
	}
	members, ok := f.Groups[group]
	if !ok {
		return a, p.errAt(node, path, "group %s is not defined; define it under groups:%s", group, defined(f.Groups))
	}
	a.Group, a.Members = group, slices.Clone(members)
	return a, nil
}

func (p *parser) rules(n *yaml.Node, f *File) error {
	if n.Kind != yaml.SequenceNode {
		return p.errAt(n, "rules", "expected a list of rules, got %s", kind(n))
	}
	catchAll := -1
	for i, rn := range n.Content {
		path := fmt.Sprintf("rules[%d]", i)
		fields, err := p.mapping(rn, path, "tool", "session_prefix", "risk", "route")
		if err != nil {
			return err
		}
		r := Rule{Line: rn.Line}
		if fv, ok := fields["tool"]; ok {
			var nodes []*yaml.Node
			if r.Tools, nodes, err = p.strings(fv.val, path+".tool"); err != nil {
				return err
			}
			for j, t := range r.Tools {
				if t == "" || strings.ContainsFunc(t, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
					return p.errAt(nodes[j], path+".tool", "%q: a tool name must be non-empty, without spaces or control characters", t)
				}
			}
		}
		if fv, ok := fields["session_prefix"]; ok {
			if r.SessionPrefix, err = p.str(fv.val, path+".session_prefix"); err != nil {
				return err
			}
			if r.SessionPrefix == "" {
				return p.errAt(fv.val, path+".session_prefix", "must not be empty; leave it out to match every session")
			}
		}
		if fv, ok := fields["risk"]; ok {
			var nodes []*yaml.Node
			if r.Risks, nodes, err = p.strings(fv.val, path+".risk"); err != nil {
				return err
			}
			for j, k := range r.Risks {
				if !slices.Contains(risks, k) {
					return p.errAt(nodes[j], path+".risk", "%q is not a risk; allowed: low, medium, high, irreversible", k)
				}
			}
		}
		rv, ok := fields["route"]
		if !ok {
			return p.errAt(rn, path+".route", "required: the name of the route this rule chooses")
		}
		if r.Route, err = p.str(rv.val, path+".route"); err != nil {
			return err
		}
		if _, ok := f.Routes[r.Route]; !ok {
			return p.errAt(rv.val, path+".route", "route %q is not defined; defined: %s", r.Route, strings.Join(f.Names, ", "))
		}
		if catchAll >= 0 {
			return p.errAt(rn, path, "this rule can never match: rules[%d] (line %d) matches every request", catchAll, f.Rules[catchAll].Line)
		}
		if len(r.Tools) == 0 && r.SessionPrefix == "" && len(r.Risks) == 0 {
			catchAll = i
		}
		f.Rules = append(f.Rules, r)
	}
	return nil
}

// str reads a string scalar.
func (p *parser) str(n *yaml.Node, path string) (string, error) {
	if err := p.plain(n, path); err != nil {
		return "", err
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", p.errAt(n, path, "expected a string, got %s", kind(n))
	}
	return n.Value, nil
}

// strings reads a string or a list of strings.
func (p *parser) strings(n *yaml.Node, path string) ([]string, []*yaml.Node, error) {
	if err := p.plain(n, path); err != nil {
		return nil, nil, err
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	out := make([]string, len(items))
	for i, it := range items {
		at := path
		if n.Kind == yaml.SequenceNode {
			at = fmt.Sprintf("%s[%d]", path, i)
		}
		s, err := p.str(it, at)
		if err != nil {
			return nil, nil, err
		}
		out[i] = s
	}
	return out, items, nil
}

func (p *parser) integer(n *yaml.Node, path string) (int, error) {
	if err := p.plain(n, path); err != nil {
		return 0, err
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, p.errAt(n, path, "expected a whole number, got %s", kind(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 32)
	if err != nil {
		return 0, p.errAt(n, path, "%s is not a whole number this field takes", n.Value)
	}
	return int(v), nil
}

func (p *parser) boolean(n *yaml.Node, path string) (bool, error) {
	if err := p.plain(n, path); err != nil {
		return false, err
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, p.errAt(n, path, "expected true or false, got %s", kind(n))
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", nil
}

func (p *parser) duration(n *yaml.Node, path string) (route.Duration, error) {
	if err := p.plain(n, path); err != nil {
		return 0, err
	}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		return 0, p.errAt(n, path, "%s has no unit; write a duration such as %ss or 2m", n.Value, n.Value)
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return 0, p.errAt(n, path, "expected a duration such as 90s, 2m or 1h30m, got %s", kind(n))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		return 0, p.errAt(n, path, "%q is not a duration; write it as 90s, 2m or 1h30m", n.Value)
	}
	return route.Duration(d), nil
}

// kind says what a node is, for an error.
func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!null":
		return "nothing (null)"
	case "!!bool":
		return n.Value + " (a boolean)"
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!str":
		return fmt.Sprintf("the string %q", cut(n.Value))
	}
	return "a " + strings.TrimPrefix(n.Tag, "!!")
}

func cut(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

func defined(groups map[string][]string) string {
	if len(groups) == 0 {
		return " none is"
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	return " defined: " + strings.Join(names, ", ")
}

func isName(s string) bool {
	return route.CheckPerson("group:"+s) == nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func pathOr(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// Select chooses the route of the first rule that matches req; ok is
// false when none does (the ask then goes as without routes). It is a
// route.Selector.
//
// The route returned is the snapshot an ask keeps: a copy, with every
// group a step reaches ("group:sre") expanded into its members, each
// person once in the step's order, so that the ask reaches the same people
// whatever the file says later.
func (f *File) Select(req route.Request) (r route.Route, ok bool) {
	for _, rule := range f.Rules {
		if rule.Matches(req) {
			return f.expand(f.Routes[rule.Route]), true
		}
	}
	return route.Route{}, false
}

// expand returns a copy of r whose steps name people only: each group
// replaced by its members.
func (f *File) expand(r route.Route) route.Route {
	steps := make([]route.Step, len(r.Steps))
	for i, s := range r.Steps {
		s.Responders = slices.Clone(s.Responders)
		var people []string
		for _, p := range s.People {
			who := []string{p}
			if g, ok := strings.CutPrefix(p, "group:"); ok {
				who = f.Groups[g]
			}
			for _, m := range who {
				if !slices.Contains(people, m) {
					people = append(people, m)
				}
			}
		}
		s.People = people
		steps[i] = s
	}
	r.Steps = steps
	if r.Quorum != nil {
		q := *r.Quorum
		q.Eligible = slices.Clone(q.Eligible)
		for i := range q.Eligible {
			q.Eligible[i].Members = slices.Clone(q.Eligible[i].Members)
		}
		r.Quorum = &q
	}
	return r
}

// Matches reports whether every condition of the rule holds for req.
func (r Rule) Matches(req route.Request) bool {
	return (len(r.Tools) == 0 || slices.Contains(r.Tools, req.Tool)) &&
		strings.HasPrefix(req.Session, r.SessionPrefix) &&
		(len(r.Risks) == 0 || slices.Contains(r.Risks, req.Risk))
}

// Describe says the file in words, one line for each group, route and
// rule, in the file's order.
func (f *File) Describe() string {
	var b strings.Builder
	names := make([]string, 0, len(f.Groups))
	for g := range f.Groups {
		names = append(names, g)
	}
	slices.Sort(names)
	for _, g := range names {
		fmt.Fprintf(&b, "group %s: %s\n", g, strings.Join(f.Groups[g], ", "))
	}
	for _, name := range f.Names {
		b.WriteString(f.Routes[name].Describe())
		b.WriteByte('\n')
	}
	for i, r := range f.Rules {
		fmt.Fprintf(&b, "rule %d (line %d): %s -> route %s\n", i+1, r.Line, r.describe(), r.Route)
	}
	if len(f.Rules) == 0 {
		b.WriteString("no rules: no request is routed unless the program chooses a route\n")
	} else if last := f.Rules[len(f.Rules)-1]; len(last.Tools) > 0 || last.SessionPrefix != "" || len(last.Risks) > 0 {
		b.WriteString("any other request: no route (asked as without routes)\n")
	}
	return b.String()
}

func (r Rule) describe() string {
	var conds []string
	if len(r.Tools) > 0 {
		conds = append(conds, "tool "+strings.Join(r.Tools, " or "))
	}
	if r.SessionPrefix != "" {
		conds = append(conds, fmt.Sprintf("a session starting with %q", r.SessionPrefix))
	}
	if len(r.Risks) > 0 {
		conds = append(conds, "risk "+strings.Join(r.Risks, " or "))
	}
	if len(conds) == 0 {
		return "every request"
	}
	return strings.Join(conds, ", ")
}
