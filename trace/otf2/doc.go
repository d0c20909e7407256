// Package otf2 reads OTF2 traces, the format Score-P writes, as a
// trace.Source for gopsim's converter to GOAL.
//
// Open takes an archive's anchor file (traces.otf2) or its directory and
// reads the archive through OTF2's reference printer, otf2-print, whose
// text ReadPrint parses (otf2.go); PrintAvailable says whether the printer
// is installed. What the reader takes from the events, and what it cannot
// model, is described at the top of otf2.go.
//
// The package registers the format "otf2" with trace.RegisterFormat, so
// `gopsim convert` detects and opens OTF2 archives.
//
// Example: convert an archive and simulate it.
//
//	t, err := otf2.Open("scorep-run/traces.otf2", otf2.Options{})
//	if err != nil {
//		return err // e.g. otf2.ErrOTF2Print when otf2-print is missing
//	}
//	s := goal.NewSchedule(t.NumRanks())
//	if _, err := trace.Convert(t, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package otf2
