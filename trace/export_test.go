package trace

// SetCopyLimit sets the size from which Convert lends a converted rank
// instead of copying it, for the tests of both paths, and returns a
// function that restores it.
func SetCopyLimit(n int) (restore func()) {
	old := copyLimit
	copyLimit = n
	return func() { copyLimit = old }
}
