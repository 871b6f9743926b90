//go:build unix

package cachediff

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"pgregory.net/rapid"
)

// regressDir holds the minimal failing sequences, replayed on every run.
const regressDir = "testdata/regress"

// Environment of the tests (go tool mage soak sets them).
const (
	// envSequences is the number of random sequences (TestCacheDiff: 3;
	// the soak: 300).
	envSequences = "CACHEDIFF_SEQUENCES"
	// envSteps is the average number of steps of a sequence (12).
	envSteps = "CACHEDIFF_STEPS"
	// envSoak enables TestCacheDiffSoak; envSoakTime bounds it (30m).
	envSoak     = "CACHEDIFF_SOAK"
	envSoakTime = "CACHEDIFF_SOAK_TIME"
	// envSaveDir, when set, receives the minimal failing sequence.
	envSaveDir = "CACHEDIFF_SAVE_DIR"
)

// TestMain runs the tests, or the stand-in reviewer when the test binary is
// called as `claude`.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == reviewerName {
		os.Exit(reviewerMain(os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}

// tb is what the harness needs of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// stats count, over every run of the cached side, the gates reported, those
// taken from the cache, those the model expected to be taken, and those
// it expected that were.
type stats struct {
	gates, cached, expected, hit atomic.Int64
	sequences, steps             atomic.Int64
}

// String says the hit rates.
func (s *stats) String() string {
	rate := func(a, b int64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
	}
	return fmt.Sprintf("%d sequences, %d steps: %d gate results, %d from the cache (%s); %d expected from the cache (input unchanged since proven), %d were (%s)",
		s.sequences.Load(), s.steps.Load(), s.gates.Load(), s.cached.Load(), rate(s.cached.Load(), s.gates.Load()),
		s.expected.Load(), s.hit.Load(), rate(s.hit.Load(), s.expected.Load()))
}

// harness runs one sequence's steps in one sandbox, checking the
// properties after each.
type harness struct {
	t     tb
	bin   string
	s     *sandbox
	cfg   setup
	steps []string
	// proven are, per gate, the inputs (fingerprints) under which the
	// cached side recorded a verdict.
	proven map[string]map[string]bool
	stats  *stats
}

// newHarness makes the sandbox of a sequence under parent.
func newHarness(t tb, parent string, cfg setup, st *stats) (*harness, error) {
	bin, err := gauntletBinary()
	if err != nil {
		return nil, err
	}
	s, err := newSandbox(parent, cfg)
	if err != nil {
		return nil, err
	}
	st.sequences.Add(1)
	return &harness{t: t, bin: bin, s: s, cfg: cfg, proven: map[string]map[string]bool{}, stats: st}, nil
}

// sequence is the replayable text of the steps so far.
func (h *harness) sequence() string {
	return h.cfg.String() + "\n" + strings.Join(h.steps, "\n") + "\n"
}

// errViolation marks a broken property.
var errViolation = errors.New("cache property violated")

// do applies step and checks the properties: the same verdict with and
// without the cache for every gate, and a verdict from the cache for every
// gate whose input did not change since it was proven.
func (h *harness) do(step string) error {
	h.t.Helper()
	h.steps = append(h.steps, step)
	h.stats.steps.Add(1)
	if err := h.s.apply(step); err != nil {
		return fmt.Errorf("step %q: %w", step, err)
	}
	copyDir, err := h.s.copyRepo()
	if err != nil {
		return err
	}
	defer os.RemoveAll(copyDir)
	_, unheld, err := h.s.fingerprint(".")
	if err != nil {
		return err
	}
	inputs := map[string]string{}
	cached, cachedErr, err := h.s.run(h.bin, h.s.repo)
	if err != nil {
		return err
	}
	fresh, _, err := h.s.run(h.bin, copyDir, "--no-cache")
	if err != nil {
		return err
	}
	byID := map[string]string{}
	for _, g := range fresh.Gates {
		byID[g.ID] = g.Status
	}
	var problems []string
	if cached.Status == "error" || fresh.Status == "error" {
		problems = append(problems, fmt.Sprintf("run status %s with the cache, %s without", cached.Status, fresh.Status))
	}
	if len(cached.Gates) != len(fresh.Gates) {
		problems = append(problems, fmt.Sprintf("gates with the cache %d, without %d", len(cached.Gates), len(fresh.Gates)))
	}
	for _, g := range cached.Gates {
		h.stats.gates.Add(1)
		isCached := len(g.Cached) > 0 && string(g.Cached) != "null"
		if isCached {
			h.stats.cached.Add(1)
		}
		want, ok := byID[g.ID]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s ran with the cache only", g.ID))
		case want != g.Status:
			how := "ran"
			if isCached {
				how = "taken from the cache"
			}
			problems = append(problems, fmt.Sprintf("%s: %s with the cache (%s), %s without", g.ID, g.Status, how, want))
		}
		setting, scoped := h.cfg.gateCache(g.ID)
		if setting == "false" || scoped || unheld {
			continue
		}
		scope := gateScope(g.ID, setting)
		input, ok := inputs[scope]
		if !ok {
			var scopeUnheld bool
			if input, scopeUnheld, err = h.s.fingerprint(scope); err != nil {
				return err
			}
			if scopeUnheld {
				continue
			}
			inputs[scope] = input
		}
		if h.proven[g.ID][input] {
			h.stats.expected.Add(1)
			if isCached {
				h.stats.hit.Add(1)
			} else {
				problems = append(problems, fmt.Sprintf("%s ran although its input was proven before (%s)", g.ID, input))
			}
		}
		if !isCached && (g.Status == "pass" || g.Status == "pre_existing") {
			if h.proven[g.ID] == nil {
				h.proven[g.ID] = map[string]bool{}
			}
			h.proven[g.ID][input] = true
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w after %q:\n  %s\nsequence:\n%s\ncached run's console:\n%s", errViolation, step,
			strings.Join(problems, "\n  "), h.sequence(), cachedErr)
	}
	return nil
}

