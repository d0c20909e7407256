package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotSizes are the message sizes PredictHalfRTT uses by default: powers
// of two from 1 byte to 1 MiB.
func PlotSizes() []int64 {
	var s []int64
	for x := int64(1); x <= 1<<20; x *= 2 {
		s = append(s, x)
	}
	return s
}

// PredictHalfRTT simulates a ping-pong of each size under model m with
// parameters p and returns half its round trip in ns, what PRTT(1,0,s)/2
// measures. With stride > 0 both messages are non-contiguous at that
// stride (labelled for log3P; the other models ignore it).
func PredictHalfRTT(p sim.Params, m sim.Model, sizes []int64, stride uint64) ([]float64, error) {
	out := make([]float64, len(sizes))
	label := ""
	if stride > 0 {
		label = fmt.Sprintf("stride%d_", stride)
	}
	for i, s := range sizes {
		text := fmt.Sprintf("num_ranks 2\nrank 0 {\n%sa: send %db to 1\nb: recv %db from 1\nb requires %sa\n}\nrank 1 {\nc: recv %db from 0\n%sd: send %db to 0\n%sd requires c\n}\n",
			label, s, s, label, s, label, s, label)
		sched, err := goal.ReadText(strings.NewReader(text), "pingpong.goal")
		if err != nil {
			return nil, err
		}
		res, err := sim.Run(sched, sim.Options{Params: p, Model: m})
		if err != nil {
			return nil, fmt.Errorf("%s, %d bytes: %w", m, s, err)
		}
		out[i] = float64(res.PerRank[0]) / 2
	}
	return out, nil
}

// WriteModelPlot draws, for every model of the family, the half round
// trip that gopsim predicts with parameters p against the message size
// (PredictHalfRTT; log3P with its messages non-contiguous at stride, if
// not 0), and the measured medians of PRTT(1,0,s)/2 in measured, if any,
// as an image of the given format ("png", "svg", "pdf").
func WriteModelPlot(w io.Writer, format string, p sim.Params, sizes []int64, stride uint64, measured []PointFit) error {
	plt := plot.New()
	plt.Title.Text = "Half round trip of a ping-pong, predicted by each model"
	plt.X.Label.Text = "message size s (bytes)"
	plt.Y.Label.Text = "half round trip (µs)"
	plt.X.Scale, plt.Y.Scale = plot.LogScale{}, plot.LogScale{}
	plt.X.Tick.Marker, plt.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	plt.Legend.Top, plt.Legend.Left = true, true
	plt.Add(plotter.NewGrid())
	for i, m := range sim.Models() {
		st := uint64(0)
		if m == sim.Log3P {
			st = stride
		}
		ys, err := PredictHalfRTT(p, m, sizes, st)
		if err != nil {
			return err
		}
		var xys plotter.XYs
		for k, s := range sizes {
			if ys[k] > 0 {
				xys = append(xys, plotter.XY{X: float64(s), Y: ys[k] / 1e3})
			}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		l.LineStyle.Color = plotutil.Color(i)
		l.LineStyle.Width = vg.Points(1.2)
		l.LineStyle.Dashes = plotutil.Dashes(i)
		pts.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(2), Shape: plotutil.Shape(i)}
		plt.Add(l, pts)
		name := m.String()
		if m == sim.Log3P && stride > 0 {
			name += fmt.Sprintf(" (stride %d bytes)", stride)
		}
		plt.Legend.Add(name, l, pts)
	}
	if len(measured) > 0 {
		var xys plotter.XYs
		for _, q := range measured {
			if q.HalfRTT > 0 {
				xys = append(xys, plotter.XY{X: float64(q.SizeBytes), Y: q.HalfRTT / 1e3})
			}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(0), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		plt.Add(sc)
		plt.Legend.Add("measured PRTT(1,0,s)/2", sc)
	}
	wt, err := plt.WriterTo(8*vg.Inch, 5.5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WriteModelPlotFile writes WriteModelPlot's image to path, in the format
// its extension names, through a temporary file renamed into place.
func WriteModelPlotFile(path string, p sim.Params, sizes []int64, stride uint64, measured []PointFit) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format == "" {
		format = "png"
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return WriteModelPlot(w, format, p, sizes, stride, measured) }); err != nil {
		return fmt.Errorf("writing plot %s: %w", path, err)
	}
	return nil
}
