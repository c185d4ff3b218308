package wire

// The request_approval contract's JSON shapes, as docs/request_approval.md
// describes them: the call a model sends to ask permission to act, and the
// result it reads. Package dialect/approvalwire decodes calls itself and
// encodes results from ApprovalResult; the schema package reflects on both
// for the tool definition.

// ApprovalCall is the request_approval tool's arguments.
type ApprovalCall struct {
	Action         string  `json:"action" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"What will be done, in one line the person can judge on its own: non-blank, at most 200 characters (\"Delete the S3 bucket logs-2023 and all 1,204 objects in it\"). Put the exact command, diff or resource list in details."`
	Reason         string  `json:"reason" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"Why the action is needed: non-blank, at most 500 characters."`
	Risk           string  `json:"risk" jsonschema:"enum=low,enum=medium,enum=high,enum=irreversible" jsonschema_description:"How much harm the action can do: low, medium, high, or irreversible (it cannot be undone; the person must confirm deliberately). Rate it honestly."`
	Details        *string `json:"details,omitempty" jsonschema:"maxLength=8192" jsonschema_description:"Optional: what the person should inspect before deciding, shown on request: the exact command, a diff, the list of resources. At most 8192 bytes (8 KiB) of UTF-8."`
	TimeoutSeconds *int    `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=300" jsonschema_description:"How long to wait for a decision, in whole seconds. Absent: the longest wait allowed. You may shorten the wait, never extend it. Nobody deciding in time leaves the request unresolved, never approved."`
	HumanIntent    *string `json:"human_intent,omitempty" jsonschema:"maxLength=120" jsonschema_description:"Optional: one line, at most 120 characters, saying what you are doing (\"Cleaning up last year's logs\"); shown to the person above the request."`
}

// ApprovalResult is what the model reads back.
type ApprovalResult struct {
	Status         string          `json:"status" jsonschema:"enum=approved,enum=denied,enum=unresolved" jsonschema_description:"approved: you may perform the action, exactly as requested. denied: the person said no; do not perform it. unresolved: nobody decided (see ended); you have no permission and must not act."`
	DecidedBy      *string         `json:"decided_by" jsonschema:"enum=user,enum=remembered,enum=policy,nullable" jsonschema_description:"Who decided: user (a person, now), remembered (the person's decision for this same action earlier in the session), policy (the program's rule, without asking); null when unresolved."`
	Note           *string         `json:"note" jsonschema:"nullable" jsonschema_description:"The person's words with their decision, trimmed; null when there are none."`
	Ended          *string         `json:"ended" jsonschema:"enum=deadline,enum=unattended,enum=dismissed,enum=superseded,enum=fault,nullable" jsonschema_description:"Why nobody decided: deadline (the wait ran out), unattended (nobody could be asked), dismissed (the person closed the request without deciding), superseded (the person wrote a message instead), fault (the request could not be shown or answered); null when decided."`
	ActionDigest   string          `json:"action_digest" jsonschema:"pattern=^sha256:[0-9a-f]{64}$" jsonschema_description:"sha256: and the hex SHA-256 of the JSON array [action, details]: the decision holds for this action and these details only."`
	Votes          []ApprovalVote  `json:"votes,omitempty" jsonschema_description:"Only for a request several people decide (a quorum): every vote, in the order it came, counted or not. Present only then."`
	Quorum         *ApprovalQuorum `json:"quorum,omitempty" jsonschema_description:"Only for a request several people decide: how many approvals it needs and how many it has. A partial quorum is never an approval. Present only then."`
	Remember       string          `json:"remember,omitempty" jsonschema:"enum=session" jsonschema_description:"session: the person chose to decide this same action the same way for the rest of the session. Present only then."`
	RememberedFrom string          `json:"remembered_from,omitempty" jsonschema_description:"For a remembered decision: the id of the request in which the person decided. Present only then."`
	Message        string          `json:"message" jsonschema_description:"What the result means for you, in words: whether you may act."`
}

// ApprovalVote is one person's vote in an approval's result.
type ApprovalVote struct {
	Principal string `json:"principal" jsonschema_description:"Who voted: the identity the program verified (empty when it could not, and then the vote does not count)."`
	Decision  string `json:"decision" jsonschema:"enum=approve,enum=deny" jsonschema_description:"approve or deny."`
	Via       string `json:"via" jsonschema_description:"The channel the vote came by (card, slack:#ops, email)."`
	At        string `json:"at" jsonschema:"format=date-time" jsonschema_description:"When the vote was taken (RFC 3339, UTC)."`
	Counted   bool   `json:"counted" jsonschema_description:"Whether the vote counted toward the verdict (the requester's own vote, a repeated one, one by somebody not eligible, or one after the verdict does not)."`
}

// ApprovalQuorum is the tally of an approval several people decide.
type ApprovalQuorum struct {
	Required  int `json:"required" jsonschema:"minimum=1" jsonschema_description:"How many approvals the request needs."`
	Approvals int `json:"approvals" jsonschema:"minimum=0" jsonschema_description:"How many it has: approved only when it has the required number and nobody vetoed."`
}
