/*
Package askuser lets an AI agent stop guessing and ask a person.

The agent calls one tool, ask_user, with one to four structured questions:
choices with a recommended option, free text, or a credential. askuser
validates the call, shows it to a person through a pluggable [Responder]
(a terminal, a web page, an MCP client, a chat), waits with a deadline, and
returns a result that says who decided: the person ("user"), the deadline
("timeout", which applies the recommended options), or nobody
("unattended"). Credentials never reach the model: they are sealed and the
model gets a reference such as "session:GITHUB_TOKEN".

# Overview

An [Orchestrator] is the front end. Give it a responder and hand it each
tool call:

	o := &askuser.Orchestrator{Responder: stdio.New(os.Stdin, os.Stderr, nil)}
	out, err := o.Handle(ctx, askuser.Request{Session: sess, ToolCallID: id, Arguments: args})
	// err is a *CallError for an invalid call (send its message back to
	// the model), or ctx's error when the caller stopped; otherwise
	// out.Result is the JSON the model reads.

The zero Orchestrator works: with no responder every ask is unattended
(choice questions get their declared defaults at once; text and secret
questions are declined), the ceiling on a call's wait is 300 seconds, calls
are capped at 64 KiB, and secrets go to an in-memory store.

The orchestrator enforces the whole contract whatever the responder does:
the ordered validation of SPEC §1.1 (with the exact messages a model can
fix its call from), normalization, the deadline (the responder's context
ends at the call's expires_at, and the orchestrator does not wait for a
responder that ignores it), the checks on every answer, the outcome rules
(declared defaults, declines, answers kept), replay of a finalized tool
call, and containment of responder errors and panics, which go to the
embedding program (the log and [Outcome].Fault) and never to the model as
an answer.

# Responders

A [Responder] has one method, Respond, which gets the normalized call and a
handle, [*Ask], to report through: [Ask.Report] as the person answers (each
answer is checked on arrival with [Form.CheckAnswer]; a refused one comes
back as an [*AnswerError] a person can read), then one ending —
[Ask.Submit], [Ask.Decline], [Ask.Cancel] or [Ask.Unreachable]. Reports after
the end return [ErrClosed]. [ResponderFunc] adapts a function; [FirstReachable]
hands each ask to the first responder that can reach the person.

A responder may implement optional interfaces, detected by type assertion:

  - [Presence]: whether anybody is there for a session; when not, the
    unattended rules apply at once and Respond is not called.
  - [SecretCapable]: whether it can collect a credential safely; when not,
    a call with a secret question is unattended.
  - [Named]: its name in the journal and the outcome.
  - [Wrapper]: what it wraps, so that wrapping hides no capability.

The responders that ship are responders/auto (nobody is there) and
responders/stdio (a line-based terminal). responder/scripted replays answers
and endings for tests, and responder/respondertest is the conformance suite
a responder author runs against their own responder.

# Secrets

A secret question's answer, and a sensitive question's, is handed over as a
secret.Value, which never prints, marshals or logs its content. The
orchestrator seals it into its [SecretStore] under (session, secret name)
when it accepts it, wipes the bytes, and puts only the reference
"session:NAME" in the result. Tools resolve the reference through the
store, for the session that owns it. A secret question is never resolved by
default: with nobody to ask, it is declined.

# Security

Nothing in a result grants permission: choice questions auto-resolve, so a
destructive, irreversible or outward-facing action needs an approval that
does not. The tool description ([ToolDescription]) and the system-prompt
guidance ([Guidance]) say so. Free text and notes that look like a
credential are refused before they can reach the model. No library type
renders a secret value in fmt, JSON or log output, and no error carries one.

# Compatibility

The model underneath ([Form], [Question], [Option], [Answer], [Outcome]) is a
superset of every tool contract askuser speaks; the ask_user JSON is one
encoding of it, chosen by a [Dialect] ([AskUser] is the default). A new
contract is a new Dialect, never a change to the orchestrator or a
responder. The JSON of results and validation messages is part of the
contract and changes only with it.
*/
package askuser
