//go:build !invariants

package sim

// invariants enables the engine's self-checks (build with -tags invariants).
const invariants = false
