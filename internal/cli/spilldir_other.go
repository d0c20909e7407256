//go:build !linux

package cli

func inMemoryFS(dir string) bool { return false }
