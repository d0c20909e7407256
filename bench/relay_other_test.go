//go:build !(linux && (amd64 || arm64))

package bench

import (
	"errors"
	"testing"
	"time"
)

type link struct {
	Latency time.Duration
	PerByte float64
	Packet  int
}

func startRelay(target string, l link) (string, func(), error) {
	return "", nil, errors.New("the emulated link needs linux on amd64 or arm64")
}

func TestEmulatedLink(t *testing.T) {
	t.Skip("the emulated link needs SO_TIMESTAMPNS and nanosleep with a 1 ns timer slack: linux on amd64 or arm64")
}
