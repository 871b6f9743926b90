//go:build unix

package lifecycle

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"pgregory.net/rapid"
)

// regressDir holds the minimal failing sequences that agent-gauntlet now
// passes, replayed on every run; pendingDir those it does not pass yet
// (each says why in a "# pending:" line), whose signatures the other tests
// tolerate until they are promoted to regressDir.
const (
	regressDir = "testdata/regress"
	pendingDir = "testdata/pending"
)

// Environment of the tests (go tool mage soak sets them).
const (
	// envSequences is the number of random sequences (TestLifecycle: 5;
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
	// envVerbose, when set, logs the output of every command.
	envVerbose = "LIFECYCLE_VERBOSE"
	// envPending enables TestLifecyclePending.
	envPending = "LIFECYCLE_PENDING"
)

// TestMain runs the tests, or the stand-in reviewer when the test binary is
// called as `claude`.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == reviewerName {
		os.Exit(reviewerMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	testbin.Remove()
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

// regressionText is the replay file of a sequence that shows the
// violations of sigs (their details as comments).
func regressionText(sigs []string, details map[string]string, seq string) string {
	var b strings.Builder
	for _, sig := range sigs {
		fmt.Fprintf(&b, "# signature: %s\n", sig)
	}
	for _, sig := range sigs {
		for _, l := range strings.Split(strings.TrimSpace(details[sig]), "\n") {
			fmt.Fprintf(&b, "# %s\n", l)
		}
	}
	b.WriteString(seq)
	return b.String()
}

// sigFileName is the replay file name of a signature.
func sigFileName(sig string) string {
	return regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(sig, "-") + ".txt"
}

// groups returns the recorded signatures not in skip, grouped by their
// sequence (one violating step often breaks several properties), in order.
func (r *recorder) groupsLocked(skip map[string]bool) [][]string {
	bySeq := map[string][]string{}
	var order []string
	for _, sig := range sortedKeys(r.best) {
		if skip[sig] {
			continue
		}
		seq := r.best[sig]
		if _, ok := bySeq[seq]; !ok {
			order = append(order, seq)
		}
		bySeq[seq] = append(bySeq[seq], sig)
	}
	out := make([][]string, 0, len(order))
	for _, seq := range order {
		out = append(out, bySeq[seq])
	}
	return out
}

// save writes one replay file per group of recorded signatures (those not
// in skip) into dir, minimized by replays under parent (tolerating the
// known signatures), and returns the signatures saved.
func (r *recorder) save(dir, parent string, skip, known map[string]bool) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var saved []string
	for _, g := range r.groupsLocked(skip) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return saved, err
		}
		p := filepath.Join(dir, sigFileName(g[0]))
		if err := os.WriteFile(p, []byte(regressionText(g, r.details, r.best[g[0]])), 0o644); err != nil {
			return saved, err
		}
		if parent != "" {
			if _, _, err := minimizeFile(parent, p, known); err != nil {
				note := "# not reproduced on replay: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
				data, _ := os.ReadFile(p)
				_ = os.WriteFile(p, append([]byte(note), data...), 0o644)
			}
		}
		saved = append(saved, g...)
	}
	return saved, nil
}

// report logs the recorded sequences and saves them when envSaveDir is set.
func (r *recorder) report(t *testing.T, skip map[string]bool) {
	r.mu.Lock()
	for _, g := range r.groupsLocked(skip) {
		t.Logf("minimal sequence:\n%s", regressionText(g, r.details, r.best[g[0]]))
	}
	r.mu.Unlock()
	if dir := os.Getenv(envSaveDir); dir != "" {
		if _, err := r.save(dir, t.TempDir(), skip, skip); err != nil {
			t.Errorf("save minimal sequences: %v", err)
		}
	}
}

// counter counts the sequences rapid explores: those it runs before the
// first failure of a rapid.Check, not the replays that shrink it.
type counter struct {
	n         atomic.Int64
	shrinking atomic.Bool
}

// start counts a sequence unless a failure is being shrunk.
func (c *counter) start() {
	if !c.shrinking.Load() {
		c.n.Add(1)
	}
}

// stop ends the counting until the next rapid.Check (reset).
func (c *counter) stop() { c.shrinking.Store(true) }

// reset counts again.
func (c *counter) reset() { c.shrinking.Store(false) }

