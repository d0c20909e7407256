// Package lockfile keeps two processes from writing one output at once:
// an exclusive advisory lock (flock) on a file beside the output, which
// holds the process id and command line of its holder so that the one
// refused can say who is in the way.
//
// gopsim sweep takes OUTPUT.lock before it reads or appends a row, and
// sweep merge before it replaces its output: a second run into the same
// CSV stops at once instead of simulating every point again. The lock
// goes with its process, however it ends (kill -9 included); the file is
// removed by Release.
//
// Example:
//
//	l, err := lockfile.Acquire("out.csv.lock")
//	if err != nil {
//		return err // "out.csv.lock: held by pid 4242 (gopsim sweep s.toml) ..."
//	}
//	defer l.Release()
//
// Where flock does not exist (not unix), Acquire always succeeds.
package lockfile
