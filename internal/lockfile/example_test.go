package lockfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gopsim/gopsim/internal/lockfile"
)

func ExampleAcquire() {
	dir, _ := os.MkdirTemp("", "lockfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.csv.lock")
	l, err := lockfile.Acquire(path)
	fmt.Println(err)
	_, err = lockfile.Acquire(path) // a second run into the same output
	fmt.Println(errors.Is(err, lockfile.ErrHeld))
	l.Release()
	// Output:
	// <nil>
	// true
}
