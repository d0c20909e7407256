// Package testenv decides what a test does when a tool it needs (mpirun,
// otf2-print, chromium, ...) is missing: with the environment variable CI
// set to anything non-empty, as GitHub-style CI and .ci/run's `make test`
// do, the test fails, since CI installs every tool and a skip there would
// hide a broken installation; without CI, the test skips with a message
// saying what is missing and how to install it.
//
// A test that needs tools on PATH calls NeedTools; a test that finds out
// otherwise that something is missing calls Missing with the message:
//
//	func TestTrace(t *testing.T) {
//		testenv.NeedTools(t, "the tracer tests need Open MPI (make mpi-deps)", "mpicc", "mpirun")
//		// mpicc and mpirun are on PATH here.
//	}
//
//	if !openMPI {
//		testenv.Missing(t, "the default mpirun is not Open MPI")
//	}
//
// Missing and NeedTools end the test (t.Skip or t.Fatal) from the
// goroutine running it, so they must not be called inside a sync.Once
// that other tests share: record what is missing there, and call Missing
// after it.
package testenv
