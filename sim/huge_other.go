//go:build !linux

package sim

// hugePages does nothing outside Linux; see huge_linux.go.
func hugePages[T any](s []T) {}
