package targets

import (
	"strings"
	"testing"
	"time"
)

func TestParseBenchAndFigures(t *testing.T) {
	out := `goos: linux
BenchmarkBaselineGitRevParse-2        	      20	   2000000 ns/op	      4000 maxrss-KiB
BenchmarkStopHookNoConfig-2           	      20	   2500000 ns/op	      9000 maxrss-KiB
BenchmarkStopHookActive-2             	      20	   4000000 ns/op	     20000 maxrss-KiB
BenchmarkBaselineShTrue-2             	      20	   1000000 ns/op
BenchmarkRunOneTrueCheck-2            	      20	  25000000 ns/op
BenchmarkRunEightParallelSleeps-2     	      20	 600000000 ns/op
PASS`
	r := ParseBench(strings.NewReader(out))
	if len(r) != 6 {
		t.Fatalf("parsed %d results, want 6: %v", len(r), r)
	}
	if got := r["BenchmarkStopHookActive"].Metrics["maxrss-KiB"]; got != 20000 {
		t.Fatalf("maxrss = %v", got)
	}
	figs := Figures(r)
	want := map[string]bool{
		"stop hook, no config (wall)":                      true,  // 1.25×
		"stop hook, no config (peak RSS)":                  true,  // 8.8 MiB
		"stop hook, stop_hook_active (wall)":               false, // 2×
		"stop hook, stop_hook_active (peak RSS)":           false, // 19.5 MiB
		"stop hook, lock present (wall)":                   false, // not measured
		"run overhead beyond one `true` check":             true,  // 24 ms
		"8 parallel `sleep 0.5` checks (whole run)":        false, // 600 ms
		"change detection, 10,000 files, 200 entry points": false, // not measured
	}
	seen := 0
	for _, f := range figs {
		if w, ok := want[f.What]; ok {
			seen++
			if f.Met != w {
				t.Errorf("%s: met = %v, want %v (%+v)", f.What, f.Met, w, f)
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("saw %d of %d figures", seen, len(want))
	}
	md := RenderBenchmarks(figs, out, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), "")
	for _, s := range []string{"# Benchmarks", "2026-11-22", "| stop hook, no config (wall) | 2.50 ms | 2.00 ms | 1.25× |", "**no**", "not measured", "docs/performance.md says why"} {
		if !strings.Contains(md, s) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", s, md)
		}
	}
}

func TestFiguresPairedMedians(t *testing.T) {
	out := `BenchmarkStopHookActive-2             	      20	   9000000 ns/op	      8000 maxrss-KiB	   3000000 med-ns	   2500000 base-med-ns	         0 git-calls
BenchmarkStopHookNoConfig-2           	      20	   3000000 ns/op	      8000 maxrss-KiB	   3000000 med-ns	   2500000 base-med-ns	         2 git-calls
BenchmarkRunOneTrueCheck-2            	      20	  60000000 ns/op	      9000 maxrss-KiB	  40000000 med-ns	  15000000 base-med-ns	         7 git-calls
BenchmarkRunEightParallelSleeps-2     	      20	 600000000 ns/op	      9000 maxrss-KiB	 540000000 med-ns	         4 git-calls
BenchmarkDetectTenThousandFiles-2     	      20	 300000000 ns/op	     14000 maxrss-KiB	 200000000 med-ns	 150000000 base-med-ns	         4 git-calls
BenchmarkStopHookCachedTenThousandFiles-2 	      20	  60000000 ns/op	     12000 maxrss-KiB	  50000000 med-ns	  30000000 base-med-ns	         3 git-calls
BenchmarkStopHookCachedTenSlowGates-2 	      20	  90000000 ns/op	     12000 maxrss-KiB	  44000000 med-ns	  30000000 base-med-ns	         3 git-calls
BenchmarkStopHookCachedRevert-2 	      20	  90000000 ns/op	     12000 maxrss-KiB	  49000000 med-ns	  30000000 base-med-ns	         3 git-calls
BenchmarkStopHookCachedPreExisting-2 	      20	  90000000 ns/op	     12000 maxrss-KiB	  51000000 med-ns	  30000000 base-med-ns	         3 git-calls
BenchmarkRunFailingCheckLargeOutput-2 	      20	 900000000 ns/op	    120000 maxrss-KiB	 800000000 med-ns	 200000000 base-med-ns	         9 git-calls`
	figs := Figures(ParseBench(strings.NewReader(out)))
	want := map[string]struct {
		measured string
		met      bool
	}{
		"stop hook, stop_hook_active (wall)":                                                   {"3.00 ms", true}, // medians: 1.2×, not the 3.6× of the means
		"stop hook, stop_hook_active (git calls)":                                              {"0", true},
		"stop hook, no config (git calls)":                                                     {"2", false},
		"stop hook, lock present (git calls)":                                                  {"", false},
		"run overhead beyond one `true` check":                                                 {"25.00 ms", true},
		"8 parallel `sleep 0.5` checks (whole run)":                                            {"540.00 ms", true},
		"change detection, 10,000 files, 200 entry points":                                     {"200.00 ms", true},
		"stop hook, interval 0, nothing new since a pass, 10,000 files":                        {"50.00 ms", false}, // 1.67×
		"same, 10 gates of 1 s each (none runs)":                                               {"44.00 ms", true},  // 1.47×
		"stop hook, nothing new since a fix that put a file back as on the base, 10,000 files": {"49.00 ms", true},
		"stop hook, nothing new since a pre-existing failure, 10,000 files":                    {"51.00 ms", false},
		"run, one failing check printing 100 MB (peak RSS)":                                    {"117.2 MiB", false},
	}
	for _, f := range figs {
		if w, ok := want[f.What]; ok {
			delete(want, f.What)
			if f.Measured != w.measured || f.Met != w.met {
				t.Errorf("%s: measured %q met %v, want %q %v (%+v)", f.What, f.Measured, f.Met, w.measured, w.met, f)
			}
		}
	}
	for what := range want {
		t.Errorf("no figure %q", what)
	}
	// The git processes are the benchmarks' counts, on every figure measured.
	git := map[string]string{
		"stop hook, stop_hook_active (wall)":                                "0",
		"stop hook, no config (wall)":                                       "2",
		"stop hook, lock present (wall)":                                    "",
		"run overhead beyond one `true` check":                              "7",
		"8 parallel `sleep 0.5` checks (whole run)":                         "4",
		"stop hook, interval 0, nothing new since a pass, 10,000 files":     "3",
		"stop hook, nothing new since a pre-existing failure, 10,000 files": "3",
	}
	for _, f := range figs {
		if w, ok := git[f.What]; ok && f.Git != w {
			t.Errorf("%s: git processes %q, want %q", f.What, f.Git, w)
		}
	}
	md := RenderBenchmarks(figs, out, time.Now(), "")
	if !strings.Contains(md, "| git processes |") || !strings.Contains(md, "| 30.00 ms | 1.67× | 3 | ≤ 1.5× git status --porcelain | **no** |") {
		t.Errorf("the git processes are not in the table:\n%s", md)
	}
}

