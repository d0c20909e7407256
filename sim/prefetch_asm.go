//go:build (amd64 || arm64) && !purego

package sim

// prefetch asks the CPU to bring the cache line at addr into its caches
// and returns at once. A plain load would do the same but stall the CPU
// until the line arrives; Go has no prefetch of its own, hence the
// assembly (prefetch_amd64.s, prefetch_arm64.s). The address need not be
// valid.
//
//go:noescape
func prefetch(addr uintptr)
