package askuser

// recordVerdict is exported to the package's external tests (the fuzz
// target of journal records' votes) only.
var RecordVerdict = recordVerdict
