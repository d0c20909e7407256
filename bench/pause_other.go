//go:build !linux

package bench

import "time"

// sleep sleeps about d (Go's timers may round short sleeps up to a
// millisecond; the table records the delay actually spent).
func sleep(d time.Duration) { time.Sleep(d) }