// randomSequence is the rapid property: a fresh sandbox, a drawn
// configuration, then random steps, each checked.
func randomSequence(parent string, known map[string]bool, rec *recorder, count *counter) func(*rapid.T) {
	return func(t *rapid.T) {
		count.start()
		h, err := newHarness(t, parent, drawConfig(t), known, rec)
		if err != nil {
			t.Fatalf("sandbox: %v", err)
		}
		h.failed = count.stop
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
	configureRapid(envInt(envSequences, 5), 10*time.Second)
	rec := newRecorder()
	var count counter
	start := time.Now()
	known := signaturesIn(pendingDir)
	rapid.Check(t, randomSequence(t.TempDir(), known, rec, &count))
	t.Logf("%d sequences in %s", count.n.Load(), time.Since(start).Round(time.Millisecond))
	if t.Failed() {
		rec.report(t, known)
	}
}

// replay is a parsed replay file.
type replay struct {
	// sigs are the signatures its last step shows (the first one is what
	// it was minimized for).
	sigs  []string
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
			r.sigs = append(r.sigs, strings.TrimPrefix(l, "# signature: "))
		case strings.HasPrefix(l, "#"):
		case !seenConfig:
			cfg, err := parseConfigLine(l)
			if err != nil {
				return r, fmt.Errorf("config line %q: %w", l, err)
			}
			r.cfg = cfg
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

// readReplay reads and parses a replay file.
func readReplay(t *testing.T, path string) replay {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseReplay(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// replayFile runs the steps of a replay file, checking every property;
// violations of the known signatures are logged and tolerated.
func replayFile(t *testing.T, path string, known map[string]bool) {
	replaySteps(t, readReplay(t, path), known)
}

// replaySteps runs the steps of a parsed replay, checking every property;
// violations of the known signatures are logged and tolerated.
func replaySteps(t *testing.T, r replay, known map[string]bool) {
	h, err := newHarness(t, t.TempDir(), r.cfg, known, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	for _, s := range r.steps {
		h.do(s)
	}
}

// TestLifecycleRegressions replays every minimal failing sequence found so
// far (testdata/regress/*.txt): each must now keep every property but those
// still pending (testdata/pending).
func TestLifecycleRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(regressDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if one := os.Getenv(envReplay); one != "" {
		files = []string{one}
	}
	known := signaturesIn(pendingDir)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			replayFile(t, f, known)
		})
	}
}

// TestLifecyclePending replays the sequences agent-gauntlet does not pass
// yet (testdata/pending/*.txt, with LIFECYCLE_PENDING=1; go tool mage soak
// runs it too): each must still break the property of its first
// signature line. One that no longer does shows a fix: move it to
// testdata/regress/.
func TestLifecyclePending(t *testing.T) {
	if os.Getenv(envPending) == "" {
		t.Skip("set " + envPending + "=1 to replay testdata/pending")
	}
	files, err := filepath.Glob(filepath.Join(pendingDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if one := os.Getenv(envReplay); one != "" {
		files = []string{one}
	}
	pending := signaturesIn(pendingDir)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			r := readReplay(t, f)
			if len(r.sigs) == 0 {
				t.Fatalf("%s has no signature line", f)
			}
			others := maps.Clone(pending)
			delete(others, r.sigs[0])
			delete(others, sigClass(r.sigs[0]))
			got, _, err := replay1(t.TempDir(), r.cfg, r.steps, others)
			if err != nil {
				t.Fatal(err)
			}
			if got[r.sigs[0]] == "" {
				t.Errorf("%s no longer breaks %s (it breaks %v): agent-gauntlet fixed it; move it to %s", f, r.sigs[0], sortedKeys(got), regressDir)
			}
		})
	}
}

// signaturesIn reads the signatures of the replay files of dirs.
func signaturesIn(dirs ...string) map[string]bool {
	known := map[string]bool{}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				if r, err := parseReplay(string(data)); err == nil {
					for _, sig := range r.sigs {
						known[sig], known[sigClass(sig)] = true, true
					}
				}
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
// the next one. A known signature broken again fails the soak too (its
// committed fix does not hold the whole class), and every minimal
// sequence, new or known, is logged at the end.
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
	known := signaturesIn(regressDir, pendingDir)
	committed := len(known)
	rec := newRecorder()
	var count counter
	start := time.Now()
	parent := t.TempDir()
	var found []string
	for round := 0; int(count.n.Load()) < total && time.Since(start) < budget; round++ {
		count.reset()
		configureRoundRapid(min(50, total-int(count.n.Load())))
		t.Run(fmt.Sprintf("round-%d", round), func(t *testing.T) {
			rapid.Check(t, randomSequence(parent, known, rec, &count))
		})
		var fresh []string
		for _, sig := range sortedKeys(rec.best) {
			if !known[sig] && !known[sigClass(sig)] {
				known[sig], known[sigClass(sig)] = true, true
				fresh = append(fresh, sig)
			}
		}
		found = append(found, fresh...)
		if dir := os.Getenv(envSaveDir); dir != "" && len(fresh) > 0 {
			skip := map[string]bool{}
			for sig := range rec.best {
				skip[sig] = !slices.Contains(fresh, sig)
			}
			if _, err := rec.save(dir, parent, skip, known); err != nil {
				t.Errorf("save minimal sequences: %v", err)
			}
		}
		fmt.Printf("soak round %d: %d sequences in %s; new: %s\n", round, count.n.Load(),
			time.Since(start).Round(time.Second), strings.Join(fresh, ", "))
	}
	elapsed := time.Since(start)
	rate := float64(count.n.Load()) / elapsed.Minutes()
	var again []string // known signatures broken again: a regression replay's fix is not whole
	for _, sig := range sortedKeys(rec.best) {
		if !slices.Contains(found, sig) {
			again = append(again, sig)
		}
	}
	fmt.Printf("soak: %d sequences in %s (%.1f sequences/minute); %d known signatures, %d new: %s; %d known broken again: %s\n",
		count.n.Load(), elapsed.Round(time.Second), rate, committed, len(found), strings.Join(found, ", "),
		len(again), strings.Join(again, ", "))
	rec.mu.Lock()
	for _, g := range rec.groupsLocked(map[string]bool{}) {
		t.Logf("minimal sequence:\n%s", regressionText(g, rec.details, rec.best[g[0]]))
	}
	rec.mu.Unlock()
	if len(again) > 0 {
		t.Errorf("known signatures broken again (another member of a committed regression's class): %s", strings.Join(again, ", "))
	}
}

// configureRoundRapid sets the checks of one soak round (the flag is read
// at each rapid.Check).
func configureRoundRapid(n int) {
	_ = flag.Set("rapid.checks", strconv.Itoa(n))
	setRapidFlag("rapid.steps", strconv.Itoa(envInt(envSteps, 25)))
	setRapidFlag("rapid.nofailfile", "true")
	setRapidFlag("rapid.shrinktime", "2m")
}
