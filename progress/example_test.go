package progress_test

import (
	"os"
	"sync/atomic"

	"github.com/gopsim/gopsim/progress"
)

// A bar on stderr: drawn when stderr is a terminal, silent otherwise (as
// when the example runs under go test).
func ExampleNew() {
	bar := progress.New(os.Stderr, 8, "ranks", false)
	for range 8 {
		bar.Add(1)
	}
	bar.Finish()
	// Output:
}

// Workers count with an atomic counter; Poll copies it into the bar.
func ExampleBar_Poll() {
	bar := progress.New(os.Stderr, 100, "points", false)
	var done atomic.Int64
	stop := bar.Poll(done.Load, 0)
	for range 100 {
		done.Add(1)
	}
	stop()
	bar.Finish()
	// Output:
}
