//go:build !linux

package main

// mapBytes allocates n bytes; huge pages are not asked for.
func mapBytes(n int, huge bool) ([]byte, error) { return make([]byte, n), nil }

func unmapBytes([]byte) {}
