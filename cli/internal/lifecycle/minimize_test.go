//go:build unix

package lifecycle

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
)

// fatal is what quietTB.Fatalf panics with.
type fatal struct{ msg string }

// quietTB runs a harness outside the test's log: Fatalf ends the replay.
type quietTB struct{}

func (quietTB) Helper() {}
func (quietTB) Logf(f string, a ...any) {
	if os.Getenv(envVerbose) != "" {
		fmt.Fprintf(os.Stderr, f+"\n", a...)
	}
}
func (quietTB) Fatalf(f string, a ...any) { panic(fatal{fmt.Sprintf(f, a...)}) }

// replay1 replays cfg and steps in a fresh sandbox under parent and returns
// the violations found up to the first step that breaks a property not in
// known (all of them when none does), by signature, and the signature the
// replay failed with ("" when it did not).
func replay1(parent string, cfg projectConfig, steps []string, known map[string]bool) (sigs map[string]string, first string, err error) {
	rec := newRecorder()
	h, err := newHarness(quietTB{}, parent, cfg, known, rec)
	if err != nil {
		return nil, "", err
	}
	defer h.close()
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			sigs, first = rec.details, strings.TrimPrefix(f.msg, "lifecycle property violated: ")
		}
	}()
	for _, s := range steps {
		h.do(s)
	}
	return rec.details, "", nil
}

// minimize removes steps (chunks, then single steps) as long as the replay
// still breaks the property sig (the violations of known signatures do not
// end a replay), and returns the shortest sequence found; ok is false when
// the whole sequence does not reproduce sig.
func minimize(parent string, cfg projectConfig, steps []string, sig string, known map[string]bool) (min []string, ok bool, err error) {
	if got, _, err := replay1(parent, cfg, steps, known); err != nil || got[sig] == "" {
		return steps, false, err
	}
	for chunk := max(1, len(steps)/2); chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(steps); {
			cand := append(append([]string{}, steps[:i]...), steps[i+chunk:]...)
			got, _, err := replay1(parent, cfg, cand, known)
			if err != nil {
				return steps, true, err
			}
			if got[sig] != "" {
				steps = cand
				continue
			}
			i++
		}
	}
	return steps, true, nil
}

// minimizeFile minimizes a replay file in place; the violations of the
// known signatures (but its own) are tolerated on the way.
func minimizeFile(parent, path string, known map[string]bool) (before, after int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	r, err := parseReplay(string(data))
	if err != nil {
		return 0, 0, err
	}
	if len(r.sigs) == 0 {
		return 0, 0, fmt.Errorf("%s: no signature line", path)
	}
	primary := r.sigs[0]
	others := maps.Clone(known)
	delete(others, primary)
	delete(others, sigClass(primary))
	if got, first, err := replay1(parent, r.cfg, r.steps, others); err == nil && got[primary] == "" && first != "" {
		primary = first // signatures were renamed: take the one it fails with
	}
	steps, ok, err := minimize(parent, r.cfg, r.steps, primary, others)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return len(r.steps), len(r.steps), fmt.Errorf("%s does not reproduce %s", path, primary)
	}
	details, _, err := replay1(parent, r.cfg, steps, others)
	if err != nil {
		return 0, 0, err
	}
	sigs := []string{primary}
	for _, sig := range sortedKeys(details) {
		if sig != primary {
			sigs = append(sigs, sig)
		}
	}
	text := regressionText(sigs, details, r.cfg.String()+"\n"+strings.Join(steps, "\n")+"\n")
	return len(r.steps), len(steps), os.WriteFile(path, []byte(text), 0o644)
}

// TestLifecycleMinimize minimizes the replay files named in
// LIFECYCLE_MINIMIZE (comma-separated): steps are removed while the replay
// still breaks the property of its signature line.
func TestLifecycleMinimize(t *testing.T) {
	files := os.Getenv("LIFECYCLE_MINIMIZE")
	if files == "" {
		t.Skip("set LIFECYCLE_MINIMIZE to replay files to minimize")
	}
	known := signaturesIn(regressDir, pendingDir)
	for _, f := range strings.Split(files, ",") {
		before, after, err := minimizeFile(t.TempDir(), f, known)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		t.Logf("%s: %d -> %d steps", f, before, after)
	}
}
