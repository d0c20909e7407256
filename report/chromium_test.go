package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/testenv"
)

// chromium finds Debian's chromium (or Google's build). Without one the
// test skips, or fails when $CI is set: `make chromium-deps` installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "chromium is not installed (Debian: apt-get install chromium; make chromium-deps does it as root)")
	return ""
}

// runChromium runs headless chromium on page with extra flags, with a
// fresh profile, and returns its stdout and stderr.
func runChromium(t *testing.T, bin, page string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,2000", "--hide-scrollbars",
		"--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0",
	}
	args = append(args, extra...)
	args = append(args, "file://"+page)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", bin, err, tail(errb.String(), 40))
	}
	return out.Bytes(), errb.Bytes()
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[max(len(l)-lines, 0):], "\n")
}

var (
	bodyTag     = regexp.MustCompile(`<body[^>]*>`)
	errorsBox   = regexp.MustCompile(`(?s)<div id="errors"([^>]*)>(.*?)</div>`)
	chartDiv    = regexp.MustCompile(`<div class="chart[^"]*" data-chart="([a-z]+)"[^>]*>`)
	consoleLine = regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught).*$`)
)

// attr returns the value of attribute name in an HTML start tag.
func attr(tag, name string) string {
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// TestChromium opens reports in headless Chromium: every chart must draw
// (the page marks <body data-rendered="ok"> and each chart
// data-chart-ok), no script error may be recorded, and the screenshot
// must decode and not be blank.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	if testing.Short() {
		t.Skip("-short: not starting chromium")
	}
	large, largeTL := largeRun(2000)
	cases := []struct {
		name   string
		in     Input
		charts map[string]bool // the charts the page must have
	}{
		{"ring4", goldenInputs(t)[0].in, map[string]bool{"ranks": true, "totals": true, "critical": true, "timeline": true, "sweep": true}},
		{"pingpong", goldenInputs(t)[2].in, map[string]bool{"ranks": true}},
		// What gopsim sim writes today (internal/cli's TestReportInputsFromSim
		// keeps these files equal to its output), with the newest sweep CSV.
		{"sim", Input{Result: mustResult(t, "sim_allreduce.json"), Timeline: mustTimeline(t, "sim_allreduce.timeline.json"),
			Sweeps: []*Sweep{mustSweep(t, "../../sweep/testdata/sweep_latency.csv")}},
			map[string]bool{"ranks": true, "totals": true, "critical": true, "timeline": true, "sweep": true}},
		{"large", Input{Result: large, Timeline: largeTL}, map[string]bool{"ranks": true, "histogram": true, "timeline": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			page := filepath.Join(dir, tc.name+".html")
			if err := WriteFile(page, tc.in, Options{Generator: "gopsim test"}); err != nil {
				t.Fatal(err)
			}
			dom := dumpDOM(t, bin, page)
			body := bodyTag.Find(dom)
			if got := attr(string(body), "data-rendered"); got != "ok" {
				m := errorsBox.FindSubmatch(dom)
				t.Fatalf("body %s: data-rendered %q, want ok; errors box: %q", body, got, cond(m != nil, m, [][]byte{nil, nil, nil})[2])
			}
			if m := errorsBox.FindSubmatch(dom); m == nil || !bytes.Contains(m[1], []byte("hidden")) || len(bytes.TrimSpace(m[2])) > 0 {
				t.Errorf("the errors box is not empty and hidden: %q", cond(m != nil, m, [][]byte{nil})[0])
			}
			found := map[string]bool{}
			for _, loc := range chartDiv.FindAllSubmatchIndex(dom, -1) {
				tag := string(dom[loc[0]:loc[1]])
				kind := string(dom[loc[2]:loc[3]])
				found[kind] = true
				n, _ := strconv.Atoi(attr(tag, "data-chart-ok"))
				if n <= 0 {
					t.Errorf("chart %s drew nothing: %s", kind, tag)
				}
				rest := dom[loc[1]:]
				if kind == "timeline" {
					if !bytes.HasPrefix(rest, []byte("<canvas")) {
						t.Errorf("timeline holds no canvas: %.80s", rest)
					}
					if d, _ := strconv.Atoi(attr(tag, "data-drawn")); d <= 0 {
						t.Errorf("timeline drew no ops: %s", tag)
					}
					continue
				}
				if !bytes.HasPrefix(rest, []byte("<svg")) {
					t.Errorf("chart %s holds no svg: %.80s", kind, rest)
					continue
				}
				end := bytes.Index(rest, []byte("</svg>"))
				if shapes := bytes.Count(rest[:max(end, 0)], []byte("<rect")) + bytes.Count(rest[:max(end, 0)], []byte("<path")); shapes == 0 {
					t.Errorf("chart %s: an svg without shapes", kind)
				}
			}
			for kind := range tc.charts {
				if !found[kind] {
					t.Errorf("no %s chart in the page", kind)
				}
			}
			if got, want := attr(string(body), "data-charts"), fmt.Sprint(len(chartDiv.FindAll(dom, -1))); got != want {
				t.Errorf("%s charts drawn of %s", got, want)
			}

			shot := filepath.Join(dir, tc.name+".png")
			runChromium(t, bin, page, "--screenshot="+shot)
			checkScreenshot(t, shot)
			if os.Getenv("GOPSIM_KEEP_SCREENSHOTS") != "" {
				data, _ := os.ReadFile(shot)
				os.WriteFile(filepath.Join(os.Getenv("GOPSIM_KEEP_SCREENSHOTS"), tc.name+".png"), data, 0o666)
			}
		})
	}
}

// dumpDOM loads page in chromium and returns the DOM after its scripts
// ran; console messages (errors the page did not catch) fail the test.
func dumpDOM(t *testing.T, bin, page string) []byte {
	t.Helper()
	dom, logs := runChromium(t, bin, page, "--dump-dom")
	if len(dom) == 0 {
		t.Fatalf("chromium dumped no DOM; stderr:\n%s", tail(string(logs), 40))
	}
	if lines := consoleLine.FindAll(logs, -1); len(lines) > 0 {
		t.Errorf("console messages:\n%s", bytes.Join(lines, []byte("\n")))
	}
	return dom
}

// TestChromiumCatchesErrors: a page whose script fails says so, in
// data-rendered and in the visible errors box, so that TestChromium
// cannot pass on a broken page.
func TestChromiumCatchesErrors(t *testing.T) {
	bin := chromium(t)
	if testing.Short() {
		t.Skip("-short: not starting chromium")
	}
	var buf bytes.Buffer
	if err := Write(&buf, goldenInputs(t)[0].in, Options{}); err != nil {
		t.Fatal(err)
	}
	// Break the timeline's drawing.
	html := strings.Replace(buf.String(), "function drawTimeline(container, tl) {", "function drawTimeline(container, tl) { tl.nosuch.field = 1;", 1)
	if html == buf.String() {
		t.Fatal("drawTimeline not found in the page")
	}
	page := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(page, []byte(html), 0o666); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOM(t, bin, page)
	if got := attr(string(bodyTag.Find(dom)), "data-rendered"); got != "error" {
		t.Errorf("data-rendered %q, want error", got)
	}
	m := errorsBox.FindSubmatch(dom)
	if m == nil || bytes.Contains(m[1], []byte("hidden")) || !bytes.Contains(m[2], []byte("chart timeline")) {
		t.Errorf("errors box %q: want it shown, naming the timeline", cond(m != nil, m, [][]byte{nil})[0])
	}
}

// checkScreenshot decodes the PNG and wants a page's worth of content:
// a good share of pixels that are not white, in several colours.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Errorf("screenshot is %v, want about 1280x2000", b.Size())
	}
	var ink, colored int
	colors := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 240 || g < 240 || bl < 240 {
				ink++
			}
			if max(r, g, bl)-min(r, g, bl) > 60 { // a chart colour, not grey text
				colored++
				colors[[3]uint32{r >> 4, g >> 4, bl >> 4}] = true
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if ink < total/100 {
		t.Errorf("screenshot nearly blank: %d of %d sampled pixels not white", ink, total)
	}
	if colored < total/200 || len(colors) < 3 {
		t.Errorf("screenshot shows no charts: %d coloured pixels in %d colours", colored, len(colors))
	}
}
