package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "result.csv")
	err := atomicfile.Write(out, func(w io.Writer) error {
		_, err := io.WriteString(w, "time_ns\n1500\n")
		return err
	})
	b, _ := os.ReadFile(out)
	fmt.Printf("%v %q\n", err, b)
	// Output: <nil> "time_ns\n1500\n"
}
