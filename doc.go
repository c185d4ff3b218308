/*
Package askuser lets an AI agent stop guessing and ask a person.

The agent calls one tool with one to four structured questions: choices with
a recommended option, free text, or a credential. askuser checks the call,
puts it in front of a person through a pluggable [Responder] (a terminal, a
web page, an MCP client, a chat), waits until a deadline, and returns a
result that says who decided: the person ("user"), the deadline ("timeout",
which applies the recommended options), or nobody ("unattended").
Credentials never reach the model: they are sealed, and the model gets a
reference such as "session:GITHUB_TOKEN".

# Overview

An [Orchestrator] is the front end. Give it a responder and hand it each
tool call as a [Request]:

	o := &askuser.Orchestrator{Responder: stdio.New(os.Stdin, os.Stderr, nil)}
	out, err := o.Handle(ctx, askuser.Request{
		Session:    sessionID,   // owns the ask and its secrets
		ToolCallID: toolCall.ID, // a finalized tool call is never asked twice
		Arguments:  toolCall.Arguments,
	})

An invalid call returns a *[dialect.CallError] and nobody is asked: its Message (or
its Result, where the contract has one) goes back to the model, which can fix
its call from it. When ctx ends before the ask does, Handle returns ctx's
error and no outcome. Otherwise the [Outcome] is final: [Outcome.Result] is
what the model reads, and the rest — Status, AnsweredBy, Reason, the Answers
with their provenance, AskID — is for the embedding program.

A Request carries either the call a model sent, in Arguments, in the
contract its Dialect names (nil: ask_user, or request_approval for an
approval), or a [Form] built in Go, in
Form, which [Normalize] checks and normalizes instead. [Decode] checks and
normalizes a model's call without asking anyone.

The zero Orchestrator works: with no responder every ask is unattended (for
ask_user, choice questions get their declared defaults at once and a call
with a text or secret question is declined), a call waits at most 300
seconds, calls are capped at 64 KiB, problems are logged to slog.Default,
and secrets go to an in-memory store.

The orchestrator keeps the contract whatever its responder does: it
validates and normalizes the call, stamps the deadlines, checks every
answer, finalizes at the first ending or at the deadline (the deadline wins
a tie, and does not wait for a responder that ignores it), applies the
outcome rules (declared defaults, declines, answers kept), seals secrets,
records the ask in the journal, and contains responder errors and panics,
which reach the embedding program (the log and [Outcome.Fault]) and never
the model as an answer.

A tool call is asked once. A request whose ToolCallID was already finalized
in its session gets the same outcome again, marked [Outcome.Replayed],
without anyone being asked (the arguments are not looked at): from memory,
for the last [Orchestrator.ReplayLimit] tool calls (10,000 by default), or
across restarts with a journal that implements [store.ResultFinder]. A
request for a tool call still pending joins it.

[Orchestrator.Supersede] ends a session's pending asks when the person writes
a chat message instead; [Orchestrator.Pending] lists them.

# Pending asks that outlive a process

By default pending asks live in the orchestrator's memory. Set
[Orchestrator.Asks] to a shared [store.Pending] and each becomes data that
every orchestrator on the store serves: a person's answer on one replica
reaches the caller waiting on another, a retried tool call joins or replays
wherever it lands, and the caller going away, a crash or [Orchestrator.Close]
leave the ask pending — only the person, a supersede or the deadline end it.
Every change is compare-and-set on a revision, so the first ending wins
across processes and the deadline still wins a tie. Deadlines are the
store's own timers: an expired ask is ended by exactly one orchestrator, and
finalized and journaled even when the one that asked is gone. A replica
holds in memory only the asks it serves (a caller waiting, its responder
showing one, a session a [SessionFollower] follows) and reads the rest on
demand, so it starts at once whatever the store holds. [store.Memory] shares
asks within one process; package natsstore keeps them in NATS JetStream, with the journal,
the sealed secrets and the consents a fleet shares too. [Orchestrator.Begin]
starts an ask without waiting and [Orchestrator.Await] comes back for it.
See docs/fleet.md.

# Responders

A [Responder] has one method. Respond gets a context that ends at the
form's deadline and an [*Ask]: the normalized form ([Ask.Form]), its
correlation data, and the handle to report through. It reports each answer
with [Ask.Report] as the person gives it — every answer is checked on
arrival (see responder.CheckAnswer), and a refused one returns an
*[AnswerError] whose Reason a person can read, so the responder can ask
again — and then ends the ask once: [Ask.Submit], [Ask.Decline],
[Ask.Cancel] or [Ask.Unreachable]. Once ctx is done it returns promptly;
every report after the end returns [ErrAskEnded]. The Responder interface's
comment is the whole contract. Validation, deadlines, defaults, sealing,
provenance and the journal are the orchestrator's, so a responder cannot get
them wrong.

[ResponderFunc] adapts a function. [FirstReachable] hands each ask to the
first of several responders that can reach the person, and reports the ask
unattended when none can.

A responder may implement optional interfaces, which the orchestrator finds
by type assertion on the responder and then down the chain of
an Unwrap() Responder method, so that wrapping hides no capability:

  - [Presence]: whether anybody is there for a session; when nobody is, the
    unattended rules apply at once and Respond is not called.
  - [SecretCapable]: whether it can collect a credential safely; when it
    cannot, a form with a secret or sensitive question is unattended.
  - [Named]: its name in the journal and on [Outcome.Responder].
  - [EventDriven]: a responder driven by events (a web page's requests, a
    client's messages) is told about each ask through Asked, before the
    caller waits, instead of being called per ask in a goroutine of its own. It
    reports and ends the ask through the *Ask from its events, under the
    same rules, and learns of the final outcome through [Ask.AfterEnd]. A
    pending ask then holds no goroutine but its caller's. [FirstReachable]
    calls Respond, so such a responder keeps a working one.

Handle returns as soon as an outcome is final, which may be before the
responder's Respond has returned. [Orchestrator.WaitResponders] waits for every
Respond the orchestrator started — and for every Asked call and every
AfterEnd function of a final ask — before a test reads a responder's state
or a program shuts down.

The responders that ship are responders/auto (nobody is there),
responders/stdio (a line-based terminal) and responders/web (a web card
and a JSON API, as an http.Handler). responder/scripted replays answers and
endings for tests, and responder/respondertest is the conformance suite a
responder author runs against their own responder.

# Dialects

Every tool contract askuser speaks is a [Dialect]: a decoder from the
arguments a model sends to a normalized [Form], and an encoder from an
[Outcome] to the result the model reads. ask_user, askuser's own contract,
is the default, and request_approval the default for an approval's Form;
a program that imports only this package speaks both with no setup. Where
a dialect is named, they are askusertool.Dialect() and
approvaltool.Dialect(), and the pi-ask and pi contracts are
piask.Dialect() and pi.Dialect(), in packages dialect/askusertool,
dialect/approvaltool, dialect/piask and dialect/pi. The orchestrator
and the responders are the same for every dialect, and so are deadlines,
answer checks, provenance, sealing, replay and the journal: a new contract
is a new Dialect, never a change to the orchestrator or a responder.

A dialect keeps what its encoder needs (which of its call shapes a call came
in, say) in [Form.DialectData], which the orchestrator, the responders and
the journal never read. What its Encode returns besides the result travels
in the ask's journal record as store.Record.ContractRecord.

The model's own rules hold for every dialect's output: the Form a Dialect
decodes is checked as [Normalize] checks one built in Go before any
responder sees it. A Form that breaks them is a bug in the dialect; it is
logged, and the caller gets a *[dialect.CallError] saying so, never an ask.

Each contract has a page in the module's docs directory, with everything a
model may send and read back: docs/ask_user.md, docs/pi-ask.md and
docs/pi.md, indexed by docs/README.md. Packages dialect/askuserwire and
dialect/approvalwire hold the two wire formats (the ask_user one with the tool's description and the guidance text for the
model's system prompt); package schema renders the tool definition for each
model API.

# Secrets

A question is sealed (responder.Sealed) when it is a secret question
([KindSecret]) or marked Sensitive. A responder hands its answer over as a
secret.Value in [Answer.Secret]; a secret.Value never prints, marshals or
logs its content. When the orchestrator accepts the answer, it seals the
value at once, wipes the bytes and keeps the sealed value aside (staged);
only when the ask's final result hands out the reference "session:NAME"
([FinalAnswer.SecretRef]) does the value become the record under the
session and responder.SealName, replacing any earlier one in one step. A
value the final result does not carry (the person declined the call, the
caller went away, a later report replaced it) is discarded, and the record
an earlier result points to stays as it was.

The store is [Orchestrator.Secrets], a [secretstore.Store]: nil means a
secretstore.Memory with a key made up for the life of the process, and
secretstore.Dir keeps sealed records across restarts. Both stage values
themselves; any other Store is given the same steps by secretstore.Staging.
A tool turns a reference back into the value through the same store
with [secretstore.ResolveFor] (or
[secretstore.Resolve], the session in the context), only for the session
that owns it. A secret question is never resolved by default: nothing is
filled in for it at the deadline or with nobody to ask, and an ask_user call
that holds one is then declined.

# Approvals

Permission to act ("May I delete this bucket?") is not a question with a
recommended answer: it must never resolve by itself. An approval is a form
of its own, built by approvaltool.Form from an [approval.Request] (the
action, the reason, the [approval.Risk], optional details) and asked through
the same orchestrator, responders and journal — or, from a model, through
the request_approval tool. Its result says approved, denied or unresolved;
approvaltool.VerdictOf is the one place that decides which, and the rules
are short:

  - Only a person approves: a submitted approve, or a decision the person
    made "for this session" earlier, for the same action in the same
    session ([store.Consents]; remembered decisions are reported as
    "remembered"). [Orchestrator.ApprovalPolicy], where the embedding
    program sets one, may approve or deny without asking; it is reported
    as "policy".
  - The deadline, nobody to ask, a responder fault or panic, a supersede,
    a dismissal and the caller going away all leave the approval
    unresolved, with the reason, and no answer a reader could take for a
    decision. A person's Decline is a denial.
  - Only a responder that implements [ApprovalCapable] is given an
    approval; for any other nobody can be asked, so a responder written for
    questions can never approve by picking an option.
  - The result carries the approval's digest ([approval.Digest] of the
    action and its details). The embedding program computes the digest of
    what it is about to run and compares: a changed action is a new
    request.

[Orchestrator.Consents] keeps remembered decisions (nil: in memory);
journal.Consents keeps them in a file, across restarts and processes. The
embedding program lists and revokes them through the store it set there.

# Journal

With [Orchestrator.Journal] set, the orchestrator appends one record per
finalized ask (a [store.Record]: its ids and its JSON, which package journal
decodes as a journal.Record), after the outcome is final; never for a
provisional answer or a replayed tool call. In memory it is written before
Handle returns; with a shared store the final result stored for the ask is
the record's outbox, so Handle returns once that is stored and the record
follows. The record
holds the normalized questions, how the ask ended, every answer with its
provenance, the result the model was given and the contract's own record,
and no secret value. A failed Append is logged (and, in memory, reported on
[Outcome.JournalErr]) and written again until the journal takes it, never
dropped in silence. A journal that also implements [store.ResultFinder] lets
the orchestrator replay a finalized tool call across restarts.

Package journal provides one: a file of JSON lines, one per ask, written
durably with group commit, rotated by size and read back with journal.Read.
The command's "askuser journal FILE" lists it.

# Security

Nothing in an ask_user result grants permission. Choice questions resolve
by themselves when the deadline passes or nobody is there, so a
destructive, irreversible or outward-facing action needs an approval, which
does not (see Approvals); the ask_user tool description and guidance tell
the model so, and every result says who decided.

Free text and notes that look like a credential are refused before they
can reach the model; the reason names the kind of credential and never
echoes it. No library type renders a secret value in fmt, JSON or log
output, no error carries one, and no answer is logged. A responder's fault
reaches the embedding program only. Ask ids are 128 random bits.

# Validation

An ask_user call is read once, front to back, with go-json-experiment's
jsontext (github.com/go-json-experiment/json/jsontext), and checked in a
fixed order: the size cap, then the shape (syntax, types, unknown and
duplicate fields), then the contract's rules. The first problem is
reported, in one exact message written for the model and, for a shape
problem, the JSON path it is at ("questions[1].kind").

askuser deliberately does not use a struct-tag validator such as
github.com/go-playground/validator/v10, which its first design named: its
tag errors come after decoding, per Go struct field, in the validator's
order and words, and cannot give that ordered pass with exact, model-facing
messages and JSON paths. The declarative bounds that remain (four
questions, six options, a 16-character header, a 255-character secret
name) are few, and live as constants in package dialect/askuserwire, next
to the rules whose messages state them.

# Compatibility

The model underneath ([Form], [Question], [Option], [Answer], [Outcome]) is
a superset of every contract askuser speaks. What a model sends and reads —
each contract's calls, its validation messages and its results — is part of
that contract, documented on its page in docs/, and changes only with it.
Journal records carry a format version (journal.RecordVersion), and package
journal reads the older one too.

The module needs Go 1.26.7 or newer. Beyond the standard library, the root
package's import graph holds only golang.org/x/crypto (with the
golang.org/x/sys it uses), for sealing, and
github.com/go-json-experiment/json, for reading and writing calls. A
package that needs a heavy dependency (a browser driver, an SDK, a
terminal UI framework) keeps it out of that graph, so a program that
imports askuser and one responder builds none of it.
*/
package askuser
