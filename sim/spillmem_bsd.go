//go:build darwin || freebsd

package sim

const mapNoReserve = 0

func noHugePages(b []byte) {}
