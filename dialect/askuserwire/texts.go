package askuserwire

// Description is the ask_user tool's description, for the tool definition a
// model is given.
const Description = `Ask the user 1–4 structured questions and wait for the answer, instead of guessing or ending the turn with questions in prose. Use it only when you are blocked on a preference or decision that the code and the context cannot answer.

Question kinds: "choice" (2–6 described options, single- or multi-select, ordered most-applicable-first; mark the recommended option with "default": true; "allow_other" adds a free-text path), "text" (one free-form answer), and "secret" (collects one credential; it must be the only question; you receive a reference like "session:NAME", never the value). Each question needs a short "header" (at most 16 characters) and the "question" text.

The result says who decided: "answered_by" is "user" (a person), "timeout" (the deadline passed and the recommended option was applied; text and secret questions are declined), or "unattended" (nobody could be asked; the recommended options were applied at once, or the call was declined). Read it before acting: a fallback is not a considered answer. A declined question is a finished decision: do not ask it again.

This tool never grants permission: a destructive, irreversible or outward-facing action needs an approval that does not auto-resolve; ask for it with request_approval where that tool is offered. Never ask for a credential in prose or in an option; use a "secret" question.`

// Guidance is a short text for the model's system prompt that ships with the
// tool: when to ask, how to ask, and how to read the result.
const Guidance = `Asking the user (ask_user):
- Ask only when you are blocked on a preference or decision that the code and the context cannot answer; otherwise decide.
- Batch related questions into one call (at most 4) rather than asking one at a time.
- Put the most likely option first and mark the one you recommend as the default: it is what applies when nobody answers.
- Never use ask_user as a consent gate: its answers can come from a timeout or an unattended default, so they grant no permission for destructive, irreversible or outward-facing actions. Ask permission to act with request_approval, where it is offered; keep ask_user for preferences and decisions.
- Never ask for a credential in prose or in an option; use a question of kind "secret", and pass on the "session:NAME" reference you get back.
- Read "answered_by": "user" is a person's answer; "timeout" and "unattended" are fallbacks, to be treated with less confidence.
- Never ask a declined question again.`
