package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// racyCase is one edit made between two looks at a work tree.
type racyCase struct {
	// kind is what the edit does: rewrites a file the user's index (the
	// nested repository's, when nested) tracks, or one it does not track,
	// or creates a file in a directory that holds others.
	kind string
	// sameSize: the rewrite keeps the file's size; restored: the edit
	// puts the modification time back (of the file, or of its directory
	// when it creates one); nested: the file is in a repository of its
	// own inside the work tree.
	sameSize, restored, nested bool
	// delay is how long after the first look the edit is made: under a
	// second it shares the look's second (git's change time resolution).
	delay time.Duration
	// knob is a setting of the repository's own configuration, one that
	// makes git trust less of a file's stat ("" for none).
	knob string
}

func (c racyCase) String() string {
	return fmt.Sprintf("%s/same=%t/restored=%t/nested=%t/delay=%s/knob=%s",
		c.kind, c.sameSize, c.restored, c.nested, c.delay, cmpOr(c.knob, "none"))
}

func cmpOr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// racyKnobs are the repository settings that would blind git to an edit
// if the literal view read them.
var racyKnobs = []string{"", "core.checkStat=minimal", "core.trustctime=false", "core.fileMode=false", "core.untrackedCache=true"}

// Kinds of edit (racyCase.kind).
const (
	editTracked   = "tracked"
	editUntracked = "untracked"
	editCreated   = "created"
)

// racyCases is every combination of what an edit between two looks can
// keep as it was, in a repository with no setting of its own; and the
// edit that keeps the most (the same size, the time put back, in the
// look's second) of each kind, in and out of a nested repository, under
// each of racyKnobs.
func racyCases() []racyCase {
	var cases []racyCase
	bools := []bool{false, true}
	kinds := []string{editTracked, editUntracked, editCreated}
	for _, kind := range kinds {
		for _, same := range bools {
			if same && kind == editCreated {
				continue // nothing had a size
			}
			for _, restored := range bools {
				for _, nested := range bools {
					for _, delay := range []time.Duration{0, 400 * time.Millisecond, 1100 * time.Millisecond, 2100 * time.Millisecond} {
						cases = append(cases, racyCase{kind, same, restored, nested, delay, ""})
					}
				}
			}
		}
	}
	for _, knob := range racyKnobs[1:] {
		for _, kind := range kinds {
			for _, nested := range bools {
				cases = append(cases, racyCase{kind, kind != editCreated, true, nested, 0, knob})
			}
		}
	}
	return cases
}

