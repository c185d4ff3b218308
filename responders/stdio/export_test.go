package stdio

// ParseDecision is parseDecision, for the tests.
var ParseDecision = parseDecision
