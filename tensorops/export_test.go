package tensorops

// MustPanic is mustPanic for the external tests.
var MustPanic = mustPanic
