// Package route says who is asked and how an ask moves on when nobody
// answers, and how several people decide one approval.
//
// # Routes
//
// A Route is an ordered list of Steps. The first step begins with the ask;
// each later step begins after its delay (counted from the previous step,
// the ask's start, or its nudge) and reaches more responders (channels such
// as the card, a Slack channel, email) and people (principals and groups).
// A step never takes the ask away from those already reached, and what was
// answered so far is kept. A route may repeat its steps as reminders. The
// deadline ends the ask as it always does: a step due at or after it never
// begins. Route.Plan computes every step's beginning for an ask's times, so
// that an orchestrator can set durable timers on them; Route.Describe says
// a route in words.
//
// A route is a serializable value, snapshotted into an ask's pending
// record when the ask begins: a restart or another replica continues the
// same route on the same timers.
//
// # Quorums
//
// A Quorum makes an approval need Required of its Eligible approvers
// (principals, or groups that count once unless they count per member);
// a deny by any eligible approver ends it denied, and the requester (and,
// if the program says so, the session's owner) never approves. Decide is
// the pure function that adds up the votes: the orchestrator calls it on
// every vote, and every replica computes the same verdict from the same
// votes. A deadline, a fault, nobody there or a supersede never approves.
//
// ActionDigest binds an approval to its action, details and quorum, so
// that a changed policy asks again.
//
// The routes file (YAML or JSON, for the command and askuser serve) is
// read by the routefile package, which keeps its YAML parser out of the
// import graph of programs that configure routes in Go.
package route