// The stop hook's figures show what it costs beyond an empty Go program,
// measured in the same run, as a reference with no target.
func TestFiguresEmptyGoProgram(t *testing.T) {
	out := `BenchmarkStopHookActive-2             	      20	   2000000 ns/op	   1500000 base-med-ns	         0 git-calls	   1000000 go-med-ns	      6000 maxrss-KiB	   2100000 med-ns`
	figs := Figures(ParseBench(strings.NewReader(out)))
	var ref *Figure
	for i, f := range figs {
		if f.What == "stop hook, stop_hook_active (beyond an empty Go program)" {
			ref = &figs[i]
		}
		if f.What == "stop hook, no config (beyond an empty Go program)" {
			t.Errorf("a reference figure for an unmeasured benchmark: %+v", f)
		}
	}
	if ref == nil || ref.Measured != "1.10 ms" || ref.Baseline != "1.00 ms (empty Go program)" || ref.Ratio != "2.10×" || !ref.Reference {
		t.Fatalf("reference figure %+v", ref)
	}
	md := RenderBenchmarks([]Figure{*ref}, out, time.Now(), "")
	if !strings.Contains(md, "| none (reference) | — |") || strings.Contains(md, "**no**") || strings.Contains(md, "not met yet") {
		t.Errorf("a reference figure is rendered as a target:\n%s", md)
	}
}

// The stop hook installed from npm is shown, as a reference, against the
// Node launcher it replaces, measured in the same run; not at all when it
// was not measured (no npm).
func TestFiguresNpm(t *testing.T) {
	find := func(figs []Figure) *Figure {
		for i, f := range figs {
			if strings.Contains(f.What, "installed from npm") {
				return &figs[i]
			}
		}
		return nil
	}
	if f := find(Figures(ParseBench(strings.NewReader("BenchmarkStopHookActive-2 20 2000000 ns/op")))); f != nil {
		t.Errorf("a figure for an unmeasured benchmark: %+v", f)
	}
	out := `BenchmarkStopHookFromNpm-2   	      20	   3129451 ns/op	  75000000 base-med-ns	   3000000 med-ns`
	f := find(Figures(ParseBench(strings.NewReader(out))))
	if f == nil || !f.Reference || !strings.HasPrefix(f.Measured, "3.00 ms") || !strings.HasPrefix(f.Baseline, "75.00 ms") || f.Ratio != "0.04×" {
		t.Errorf("npm figure %+v", f)
	}
}

// Bench keeps the hand-written notes of BENCHMARKS.md, between the table
// and the raw output, when it writes the file again.
func TestKeptNotes(t *testing.T) {
	notes := "## Notes\n\nWhy the stop hook costs what it costs.\n"
	first := RenderBenchmarks(nil, "BenchmarkX-2 1 1 ns/op", time.Now(), notes)
	kept := KeptNotes(first)
	if kept != notes {
		t.Fatalf("KeptNotes = %q, want %q", kept, notes)
	}
	second := RenderBenchmarks(nil, "BenchmarkY-2 1 1 ns/op", time.Now(), kept)
	if strings.Count(second, "## Notes") != 1 || !strings.Contains(second, "Why the stop hook") ||
		strings.Index(second, "## Notes") > strings.Index(second, "## Raw") || strings.Contains(second, "BenchmarkX") {
		t.Fatalf("rewritten file:\n%s", second)
	}
	if got := KeptNotes("# Benchmarks\n\n## Raw `go test -bench` output\n"); got != "" {
		t.Errorf("KeptNotes of a file without notes = %q", got)
	}
}
