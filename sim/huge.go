package sim

// hugeCopy returns a copy of s in memory that huge pages back where it
// spans some (hugePages), for a table read in no order: on a virtual
// machine a TLB miss costs a nested page walk (docs/performance.md).
func hugeCopy[T any](s []T) []T {
	c := make([]T, len(s))
	hugePages(c)
	copy(c, s)
	return c
}
