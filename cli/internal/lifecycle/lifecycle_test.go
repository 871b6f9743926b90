package lifecycle

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// regressDir holds the minimal failing sequences, replayed on every run.
const regressDir = "testdata/regress"

// Environment of the tests (go tool mage soak sets them).
const (
	// envSequences is the number of random sequences (TestLifecycle: 6;
	// soak: 2000).
	envSequences = "LIFECYCLE_SEQUENCES"
	// envSteps is the average number of steps of a sequence (25).
	envSteps = "LIFECYCLE_STEPS"
	// envSoak enables TestLifecycleSoak; envSoakTime bounds it (30m).
	envSoak     = "LIFECYCLE_SOAK"
	envSoakTime = "LIFECYCLE_SOAK_TIME"
	// envSaveDir, when set, receives the minimal failing sequences found.
	envSaveDir = "LIFECYCLE_SAVE_DIR"
	// envReplay, when set, names the one replay file
	// TestLifecycleRegressions runs.
	envReplay = "LIFECYCLE_REPLAY"
)

// TestMain runs the tests, or the stand-in reviewer when the test binary is
// called as `claude`.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == reviewerName {
		os.Exit(reviewerMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
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

// configureRapid sets the number of sequences and steps; rapid's own fail
// files are off: minimal sequences are kept as readable steps instead.
func configureRapid(sequences int, shrink time.Duration) {
	setRapidFlag("rapid.checks", strconv.Itoa(sequences))
	setRapidFlag("rapid.steps", strconv.Itoa(envInt(envSteps, 25)))
	setRapidFlag("rapid.nofailfile", "true")
	setRapidFlag("rapid.shrinktime", shrink.String())
}

// recorder keeps, per violation signature, the shortest sequence that
// showed it: rapid shrinks a failure through ever smaller sequences, so the
// last kept one is the minimal one.
type recorder struct {
	mu      sync.Mutex
	best    map[string]string
	details map[string]string
}

func newRecorder() *recorder {
	return &recorder{best: map[string]string{}, details: map[string]string{}}
}

// record notes a failing sequence for each of its violations.
func (r *recorder) record(vs []violation, seq string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range vs {
		if cur, ok := r.best[v.Sig]; !ok || strings.Count(seq, "\n") <= strings.Count(cur, "\n") {
			r.best[v.Sig] = seq
			r.details[v.Sig] = v.Detail
		}
	}
}

// regressionText is the replay file of a sequence.
func regressionText(sig, detail, seq string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# signature: %s\n", sig)
	for _, l := range strings.Split(strings.TrimSpace(detail), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	b.WriteString(seq)
	return b.String()
}

// sigFileName is the replay file name of a signature.
func sigFileName(sig string) string {
	return regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(sig, "-") + ".txt"
}

// save writes the recorded sequences into dir (those whose signature is not
// in skip), and returns their signatures.
func (r *recorder) save(dir string, skip map[string]bool) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var saved []string
	for _, sig := range sortedKeys(r.best) {
		if skip[sig] {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return saved, err
		}
		p := filepath.Join(dir, sigFileName(sig))
		if err := os.WriteFile(p, []byte(regressionText(sig, r.details[sig], r.best[sig])), 0o644); err != nil {
			return saved, err
		}
		saved = append(saved, sig)
	}
	return saved, nil
}

// report logs the recorded sequences and saves them when envSaveDir is set.
func (r *recorder) report(t *testing.T, skip map[string]bool) []string {
	for _, sig := range sortedKeys(r.best) {
		if !skip[sig] {
			t.Logf("minimal sequence for %s:\n%s", sig, regressionText(sig, r.details[sig], r.best[sig]))
		}
	}
	dir := os.Getenv(envSaveDir)
	if dir == "" {
		return nil
	}
	saved, err := r.save(dir, skip)
	if err != nil {
		t.Errorf("save minimal sequences: %v", err)
	}
	return saved
}

// randomSequence is the rapid property: a fresh sandbox, a drawn
// configuration, then random steps, each checked.
func randomSequence(parent string, known map[string]bool, rec *recorder, count *atomic.Int64) func(*rapid.T) {
	return func(t *rapid.T) {
		count.Add(1)
		h, err := newHarness(t, parent, drawConfig(t), known, rec)
		if err != nil {
			t.Fatalf("sandbox: %v", err)
		}
		defer h.close()
		t.Logf("%s", h.m.cfg)
		t.Repeat(map[string]func(*rapid.T){
			"step": func(t *rapid.T) { h.do(drawStep(t, h.m)) },
		})
	}
}

// TestLifecycle runs random sequences of user and agent steps against the
// real binary and checks every lifecycle property after each step. A
// failure shrinks to a minimal sequence, logged (and saved into
// $LIFECYCLE_SAVE_DIR when set) in the replay format of testdata/regress.
func TestLifecycle(t *testing.T) {
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	configureRapid(envInt(envSequences, 6), 20*time.Second)
	rec := newRecorder()
	var count atomic.Int64
	start := time.Now()
	rapid.Check(t, randomSequence(t.TempDir(), nil, rec, &count))
	t.Logf("%d sequences in %s", count.Load(), time.Since(start).Round(time.Millisecond))
	if t.Failed() {
		rec.report(t, nil)
	}
}

// replay is a parsed replay file.
type replay struct {
	sig   string
	cfg   projectConfig
	steps []string
}

// parseReplay reads a replay file: comments ("# signature: ..." names the
// class), then a config line, then one step per line.
func parseReplay(text string) (replay, error) {
	var r replay
	seenConfig := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case strings.HasPrefix(l, "# signature: "):
			r.sig = strings.TrimPrefix(l, "# signature: ")
		case strings.HasPrefix(l, "#"):
		case !seenConfig:
			if _, err := fmt.Sscanf(l, "config max_retries=%d interval=%d", &r.cfg.MaxRetries, &r.cfg.Interval); err != nil {
				return r, fmt.Errorf("config line %q: %w", l, err)
			}
			seenConfig = true
		default:
			r.steps = append(r.steps, l)
		}
	}
	if !seenConfig {
		return r, fmt.Errorf("no config line")
	}
	return r, nil
}

