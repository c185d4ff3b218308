// Package mcpresponder is askuser's MCP responder: it asks through the MCP
// client of the tool call in progress (Claude Desktop, Claude Code, VS
// Code, …) by elicitation, and keeps askuser's contract around it: the
// reply is checked against what was asked, deadlines and defaults apply,
// provenance is kept, secrets never go into a form, and every ask is
// journaled. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and imported as
//
//	import mcpresponder "github.com/askuser-go/askuser/responders/mcp"
//
// # Overview
//
// A Tool serves an askuser contract (ask_user, a pi contract, or
// request_approval: see Approvals) as an MCP tool; a Responder, the
// orchestrator's, asks its calls:
//
//	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil)}
//	tool := &mcpresponder.Tool{Orchestrator: o}
//	defer tool.Close()
//	server := mcp.NewServer(&mcp.Implementation{Name: "askuser"}, nil)
//	if err := mcpresponder.AddTool(server, tool); err != nil { … }
//	err := server.Run(ctx, &mcp.StdioTransport{})
//
// The Responder finds the tool call on its context: the orchestrator hands
// Handle's context down to Respond, and Tool puts the call there first.
// A program with its own tool handler does the same with WithCall, for
// clients before 2026-07-28 (see WithCall).
//
// # Protocol generations
//
// Before 2026-07-28 (2025-06-18, 2025-11-25) a server may send the client
// a request of its own while a tool call is open: the Responder sends
// elicitation/create from within the call, which stays open until the ask
// ends, with progress notifications meanwhile when the client gave a
// progress token.
//
// From 2026-07-28 on a server sends nothing of its own accord (the multi
// round-trip pattern): the tool call returns its input request — the form
// — with an opaque requestState, and the client retries the call with the
// reply. The ask stays pending on the server between the two, as any other
// ask: it is finalized at its deadline, and journaled, if no retry comes.
// The requestState is the pending ask sealed with the key ring's secretbox
// (see Tool.Keys): askuser's tool-call id for it and when it was asked,
// bound to the session, the principal and the call (its tool, and a hash
// of its arguments), for one form; it is good until the ask's deadline
// plus StateGrace, and once. An ask shows at most MaxRounds forms; past
// them the retry gets an error result that says so at once, and the
// deadline ends the ask. A retry after the deadline gets the ask's result
// (timed_out, with the defaults).
//
// On a shared pending-ask store (askuser.Orchestrator.Asks, such as the
// natsstore package's), servers that share it and the key ring serve one
// ask between them, behind a load balancer: a retry resumes the store's
// ask on whichever server it reaches (askuser.Orchestrator.Resume), each
// form's round is claimed in the store with a create-only write, so that
// a requestState is taken once across every server, the ask has one
// journal record, and the store's timer ends it at its deadline even when
// the server that asked is gone. Without one, "once" holds in the process,
// and a retry that reaches another server asks again there, under the
// same tool-call id and with the deadline it had (askuser.Request.AskedAt).
// A requestState that is altered,
// expired, used before, or of another session, principal or call is
// refused, as a tool result marked isError that says which (ErrStateDamaged
// and the others).
//
// # Tasks and the bridge deadline
//
// A client that declares the MCP Tasks extension (TasksExtension) gets a
// task for its call instead, served by Tasks in front of the SDK (which
// does not implement the extension): the call's ask is begun and the task
// recorded before the task goes out, tasks/get shows the form as its input
// request, tasks/update carries the person's reply, tasks/cancel withdraws
// the ask. A task is a pending ask, so with a shared store it is served by
// every server on it (see Tasks).
//
// Before 2026-07-28 a call stays open while the person answers, and some
// clients give it up. Tool.Bridge hands an ask the person has not answered
// in the client within Bridge.After on to another responder (the card),
// and the call returns where it went (see Bridge).
//
// # Session and tool-call id
//
// MCP has no tool-call id, and from 2026-07-28 no session. The session of
// an ask (which owns its secrets) is Tool.Session's, by default the MCP
// session's id where the transport has one (streamable HTTP before
// 2026-07-28), else "mcp"; askuser's command uses its --session. The
// tool-call id is made up by the Tool for each call ("mcp-" and 128
// random bits), since the SDK does not hand a tool handler the JSON-RPC
// request id; a multi round-trip ask keeps its id in its requestState, so
// that its retries, on any server, are the same tool call to the
// orchestrator (and a retry after the end replays its result).
//
// # The form
//
// An ask is one form elicitation, a flat object with one property per
// question (two for a choice that allows free text), in question order:
//   - a single choice is a string whose options are titled (oneOf, each
//     option a const with its label, and its description, as title);
//   - a multi-select is an array of such options (items.anyOf);
//   - the recommended options (the declared defaults) are the default;
//   - allow_other adds an optional string, "Something else" (or the
//     question's other label);
//   - a text question is a string, its prefill the default;
//   - the header is the title of the question's property and the question
//     its description; the agent's human intent heads the message, with
//     how long the person has and what the deadline then does;
//   - a question that must be answered, and can be only through its one
//     property, is required.
//
// Before 2025-11-25, which has neither titled options nor arrays, a
// single choice is an enum with enumNames, and a multi-select one yes/no
// property per option.
//
// The client's reply is untrusted. Accept with content that does not match
// what was asked — a value not offered, a wrong type, a field not asked
// for, a required question left empty, free text that looks like a
// credential (see responder.CheckAnswer) — is no answer: nothing of it
// is reported, and the person is asked again with what was wrong, at most
// twice; after the third such reply the ask waits for its deadline, which
// applies the defaults. Accept with matching content reports the answers
// and submits (answered by the user); decline declines; cancel dismisses
// (cancelled). A failed elicitation (the client answers with an error) is
// no person: the ask is unattended. None of these is ever a JSON-RPC error
// to the model: the model reads the contract's result.
//
// # Approvals
//
// The Responder takes approvals (askuser.ApprovalCapable): a Tool whose
// Dialect is approvaltool.Dialect() serves request_approval, beside
// ask_user on the same server and orchestrator. An approval is one form
// elicitation, on every revision. Its message is the approval in words:
// the agent's intent, the risk ("!!! Risk: IRREVERSIBLE: this cannot be
// undone !!!" for the worst), the action, the reason and the details, each
// line of them marked, all made inert; then how long the person has, and
// that the deadline decides nothing. Its form:
//   - approve, "Approve this action": a required yes/no, with no default,
//     so that neither a client nor the SDK can fill it in;
//   - confirm, "Type approve to confirm", only for an irreversible action:
//     a required text, which must be "approve" (case and surrounding spaces
//     aside) for a yes to count;
//   - remember, "For the rest of this session": an optional yes/no (no by
//     default) that makes the decision hold for the same action in the
//     session;
//   - note, "Note for your agent": optional text passed on with the
//     decision.
//
// Accept with a yes approves (approve, or approve_session); accept with a
// no denies (deny, or deny_session); decline denies; cancel decides
// nothing (unresolved, dismissed). A reply that does not match — a field
// not asked for, a value of the wrong type, no yes/no, a yes to an
// irreversible action without "approve" typed, a note that looks like a
// credential — is no decision, and is handled as for questions: the person
// is asked again, at most twice, then the approval waits for its
// deadline, which leaves it unresolved. A client without elicitation, or
// whose elicitation fails, is nobody to ask: unresolved, at once. Nothing
// but a person's matching yes approves. The decision's principal is the
// verified bearer token's user, where the call carries one.
//
// The MCP client stands for the person: it shows the form to its user,
// not to the model. A client that answers elicitations by itself (or
// through its model) could approve; do not serve request_approval to one.
// A client speaks for its person only within its own MCP session: a server
// with several clients gives each its own session for request_approval
// (Tool.Session), since a decision remembered "for this session" decides
// for every call of the session; and over HTTP, where a bearer token says
// only that the caller may ask, it serves request_approval only to callers
// that prove who may approve (askuser's command: --approvers).
//
// # Transports
//
// The SDK's stdio transport ends the connection, and every pending ask
// with it, on a frame it cannot read (nested too deep, too long, not
// JSON). IOTransport answers such a frame with a JSON-RPC error and reads
// on; RepairFrame, which it applies to every frame, keeps a 2026-07-28
// retry whose reply is no reply at all from being a JSON-RPC error.
//
// # Secrets
//
// A form must never carry a secret (the MCP specification forbids it), so
// an ask with a secret or sensitive question goes to a web card instead
// (Options.Card and Options.CardURL): a client that supports URL mode is
// sent a link to the card, which carries no credential (the specification
// forbids pre-authenticated links). The person is admitted by the card's
// own Authorize, or, for local use, by a short code the client shows
// beside the link and the person types on the card (Codes). Without a
// card, or with a client that cannot open a link, the ask is unattended,
// which declines it: the secret is never asked.
//
// # Clients without elicitation
//
// A client that did not declare the elicitation capability cannot be
// asked: the Responder reports nobody reachable (Reachable), and the
// orchestrator applies the unattended rules at once (ask_user: the
// recommended options, answered by unattended, or a decline). A program
// that also serves a web card can put it behind the Responder with
// askuser.FirstReachable(responder, card), so that such asks wait on the
// card until it is answered or the deadline passes.
package mcpresponder
