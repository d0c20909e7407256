// Command gopsim simulates MPI applications under the LogGOPS model.
// Run `gopsim help` for the commands.
package main

import (
	"os"

	"github.com/gopsim/gopsim/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
