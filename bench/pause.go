package bench

import "time"

// pause waits about d, spinning or sleeping, and returns how long it
// waited.
func pause(d time.Duration, sleeping bool) time.Duration {
	start := time.Now()
	if sleeping {
		sleep(d)
	} else {
		for time.Since(start) < d {
		}
	}
	return time.Since(start)
}
