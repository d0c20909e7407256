package bench

import (
	"syscall"
	"time"
)

// sleep sleeps about d in nanosleep(2): the kernel's timer slack (50 µs by
// default) instead of Go's timers, which round short sleeps up to a
// millisecond.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
