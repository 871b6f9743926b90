package targets

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// BenchResult is one parsed `go test -bench` line.
type BenchResult struct {
	Name    string
	NsPerOp float64
	// Metrics are the custom metrics by unit (e.g. "maxrss-KiB").
	Metrics map[string]float64
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$`)

// ParseBench reads `go test -bench` output.
func ParseBench(r io.Reader) map[string]BenchResult {
	res := map[string]BenchResult{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		br := BenchResult{Name: m[1], NsPerOp: ns, Metrics: map[string]float64{}}
		fields := strings.Fields(m[3])
		for i := 0; i+1 < len(fields); i += 2 {
			if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
				br.Metrics[fields[i+1]] = v
			}
		}
		res[br.Name] = br
	}
	return res
}

// Figure is one performance target (docs/performance.md), measured against
// its baseline.
type Figure struct {
	What     string
	Measured string
	Baseline string
	Ratio    string
	Target   string
	Met      bool
	// Reference marks a figure that explains others and has no target.
	Reference bool
	// Git is the number of git processes one run of the measured command
	// started (the benchmark's git-calls metric, counted through a shim),
	// "" when not counted.
	Git string
}

// times returns the measured and baseline times of a benchmark in ns: the
// medians it reports (med-ns, base-med-ns: baseline and subject measured
// side by side) when present, else the mean ns/op of name and of the
// separate baseline benchmark base.
func times(r map[string]BenchResult, name, base string) (got, baseline float64, ok bool) {
	g, okG := r[name]
	if !okG {
		return 0, 0, false
	}
	got = g.NsPerOp
	if m, has := g.Metrics["med-ns"]; has && m > 0 {
		got = m
	}
	if m, has := g.Metrics["base-med-ns"]; has && m > 0 {
		return got, m, true
	}
	if b, has := r[base]; has {
		return got, b.NsPerOp, true
	}
	return got, 0, false
}

// gitCalls is the git-calls metric of benchmark name, "" when it has none.
func gitCalls(r map[string]BenchResult, name string) string {
	if n, ok := r[name].Metrics["git-calls"]; ok {
		return fmt.Sprintf("%.0f", n)
	}
	return ""
}

// Figures turns parsed benchmarks into the targets' table. A missing
// benchmark gives a figure that is not met.
func Figures(r map[string]BenchResult) []Figure {
	ms := func(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }
	var figs []Figure
	for _, p := range []struct{ name, what string }{
		{"BenchmarkStopHookNoConfig", "stop hook, no config"},
		{"BenchmarkStopHookActive", "stop hook, stop_hook_active"},
		{"BenchmarkStopHookLockPresent", "stop hook, lock present"},
		{"BenchmarkStopHookIntervalNotElapsed", "stop hook, interval not elapsed"},
	} {
		f := Figure{What: p.what + " (wall)", Target: "≤ 1.5× git rev-parse --show-toplevel", Git: gitCalls(r, p.name)}
		if got, base, ok := times(r, p.name, "BenchmarkBaselineGitRevParse"); ok {
			ratio := got / base
			f.Measured, f.Baseline, f.Ratio, f.Met = ms(got), ms(base), fmt.Sprintf("%.2f×", ratio), ratio <= 1.5
		}
		figs = append(figs, f)
		got, ok := r[p.name]
		if hook, goStart := got.Metrics["med-ns"], got.Metrics["go-med-ns"]; ok && hook > 0 && goStart > 0 {
			figs = append(figs, Figure{What: p.what + " (beyond an empty Go program)", Reference: true,
				Measured: ms(hook - goStart), Baseline: ms(goStart) + " (empty Go program)", Ratio: fmt.Sprintf("%.2f×", hook/goStart)})
		}
		rss := Figure{What: p.what + " (peak RSS)", Target: "≤ 15 MiB"}
		if ok {
			mib := got.Metrics["maxrss-KiB"] / 1024
			rss.Measured, rss.Met = fmt.Sprintf("%.1f MiB", mib), mib > 0 && mib <= 15
		}
		figs = append(figs, rss)
		calls := Figure{What: p.what + " (git calls)", Target: "0"}
		if n, has := got.Metrics["git-calls"]; ok && has {
			calls.Measured, calls.Met = fmt.Sprintf("%.0f", n), n == 0
		}
		figs = append(figs, calls)
	}
	f := Figure{What: "run overhead beyond one `true` check", Target: "≤ 30 ms", Git: gitCalls(r, "BenchmarkRunOneTrueCheck")}
	if run, shTrue, ok := times(r, "BenchmarkRunOneTrueCheck", "BenchmarkBaselineShTrue"); ok {
		over := run - shTrue
		f.Measured, f.Baseline, f.Ratio, f.Met = ms(over), ms(shTrue)+" (sh -c true)", fmt.Sprintf("%.1f×", run/shTrue), over <= 30e6
	}
	figs = append(figs, f)
	f = Figure{What: "8 parallel `sleep 0.5` checks (whole run)", Target: "≤ 550 ms", Baseline: "500 ms (one sleep)", Git: gitCalls(r, "BenchmarkRunEightParallelSleeps")}
	if par, _, _ := times(r, "BenchmarkRunEightParallelSleeps", ""); par > 0 {
		f.Measured, f.Ratio, f.Met = ms(par), fmt.Sprintf("%.2f×", par/5e8), par <= 5.5e8
	}
	figs = append(figs, f)
	f = Figure{What: "change detection, 10,000 files, 200 entry points", Target: "≤ 1.5× raw git", Git: gitCalls(r, "BenchmarkDetectTenThousandFiles")}
	if det, raw, ok := times(r, "BenchmarkDetectTenThousandFiles", "BenchmarkBaselineGitChanges"); ok {
		ratio := det / raw
		f.Measured, f.Baseline, f.Ratio, f.Met = ms(det), ms(raw), fmt.Sprintf("%.2f×", ratio), ratio <= 1.5
	}
	figs = append(figs, f)
	for _, p := range []struct{ name, what string }{
		{"BenchmarkStopHookCachedTenThousandFiles", "stop hook, interval 0, nothing new since a pass, 10,000 files"},
		{"BenchmarkStopHookCachedTenSlowGates", "same, 10 gates of 1 s each (none runs)"},
		{"BenchmarkStopHookCachedFetched", "same, one gate, in a clone whose origin/main a fetch put there"},
	} {
		f = Figure{What: p.what, Target: "≤ 1.5× git status --porcelain", Git: gitCalls(r, p.name)}
		if got, base, ok := times(r, p.name, ""); ok {
			ratio := got / base
			f.Measured, f.Baseline, f.Ratio, f.Met = ms(got), ms(base), fmt.Sprintf("%.2f×", ratio), ratio <= 1.5
		}
		figs = append(figs, f)
	}
	for _, p := range []struct{ name, what string }{
		{"BenchmarkStopHookCachedRevert", "stop hook, nothing new since a fix that put a file back as on the base, 10,000 files"},
		{"BenchmarkStopHookCachedPreExisting", "stop hook, nothing new since a pre-existing failure, 10,000 files"},
	} {
		f = Figure{What: p.what, Target: "< 50 ms", Git: gitCalls(r, p.name)}
		if got, base, ok := times(r, p.name, ""); ok {
			f.Measured, f.Baseline, f.Ratio, f.Met = ms(got), ms(base)+" (git status --porcelain)", fmt.Sprintf("%.2f×", got/base), got < 50e6
		}
		figs = append(figs, f)
	}
	if got, base, ok := times(r, "BenchmarkRunFailingCheckLargeOutput", ""); ok {
		figs = append(figs, Figure{What: "run, one failing check printing 100 MB (wall)", Reference: true, Git: gitCalls(r, "BenchmarkRunFailingCheckLargeOutput"),
			Measured: ms(got), Baseline: ms(base) + " (the check alone, to a file)", Ratio: fmt.Sprintf("%.2f×", got/base)})
	}
	f = Figure{What: "run, one failing check printing 100 MB (peak RSS)", Target: "≤ 100 MiB"}
	if got, ok := r["BenchmarkRunFailingCheckLargeOutput"]; ok {
		mib := got.Metrics["maxrss-KiB"] / 1024
		f.Measured, f.Met = fmt.Sprintf("%.1f MiB", mib), mib > 0 && mib <= 100
	}
	figs = append(figs, f)
	if got, base, ok := times(r, "BenchmarkStopHookFromNpm", ""); ok {
		figs = append(figs, Figure{What: "stop hook, stop_hook_active, installed from npm", Reference: true,
			Measured: ms(got) + " (the binary, put in place by the install script)", Baseline: ms(base) + " (the Node launcher: --ignore-scripts)",
			Ratio: fmt.Sprintf("%.2f×", got/base)})
	}
	return figs
}

// Headings of BENCHMARKS.md: the hand-written notes (kept from one Bench
// to the next) and the raw output that follows them.
const (
	notesHeading = "## Notes"
	rawHeading   = "## Raw `go test -bench` output"
)

// KeptNotes returns the hand-written notes section of an earlier
// BENCHMARKS.md (from its heading to the raw output), "" when it has none.
func KeptNotes(old string) string {
	i := strings.Index(old, "\n"+notesHeading+"\n")
	if i < 0 {
		return ""
	}
	notes := old[i+1:]
	if j := strings.Index(notes, "\n"+rawHeading); j >= 0 {
		notes = notes[:j]
	}
	return strings.TrimSpace(notes) + "\n"
}

// RenderBenchmarks writes BENCHMARKS.md's content, notes (KeptNotes)
// before the raw output.
func RenderBenchmarks(figs []Figure, raw string, when time.Time, notes string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nWritten by `go tool mage bench` on %s (%s/%s, %d CPUs). Whole processes are\n", when.UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	b.WriteString("measured as children of a Go benchmark (`cli/internal/benchmarks`), each run next to the\nbaseline that its target names (alternating, under the same load); figures compare medians.\nThe git processes are those one run of the measured command started, counted through a\nshim on PATH in the same benchmark.\n\n")
	b.WriteString("| figure | measured | baseline | ratio | git processes | target | met |\n|---|---|---|---|---|---|---|\n")
	for _, f := range figs {
		met := "yes"
		switch {
		case f.Reference:
			met, f.Target = "—", "none (reference)"
		case !f.Met:
			met = "**no**"
		}
		if f.Measured == "" {
			f.Measured = "not measured"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", f.What, f.Measured, f.Baseline, f.Ratio, f.Git, f.Target, met)
	}
	for _, f := range figs {
		if !f.Met && !f.Reference {
			b.WriteString("\nTargets marked **no** are not met yet; docs/performance.md says why and what is planned.\n")
			break
		}
	}
	if notes != "" {
		b.WriteString("\n" + strings.TrimSpace(notes) + "\n")
	}
	b.WriteString("\n" + rawHeading + "\n\n```\n")
	b.WriteString(strings.TrimSpace(raw))
	b.WriteString("\n```\n")
	return b.String()
}