// gitAt runs git in dir with an identity and no signing.
func gitAt(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git -C %s %v: %v\n%s", dir, args, err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// racyOld is the modification time the edits put back: long ago, so that
// git's own racy check (a modification time no older than the index)
// never fires.
var racyOld = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// runRacyCase makes c in a fresh repository under dir: a clean file, a
// look (a kept snapshot, as a hand run or a stop takes), the edit, a
// second look. It returns an error when the second look does not hold the
// file's bytes on disk.
func runRacyCase(ctx context.Context, dir string, c racyCase) error {
	root := filepath.Join(dir, "repo")
	repoDir, rel := root, "src/x.txt"
	steps := [][]string{{"init", "-q", "-b", "main"}}
	if c.knob != "" {
		k, v, _ := strings.Cut(c.knob, "=")
		steps = append(steps, []string{"config", k, v})
	}
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("ok\n"), 0o644); err != nil {
		return err
	}
	for _, s := range append(steps, []string{"add", "-A"}, []string{"commit", "-q", "-m", "base"}) {
		if _, err := gitAt(root, s...); err != nil {
			return err
		}
	}
	if c.nested {
		repoDir, rel = filepath.Join(root, "src", "vendor"), "src/vendor/x.txt"
		if err := os.MkdirAll(repoDir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(repoDir, "lib.txt"), []byte("lib\n"), 0o644); err != nil {
			return err
		}
		for _, s := range append(steps, []string{"add", "-A"}, []string{"commit", "-q", "-m", "lib"}) {
			if _, err := gitAt(repoDir, s...); err != nil {
				return err
			}
		}
	}
	file := filepath.Join(root, filepath.FromSlash(rel))
	if c.kind == editCreated {
		// the file created is another one of the same directory
		file = filepath.Join(filepath.Dir(file), "made.txt")
		rel = strings.TrimSuffix(rel, "x.txt") + "made.txt"
	}
	write := func(content string, restore bool) error {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return err
		}
		if !restore {
			return nil
		}
		if c.kind == editCreated {
			return os.Chtimes(filepath.Dir(file), racyOld, racyOld)
		}
		return os.Chtimes(file, racyOld, racyOld)
	}
	if err := write("prev\n", true); err != nil {
		return err
	}
	if c.kind == editCreated {
		if err := os.Remove(file); err != nil {
			return err
		}
	}
	if c.kind == editTracked {
		if _, err := gitAt(repoDir, "add", "-A"); err != nil {
			return err
		}
		if _, err := gitAt(repoDir, "commit", "-q", "-m", "fine"); err != nil {
			return err
		}
	}
	look := func() (string, error) {
		s, err := NewTreeSnapshot(ctx, root)
		if err != nil {
			return "", err
		}
		defer s.Close()
		if s.KeyTree == "" {
			return "", fmt.Errorf("no KeyTree: %s", s.Uncertain)
		}
		return s.KeyTree, nil
	}
	// A warm kept index, as a session has.
	if _, err := look(); err != nil {
		return err
	}
	// In one fresh second: the clean version and the first look; a short
	// delay keeps the edit in that second too.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
	if c.kind == editCreated {
		// the directory changes in the look's second
		if err := os.WriteFile(filepath.Join(filepath.Dir(file), "other.txt"), []byte("o\n"), 0o644); err != nil {
			return err
		}
		if c.restored {
			if err := os.Chtimes(filepath.Dir(file), racyOld, racyOld); err != nil {
				return err
			}
		}
	} else if err := write("fine\n", true); err != nil {
		return err
	}
	if _, err := look(); err != nil {
		return err
	}
	time.Sleep(c.delay)
	bad := "BAD!\n"
	if !c.sameSize {
		bad = "BAD, longer\n"
	}
	if err := write(bad, c.restored); err != nil {
		return err
	}
	key, err := look()
	if err != nil {
		return err
	}
	got, err := gitAt(root, "cat-file", "blob", key+":"+rel)
	if err != nil {
		return err
	}
	if got+"\n" != bad {
		return fmt.Errorf("the second look holds %q, the disk %q", got, bad)
	}
	return nil
}

// Any change of a file's bytes between two looks at the work tree is seen
// by the second look, whatever the edit keeps as it was (the file's size,
// its modification time or its directory's put back, the second of its
// change time), whether the user's index tracks the file or the edit
// creates it, whether it is in a repository of its own inside the work
// tree, and whatever the repository's configuration says git may trust of
// a file's or a directory's stat. An agent can forge a file's size
// and modification time, never its change time or inode: a cached stat
// may answer "unchanged" only when the change time is older than the look
// that cached it by more than the file system's time granularity.
func TestEveryEditBetweenLooksIsSeen(t *testing.T) {
	testenv.Setenv(t)
	ctx := context.Background()
	cases := racyCases()
	if testing.Short() {
		var short []racyCase
		for _, c := range cases {
			if c.delay < time.Second {
				short = append(short, c)
			}
		}
		cases = short
	}
	// The cases mostly wait: they run side by side.
	sem := make(chan struct{}, 24)
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	base := t.TempDir()
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = runRacyCase(ctx, filepath.Join(base, fmt.Sprint(i)), c)
		}()
	}
	wg.Wait()
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", cases[i], err))
		}
	}
	if err := errors.Join(failed...); err != nil {
		t.Errorf("%d of %d edits not seen:\n%v", len(failed), len(cases), err)
	}
}
