//go:build !ibverbs

package bench

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestIBVerbsNotBuilt: the default build has no ibverbs backend, and says
// how to get one.
func TestIBVerbsNotBuilt(t *testing.T) {
	const want = "built without ibverbs support: rebuild with -tags ibverbs"
	if IBVerbsBuilt {
		t.Fatal("IBVerbsBuilt in a build without the ibverbs tag")
	}
	_, err := DialIBVerbs(context.Background(), "127.0.0.1:1", IBVerbsOptions{})
	if !errors.Is(err, ErrNoIBVerbs) || !strings.Contains(err.Error(), want) {
		t.Errorf("DialIBVerbs: %v, want %q", err, want)
	}
	if _, err := IBVerbsDevices(); !errors.Is(err, ErrNoIBVerbs) {
		t.Errorf("IBVerbsDevices: %v", err)
	}
	a, b := net.Pipe()
	defer b.Close()
	if _, err := ServeIBVerbs(context.Background(), a, IBVerbsOptions{}); !errors.Is(err, ErrNoIBVerbs) {
		t.Errorf("ServeIBVerbs: %v", err)
	}
}
