package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/gopsim/gopsim/goal"
)

func convertFlags(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim convert IN OUT

Converts a schedule between LogGOPSim's GOAL text form and gopsim's binary
form. IN is read in either form (detected from its content); OUT is written
as text when its name ends in .goal and in the binary form otherwise. OUT is
written to a temporary file and renamed only when complete, so a failed
conversion leaves no partial file.
`)
	}
	return fs
}

func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := convertFlags(stderr)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "gopsim convert: expected IN and OUT")
		return ExitUsage
	}
	if err := Convert(fs.Arg(0), fs.Arg(1), stderr); err != nil {
		fmt.Fprintf(stderr, "gopsim convert: %v\n", err)
		return ExitError
	}
	return ExitOK
}

// Convert reads schedule in and writes it to out, in the form that out's
// name selects (goal.FormatForPath). Progress and the summary go to log.
func Convert(in, out string, log io.Writer) error {
	s, from, err := goal.ReadFile(in)
	if err != nil {
		return err
	}
	to := goal.FormatForPath(out)
	if err := goal.WriteFile(out, s, to); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	fmt.Fprintf(log, "converted %s (%s) to %s (%s): %d ranks, %d ops\n", in, from, out, to, s.NumRanks, len(s.Ops))
	return nil
}