// Bench runs the Go and whole-process benchmarks, prints each figure against
// its baseline and writes BENCHMARKS.md. The Go benchmarks of every module
// run first; BENCHMARKS.md is written at the repository root.
func Bench(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	var raw bytes.Buffer
	// A module whose benchmarks fail does not stop the others: the figures
	// and BENCHMARKS.md are written with what was measured, and Bench
	// then reports the failures.
	var failed []string
	for _, m := range mods {
		pkgs := "./..."
		args := []string{"test", "-run", "^$", "-bench", ".", "-benchtime", "20x", "-count", "1", "-timeout", "60m"}
		cmd := exec.CommandContext(ctx, "go", append(args, pkgs)...)
		cmd.Dir = filepath.Join(root, m)
		cmd.Stdout = io.MultiWriter(&raw, Out)
		cmd.Stderr = Err
		fmt.Fprintf(Out, "+ (cd %s && go %s %s)\n", m, strings.Join(args, " "), pkgs)
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(Err, "benchmarks in %s: %v\n", m, err)
			failed = append(failed, m)
		}
	}
	figs := Figures(ParseBench(bytes.NewReader(raw.Bytes())))
	fmt.Fprintln(Out)
	for _, f := range figs {
		fmt.Fprintf(Out, "%-52s %-14s baseline %-22s ratio %-7s target %-40s met=%v\n", f.What, f.Measured, f.Baseline, f.Ratio, f.Target, f.Met)
	}
	out := filepath.Join(root, "BENCHMARKS.md")
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", out, err)
	}
	md := RenderBenchmarks(figs, filterBench(raw.String()), time.Now(), KeptNotes(string(old)))
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(Out, "wrote %s\n", out)
	if len(failed) > 0 {
		return fmt.Errorf("benchmarks failed in %s (BENCHMARKS.md has the others)", strings.Join(failed, ", "))
	}
	return nil
}

// filterBench keeps the benchmark lines, the package headers and the
// failures.
func filterBench(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Benchmark") || strings.HasPrefix(l, "pkg:") || strings.HasPrefix(l, "cpu:") ||
			strings.HasPrefix(l, "--- FAIL") || strings.HasPrefix(l, "FAIL\t") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
