//go:build !(amd64 || arm64) || purego

package sim

// prefetch does nothing where the engine has no prefetch instruction.
func prefetch(addr uintptr) {}
