package extrapolation

// SetReplayBudget sets the recordings' budget (replay.go) for a test and
// returns a function that restores it.
func SetReplayBudget(n int64) (restore func()) {
	old := replayBudget
	replayBudget = n
	return func() { replayBudget = old }
}
