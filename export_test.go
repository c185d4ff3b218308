package askuser

// recordVerdict is exported to the package's external tests (the fuzz
// target of journal records' votes) only.
var RecordVerdict = recordVerdict

// SecretsOf gives the external tests the store an orchestrator seals
// answers into, its own in-memory one when Secrets is nil, which no
// program can reach.
var SecretsOf = (*Orchestrator).secrets
