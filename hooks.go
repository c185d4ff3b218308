package askuser

import "github.com/askuser-go/askuser/internal/hooks"

// The functions package responder gives responder authors, so that the
// root package keeps the model and the orchestrator only.
func init() {
	hooks.Sealed = (*Question).sealed
	hooks.SealName = (*Question).sealName
	hooks.FreeText = (*Question).freeText
	hooks.DeclaredDefaults = (*Question).declaredDefaults
	hooks.ChoiceSecret = (*Question).choiceSecret
	hooks.CheckAnswer = (*Form).checkAnswer
	hooks.Route = (*Ask).routeOf
	hooks.Told = (*Ask).toldStep
	hooks.Through = (*Ask).through
	hooks.Votes = (*Ask).verdict
	hooks.BeganHere = (*Ask).beganHere
}