// replayFile runs the steps of a replay file, checking every property.
func replayFile(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseReplay(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	h, err := newHarness(t, t.TempDir(), r.cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	for _, s := range r.steps {
		h.do(s)
	}
}

// TestLifecycleRegressions replays every minimal failing sequence found so
// far (testdata/regress/*.txt): each must now keep every property.
func TestLifecycleRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(regressDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if one := os.Getenv(envReplay); one != "" {
		files = []string{one}
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { replayFile(t, f) })
	}
}

// knownSignatures reads the signatures of the committed regressions.
func knownSignatures() map[string]bool {
	known := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(regressDir, "*.txt"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			if r, err := parseReplay(string(data)); err == nil && r.sig != "" {
				known[r.sig] = true
			}
		}
	}
	return known
}

// TestLifecycleSoak is `go tool mage soak`: many more sequences (envSequences,
// 2000 by default, within envSoakTime, 30m by default), in rounds of 50. A
// sequence that breaks only known signatures (committed regressions, or
// found earlier in the soak) stops checking; a new signature fails its
// round, shrinks, and is saved (envSaveDir) so the soak goes on to find
// the next one.
func TestLifecycleSoak(t *testing.T) {
	if os.Getenv(envSoak) == "" {
		t.Skip("soak: run `go tool mage soak` (sets " + envSoak + "=1)")
	}
	if _, err := gauntletBinary(); err != nil {
		t.Fatal(err)
	}
	total := envInt(envSequences, 2000)
	budget, err := time.ParseDuration(os.Getenv(envSoakTime))
	if err != nil || budget <= 0 {
		budget = 30 * time.Minute
	}
	known := knownSignatures()
	committed := len(known)
	rec := newRecorder()
	var count atomic.Int64
	start := time.Now()
	parent := t.TempDir()
	var found []string
	for round := 0; int(count.Load()) < total && time.Since(start) < budget; round++ {
		configureRoundRapid(min(50, total-int(count.Load())))
		t.Run(fmt.Sprintf("round-%d", round), func(t *testing.T) {
			rapid.Check(t, randomSequence(parent, known, rec, &count))
		})
		var fresh []string
		for _, sig := range sortedKeys(rec.best) {
			if !known[sig] {
				known[sig] = true
				fresh = append(fresh, sig)
			}
		}
		found = append(found, fresh...)
		fmt.Printf("soak round %d: %d sequences in %s; new: %s\n", round, count.Load(),
			time.Since(start).Round(time.Second), strings.Join(fresh, ", "))
	}
	elapsed := time.Since(start)
	rate := float64(count.Load()) / elapsed.Minutes()
	fmt.Printf("soak: %d sequences in %s (%.1f sequences/minute); %d known signatures, %d new: %s\n",
		count.Load(), elapsed.Round(time.Second), rate, committed, len(found), strings.Join(found, ", "))
	if len(found) > 0 {
		rec.report(t, map[string]bool{})
	}
}

// configureRoundRapid sets the checks of one soak round (the flag is read
// at each rapid.Check).
func configureRoundRapid(n int) {
	_ = flag.Set("rapid.checks", strconv.Itoa(n))
	setRapidFlag("rapid.steps", strconv.Itoa(envInt(envSteps, 25)))
	setRapidFlag("rapid.nofailfile", "true")
	setRapidFlag("rapid.shrinktime", "5m")
}
