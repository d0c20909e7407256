// Package simswitch holds switches of the simulator's engine (package
// sim) that exist only so that tests in other packages can compare its
// paths; no command or library sets them.
//
// PutBack makes every run put an event that finds its CPU or NIC busy
// back into the event queue at each retry, as docs/model.md states the
// rules, instead of parking it in a waiting list (sim/park.go). Both give
// the same results; only Result.QueueOps differs. A test sets it, runs,
// and clears it:
//
//	simswitch.PutBack.Store(true)
//	defer simswitch.PutBack.Store(false)
package simswitch

import "sync/atomic"

// PutBack selects the rules' put-backs for the runs that start while it is
// set.
var PutBack atomic.Bool