// envInt reads a positive integer from the environment.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// setRapidFlag sets a rapid flag unless the command line set it.
func setRapidFlag(name, value string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set {
		_ = flag.Set(name, value)
	}
}

// property is the rapid property: a drawn setup, then random steps.
func property(parent string, st *stats) func(*rapid.T) {
	return func(t *rapid.T) {
		h, err := newHarness(t, parent, drawSetup(t), st)
		if err != nil {
			t.Fatalf("sandbox: %v", err)
		}
		defer h.s.remove()
		t.Repeat(map[string]func(*rapid.T){
			"step": func(t *rapid.T) {
				if err := h.do(drawStep(t)); err != nil {
					save(h.sequence(), err)
					t.Fatalf("%v", err)
				}
			},
		})
	}
}

// save writes a failing sequence into $CACHEDIFF_SAVE_DIR, when set: the
// last one written, after rapid's shrinking, is the minimal one.
func save(seq string, err error) {
	dir := os.Getenv(envSaveDir)
	if dir == "" {
		return
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	text := "# " + strings.TrimSpace(strings.SplitN(first, "after", 2)[0]) + "\n" + seq
	name := fmt.Sprintf("found-%s.txt", time.Now().Format("20060102"))
	_ = os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
}

// run checks sequences random sequences and prints the hit rate.
func runSequences(t *testing.T, sequences int) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	setRapidFlag("rapid.checks", strconv.Itoa(sequences))
	setRapidFlag("rapid.steps", strconv.Itoa(envInt(envSteps, 12)))
	setRapidFlag("rapid.nofailfile", "true")
	var st stats
	start := time.Now()
	rapid.Check(t, property(t.TempDir(), &st))
	t.Logf("%s in %s", &st, time.Since(start).Round(time.Second))
	fmt.Printf("cachediff: %s in %s\n", &st, time.Since(start).Round(time.Second))
}

// TestCacheDiff runs a few random sequences (go tool mage test).
func TestCacheDiff(t *testing.T) {
	runSequences(t, envInt(envSequences, 3))
}

// TestCacheDiffSoak runs many more (go tool mage soak).
func TestCacheDiffSoak(t *testing.T) {
	if os.Getenv(envSoak) == "" {
		t.Skip("soak: run `go tool mage soak` (sets " + envSoak + "=1)")
	}
	runSequences(t, envInt(envSequences, 300))
}

// TestCacheDiffRegressions replays every minimal failing sequence found so
// far: each must now keep both properties.
func TestCacheDiffRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(regressDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var cfg setup
			var steps []string
			seen := false
			for _, l := range strings.Split(string(data), "\n") {
				l = strings.TrimSpace(l)
				switch {
				case l == "" || strings.HasPrefix(l, "#"):
				case !seen:
					if cfg, err = parseSetup(l); err != nil {
						t.Fatal(err)
					}
					seen = true
				default:
					steps = append(steps, l)
				}
			}
			var st stats
			h, err := newHarness(t, t.TempDir(), cfg, &st)
			if err != nil {
				t.Fatal(err)
			}
			defer h.s.remove()
			for _, s := range steps {
				if err := h.do(s); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s", &st)
		})
	}
}
