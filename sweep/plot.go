package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotOptions configure Plot.
type PlotOptions struct {
	X      string // column on the x axis (required)
	Series string // column whose values make one line each; "" for one line
	Y      string // column on the y axis; "" means max_time_ns
	// Where keeps the rows whose column has the value, e.g. "S_bytes" →
	// "65535": the same number (in the column's unit; a dimension's
	// value may have a unit, "64KiB"), or for text the same text.
	Where      map[string]string
	LogX, LogY bool
	Title      string // "" means "Y against X"; a line under it lists Where
	// Format is the image format: "png", "svg" or "pdf"; "" means png.
	Format string
}

// Plot draws a column of a result CSV against one swept parameter, with a
// line per value of a second one (Series). Every other parameter must
// take one value among the rows plotted: fix it with Where, or the plot
// would mix points, and that is an error naming the column.
func Plot(w io.Writer, results io.Reader, name string, opt PlotOptions) error {
	if opt.Y == "" {
		opt.Y = "max_time_ns"
	}
	if opt.Format == "" {
		opt.Format = "png"
	}
	switch opt.Format {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("sweep: plot: format %q: expected png, svg or pdf", opt.Format)
	}
	r := csv.NewReader(results)
	r.ReuseRecord = false
	recs, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s: empty file", name)
	}
	header := recs[0]
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	need := func(c, what string) (int, error) {
		i, ok := col[c]
		if !ok {
			return 0, fmt.Errorf("%s: no column %q for %s (columns: %s)", name, c, what, strings.Join(header, ", "))
		}
		return i, nil
	}
	xi, err := need(opt.X, "x")
	if err != nil {
		return err
	}
	yi, err := need(opt.Y, "y")
	if err != nil {
		return err
	}
	si := -1
	if opt.Series != "" {
		if si, err = need(opt.Series, "the series"); err != nil {
			return err
		}
	}
	wheres := map[int]func(string) bool{}
	for _, c := range slices.Sorted(maps.Keys(opt.Where)) {
		i, err := need(c, "a filter")
		if err != nil {
			return err
		}
		if wheres[i], err = whereMatch(c, opt.Where[c]); err != nil {
			return err
		}
	}
	var rows [][]string
	for k, rec := range recs[1:] {
		if len(rec) != len(header) {
			return fmt.Errorf("%s:%d: %d fields, the header has %d", name, k+2, len(rec), len(header))
		}
		keep := true
		for i, match := range wheres {
			keep = keep && match(rec[i])
		}
		if keep {
			rows = append(rows, rec)
		}
	}
	if len(rows) == 0 {
		return noRows(name, header, recs[1:], wheres, opt.Where)
	}
	// Every other parameter must be fixed.
	skip := map[string]bool{"point": true, opt.X: true, opt.Y: true, opt.Series: true}
	for _, c := range ResultColumns {
		skip[c] = true
	}
	for i, h := range header {
		if skip[h] {
			continue
		}
		vals := map[string]bool{}
		for _, rec := range rows {
			vals[rec[i]] = true
		}
		if len(vals) > 1 {
			list := make([]string, 0, len(vals))
			for v := range vals {
				list = append(list, v)
			}
			sortNumeric(list)
			return fmt.Errorf("%s: %s takes %d values among the rows (%s): fix it with --where %s=VALUE, or make it the series",
				name, h, len(vals), strings.Join(list[:min(len(list), 8)], ", "), h)
		}
	}
	type xy struct{ x, y float64 }
	series := map[string][]xy{}
	var keys []string
	for k, rec := range rows {
		x, err1 := strconv.ParseFloat(rec[xi], 64)
		y, err2 := strconv.ParseFloat(rec[yi], 64)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: row %d: %w", name, k+1, err)
		}
		if (opt.LogX && x <= 0) || (opt.LogY && y <= 0) {
			continue // not on a log axis
		}
		s := ""
		if si >= 0 {
			s = rec[si]
		}
		if _, ok := series[s]; !ok {
			keys = append(keys, s)
		}
		series[s] = append(series[s], xy{x, y})
	}
	sortNumeric(keys)

	plt := plot.New()
	plt.Title.Text = plotTitle(opt, header, rows[0])
	plt.X.Label.Text, plt.Y.Label.Text = opt.X, opt.Y
	if opt.LogX {
		plt.X.Scale, plt.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if opt.LogY {
		plt.Y.Scale, plt.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	plt.Legend.Top, plt.Legend.Left = true, true
	plt.Add(plotter.NewGrid())
	for i, k := range keys {
		pts := series[k]
		slices.SortStableFunc(pts, func(a, b xy) int {
			switch {
			case a.x < b.x:
				return -1
			case a.x > b.x:
				return 1
			}
			return 0
		})
		xys := make(plotter.XYs, len(pts))
		for j, p := range pts {
			xys[j] = plotter.XY{X: p.x, Y: p.y}
		}
		line, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("sweep: plot: %w", err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.2)
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(2.5), Shape: plotutil.Shape(i)}
		plt.Add(line, sc)
		if opt.Series != "" {
			plt.Legend.Add(opt.Series+"="+k, line, sc)
		}
	}
	wt, err := plt.WriterTo(8*vg.Inch, 5*vg.Inch, opt.Format)
	if err != nil {
		return fmt.Errorf("sweep: plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// plotTitle is the plot's title, opt.Title or "Y against X by SERIES",
// and under it the --where filters with the value the rows have, in the
// column's unit as its name gives it: "where o_ns=1500, S_bytes=65535",
// so that a saved image says which slice of the sweep it shows. row is
// one of the rows plotted, which all share those values.
func plotTitle(opt PlotOptions, header, row []string) string {
	title := opt.Title
	if title == "" {
		title = opt.Y + " against " + opt.X
		if opt.Series != "" {
			title += " by " + opt.Series
		}
	}
	if len(opt.Where) == 0 {
		return title
	}
	var fixed []string
	for _, c := range slices.Sorted(maps.Keys(opt.Where)) {
		fixed = append(fixed, c+"="+row[slices.Index(header, c)])
	}
	return title + "\nwhere " + strings.Join(fixed, ", ")
}

// PlotFile is Plot from the CSV at results to the image file out, in the
// format its extension names (.png, .svg, .pdf), written atomically.
func PlotFile(out, results string, opt PlotOptions) error {
	if opt.Format == "" {
		opt.Format = strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	}
	f, err := os.Open(results)
	if err != nil {
		return err
	}
	defer f.Close()
	return atomicfile.Write(out, func(w io.Writer) error { return Plot(w, f, results, opt) })
}

// sortNumeric sorts numbers written as text by value (text that is not a
// number goes last, in byte order).
// whereMatch returns what says whether a cell of column c has the value v
// given to --where: the same number when v is one, in the column's unit
// (a dimension's value may have a unit, "4KiB" for S_bytes, "1.5us" for
// L_ns; and the CSV writes 1.5e+06 where a person types 1500000), else
// the same text.
func whereMatch(c, v string) (func(string) bool, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		d := DimByName(c)
		if d == nil {
			return func(cell string) bool { return cell == v }, nil
		}
		var ok bool
		if x, ok, err = d.parse(v); !ok {
			return func(cell string) bool { return cell == v }, nil
		}
		if err != nil {
			return nil, fmt.Errorf("--where %s=%s: %w", c, v, err)
		}
	}
	return func(cell string) bool {
		y, err := strconv.ParseFloat(cell, 64)
		return err == nil && y == x
	}, nil
}

// noRows is the error of filters (wheres, given as where) that no row of
// recs passes: it names the first filter that no row passes alone, with
// the values its column has.
func noRows(name string, header []string, recs [][]string, wheres map[int]func(string) bool, where map[string]string) error {
	if len(recs) == 0 {
		return fmt.Errorf("%s: no rows to plot: the file has only its header", name)
	}
	for _, c := range slices.Sorted(maps.Keys(where)) {
		i := slices.Index(header, c)
		vals := map[string]bool{}
		found := false
		for _, rec := range recs {
			vals[rec[i]] = true
			found = found || wheres[i](rec[i])
		}
		if !found {
			list := slices.Collect(maps.Keys(vals))
			sortNumeric(list)
			more := ""
			if len(list) > 8 {
				list, more = list[:8], ", ..."
			}
			return fmt.Errorf("%s: no row has %s=%s (its values: %s%s)", name, c, where[c], strings.Join(list, ", "), more)
		}
	}
	return fmt.Errorf("%s: no rows to plot: no row has all of %s", name, whereList(where))
}

// whereList writes the filters as flags: "--where a=1 --where b=2".
func whereList(where map[string]string) string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(where)) {
		parts = append(parts, "--where "+c+"="+where[c])
	}
	return strings.Join(parts, " ")
}

func sortNumeric(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		x, ex := strconv.ParseFloat(a, 64)
		y, ey := strconv.ParseFloat(b, 64)
		switch {
		case ex == nil && ey == nil && x != y:
			if x < y || math.IsNaN(y) {
				return -1
			}
			return 1
		case ex == nil && ey != nil:
			return -1
		case ex != nil && ey == nil:
			return 1
		}
		return strings.Compare(a, b)
	})
}
