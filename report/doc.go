// Package report turns a simulation result into one self-contained HTML
// page: parameters, summary, per-rank breakdown, noise and network loads,
// critical path, a zoomable timeline and sweep plots.
//
// The inputs are files other gopsim commands write, each with its reader:
// ReadResult for `gopsim sim --json` (Result documents the schema; every
// part after the finishing times is optional), ReadTimeline for a Chrome
// trace-event file (`gopsim sim --timeline`) and ReadSweep for a `gopsim
// sweep` result CSV. Readers sniff, decode and validate, and their errors
// name the file with the line, column and byte offset of the problem;
// ErrFormat is wrapped by errors about content.
//
// Write (or WriteFile, atomically) renders the page. Everything is inline:
// the style sheet, a small script that draws the charts into SVG (the
// timeline into a canvas) from a JSON block, and the data; the page loads
// nothing from the network and escapes every string from the inputs
// (html/template). Sections whose data is absent are left out with a note.
// Large runs (more than Options.BarRanks ranks) show the slowest ranks and
// a histogram of finishing times instead of one bar per rank, and the
// timeline shows a subset of the ranks (Options.TimelineRanks).
//
// The script marks the page when it is done: <body data-rendered="ok">
// when every chart drew, "error" when one failed, with the messages in the
// visible #errors box; each chart element gets data-chart-ok with the
// number of shapes drawn. The tests load the pages in headless Chromium
// and check these marks and a screenshot.
//
// A worked example:
//
//	res, err := report.ReadResult("run.json") // gopsim sim --json x.goal > run.json
//	if err != nil {
//		return err
//	}
//	tl, err := report.ReadTimeline("run.trace.json")
//	if err != nil {
//		return err
//	}
//	in := report.Input{Result: res, ResultFile: "run.json", Timeline: tl}
//	return report.WriteFile("report.html", in, report.Options{})
package report
