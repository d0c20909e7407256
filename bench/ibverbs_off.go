//go:build !ibverbs

package bench

import (
	"context"
	"net"
)

// This gopsim is built without the ibverbs backend (the default: it needs
// cgo and libibverbs' headers); every entry point returns ErrNoIBVerbs.
// Build with -tags ibverbs for the real one (ibverbs.go).

// IBVerbsBuilt says whether this gopsim has the ibverbs backend.
const IBVerbsBuilt = false

// IBVerbsDevices returns ErrNoIBVerbs.
func IBVerbsDevices() ([]string, error) { return nil, ErrNoIBVerbs }

// IBVerbsProber is the client side of the ibverbs backend; in this build
// it cannot be created.
type IBVerbsProber struct{}

// DialIBVerbs returns ErrNoIBVerbs.
func DialIBVerbs(ctx context.Context, addr string, o IBVerbsOptions) (*IBVerbsProber, error) {
	return nil, ErrNoIBVerbs
}

// Info describes the local device, port and path.
func (p *IBVerbsProber) Info() IBVerbsInfo { return IBVerbsInfo{} }

// Rounds implements Prober; it returns ErrNoIBVerbs.
func (p *IBVerbsProber) Rounds(ctx context.Context, sizeBytes int64, rounds []Round, res []Result) error {
	return ErrNoIBVerbs
}

// Close does nothing.
func (p *IBVerbsProber) Close() error { return nil }

// ServeIBVerbs closes c and returns ErrNoIBVerbs.
func ServeIBVerbs(ctx context.Context, c net.Conn, o IBVerbsOptions) (ServeStats, error) {
	c.Close()
	return ServeStats{Peer: c.RemoteAddr().String()}, ErrNoIBVerbs
}
