package bench

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WritePlot draws p's measured PRTT (the fit's quantile, with the
// interquartile ranges) against the message size, and the fitted model's PRTT over
// each range, as an image of the given format ("png", "svg", "pdf", ...).
// Both axes are logarithmic; dotted vertical lines mark detected changes.
func (p *ParamFile) WritePlot(w io.Writer, format string) error {
	plt := plot.New()
	plt.Title.Text = fmt.Sprintf("PRTT against message size: %s of each round (IQR bars) and the LogGOPS fit", p.Fit.Describe())
	plt.X.Label.Text = "message size s (bytes)"
	plt.Y.Label.Text = "PRTT, one exchange (µs)"
	plt.X.Scale, plt.Y.Scale = plot.LogScale{}, plot.LogScale{}
	plt.X.Tick.Marker, plt.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	plt.Legend.Top, plt.Legend.Left = true, true
	plt.Add(plotter.NewGrid())

	pts := p.Fit.Points
	n := 0
	for _, q := range pts {
		n = max(n, q.N)
	}
	prtt := func(n int) func(Range, float64, int64) float64 {
		return func(r Range, d float64, s int64) float64 { return r.PRTT(n, d, s) }
	}
	kinds := []struct {
		name  string
		sum   func(PointFit) *Summary
		d     bool
		model func(r Range, d float64, s int64) float64
	}{
		{"PRTT(1,0,s)", func(q PointFit) *Summary { return &q.PRTT1 }, false, prtt(1)},
		{fmt.Sprintf("PRTT(%d,0,s)", n), func(q PointFit) *Summary { return q.PRTTN }, false, prtt(n)},
		{fmt.Sprintf("PRTT(%d,d,s)", n), func(q PointFit) *Summary { return q.PRTTND }, true, prtt(n)},
		// One exchange, (X(n,s)-X(1,s))/(n-1), when the table has them:
		// no spread of its own (a difference of two rounds' statistics).
		{"exchange", func(q PointFit) *Summary {
			if q.Exchange == nil {
				return nil
			}
			return &Summary{Q: *q.Exchange}
		}, false, func(r Range, _ float64, s int64) float64 { return model(r, sExch, float64(s-1)) }},
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, k := range kinds {
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, q := range pts {
			s := k.sum(q)
			if s == nil || s.Q <= 0 {
				continue
			}
			y := s.Q / 1e3
			xys = append(xys, plotter.XY{X: float64(q.SizeBytes), Y: y})
			half := min(s.IQR/2e3, y/2) // keep the bar above 0 on a log axis
			errs = append(errs, struct{ Low, High float64 }{half, half})
			ymin, ymax = min(ymin, y-half), max(ymax, y+half)
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(2.5), Shape: plotutil.Shape(i)}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		eb.LineStyle.Color = plotutil.Color(i)
		plt.Add(sc, eb)
		plt.Legend.Add(k.name+" measured", sc)

		// The model over each range, sampled between the measured sizes
		// (d interpolated in log size).
		first := true
		for r, rg := range p.Ranges {
			var line plotter.XYs
			var prev *PointFit
			for j := range pts {
				q := &pts[j]
				if q.Range != r || k.sum(*q) == nil {
					continue
				}
				if prev != nil {
					x0, x1 := math.Log(float64(prev.SizeBytes)), math.Log(float64(q.SizeBytes))
					for t := 1; t < 16; t++ {
						f := float64(t) / 16
						s := math.Exp(x0 + f*(x1-x0))
						d := 0.0
						if k.d {
							d = prev.DelayNs + f*(q.DelayNs-prev.DelayNs)
						}
						if y := k.model(rg, d, int64(math.Round(s))) / 1e3; y > 0 {
							line = append(line, plotter.XY{X: s, Y: y})
						}
					}
				}
				d := 0.0
				if k.d {
					d = q.DelayNs
				}
				if y := k.model(rg, d, q.SizeBytes) / 1e3; y > 0 {
					line = append(line, plotter.XY{X: float64(q.SizeBytes), Y: y})
					ymin, ymax = min(ymin, y), max(ymax, y)
				}
				prev = q
			}
			if len(line) < 2 {
				continue
			}
			l, err := plotter.NewLine(line)
			if err != nil {
				return fmt.Errorf("plot: %w", err)
			}
			l.LineStyle.Color = plotutil.Color(i)
			l.LineStyle.Width = vg.Points(1.2)
			plt.Add(l)
			if first {
				plt.Legend.Add(k.name+" model", l)
				first = false
			}
		}
	}
	if ymin > 0 && ymax > ymin {
		// Room above the data for the legend.
		plt.Y.Min, plt.Y.Max = ymin/1.2, ymax*4
		for _, c := range p.Fit.Changes {
			x := math.Sqrt(float64(c.AfterBytes) * float64(c.BeforeBytes))
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ymin}, {X: x, Y: ymax}})
			if err != nil {
				return fmt.Errorf("plot: %w", err)
			}
			l.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
			l.LineStyle.Color = plotutil.Color(6)
			plt.Add(l)
		}
	}
	wt, err := plt.WriterTo(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WritePlotFile writes the plot (WritePlot) to path, in the format its
// extension names, through a temporary file renamed into place.
func (p *ParamFile) WritePlotFile(path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format == "" {
		format = "png"
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return p.WritePlot(w, format) }); err != nil {
		return fmt.Errorf("writing plot %s: %w", path, err)
	}
	return nil
}
