package approvalwire

// Description is the request_approval tool's description, for the tool
// definition a model is given.
const Description = `Ask the user for permission before an action that is destructive, irreversible or outward-facing (deleting data, deploying, sending a message on the user's behalf, spending money, changing access), and wait for their decision. Say what you will do in "action" (one line, at most 200 characters), why in "reason" (at most 500), rate the "risk" ("low", "medium", "high" or "irreversible"), and put what the person should inspect (the exact command, a diff, the list of resources) in "details" (at most 8 KiB).

The result's "status" is "approved", "denied" or "unresolved". Only "approved" permits the action, and only exactly as requested: "action_digest" binds the decision to action and details, so a changed action needs a new request. "decided_by" says who decided: "user", "remembered" (the user's decision for this same action earlier in the session) or "policy" (the program's rule). "denied" is the user's explicit no: do not perform the action or work around it. "unresolved" means nobody decided ("ended" says why: "deadline", "unattended", "dismissed", "superseded" or "fault"): you have no permission, and must not act.

This tool never resolves by itself: no timeout or default ever approves. For preferences and decisions ("Which environment?") use ask_user instead; for permission to act ("May I delete this bucket?") use this tool.`

// Guidance is a short text for the model's system prompt that ships with the
// tool: when to ask permission, how, and how to read the result.
const Guidance = `Asking permission (request_approval):
- Before an action that is destructive, irreversible or outward-facing, call request_approval and wait for the result; never ask permission through ask_user, whose answers can come from a timeout or a default.
- Use ask_user for preferences and decisions ("Which environment?"); use request_approval for permission to act ("May I delete this bucket?").
- Describe exactly what you will do: a one-line action, the reason, an honest risk, and the exact command, diff or resource list in details.
- Act only on "status": "approved", and only on the action exactly as approved; if the action changes, request approval again.
- "denied" is the user's decision: do not act, do not work around it, and do not ask again unless the user brings it up.
- "unresolved" is never a yes: you have no permission. Do not act; tell the user what you did not do and why.`

// The result's message, by status and who decided or why nobody did: what
// the result means for the model, in words.
const (
	msgApprovedUser        = "The user approved this action. You may perform it once, exactly as requested; if the action changes, request approval again."
	msgApprovedUserSession = "The user approved this action for the rest of the session. You may perform it, exactly as requested; the same action is approved again without asking, and a changed action needs a new request."
	msgApprovedRemembered  = "Approved: the user approved this same action earlier in this session, for the session. You may perform it, exactly as requested."
	msgApprovedPolicy      = "Approved by the program's policy, without asking the user. You may perform this action, exactly as requested."
	msgDeniedUser          = "The user denied this action. You have no permission to perform it: do not perform it, and do not try to achieve the same effect another way."
	msgDeniedUserSession   = "The user denied this action for the rest of the session. You have no permission to perform it: do not perform it, do not try to achieve the same effect another way, and do not request it again in this session."
	msgDeniedRemembered    = "Denied: the user denied this same action earlier in this session, for the session. You have no permission to perform it: do not perform it."
	msgDeniedPolicy        = "Denied by the program's policy. You have no permission to perform this action: do not perform it."
	msgUnresolved          = "Nobody approved this action: %s. You have no permission to perform it, and must not act. Tell the user what you did not do; ask again only if it is still needed."
	// msgQuorum follows the message of a request several people decide.
	msgQuorum = " Approvals: %d of the %d this request needs."
)

// why says, by ended, why nobody decided.
var why = map[string]string{
	EndedDeadline:   "the wait ended before anyone decided",
	EndedUnattended: "nobody could be asked",
	EndedDismissed:  "the user dismissed the request without deciding",
	EndedSuperseded: "the user wrote a message instead of deciding",
	EndedFault:      "the request could not be shown or answered",
}
