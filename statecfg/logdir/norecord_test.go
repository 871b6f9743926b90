package logdir

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// The invariant: no archive deletes or writes over a file the gauntlet did
// not write, whether or not the record of written files knows the log
// directory. Where it does not (no repository, an upgraded project not yet
// trusted, with or without the TypeScript tool's state), a file is taken
// as the gauntlet's only by the adoption rule of start, and an adopted file
// is moved (renamed .adopted where it would be deleted), never deleted;
// anything else stays where it is. The table crosses every setup with a
// person's file under a log name and a foreign one, written before and
// after the last run, in the root, previous/, previous/previous/ and
// commit/, and archives (with and without the state, twice): after each
// archive every byte a person wrote is still in the project, and Owned
// never lets a person's file be written over.
func TestNoRecordKeepsPersonFiles(t *testing.T) {
	setups := []struct {
		name    string
		git     bool
		state   bool // an execution state of a run that ended two hours ago
		trusted bool // Start ran (agent-gauntlet trust)
		run     bool // the gauntlet wrote a log since
	}{
		{name: "no project"},
		{name: "no project with a state", state: true},
		{name: "upgraded with TypeScript state", git: true, state: true},
		{name: "upgraded without state", git: true},
		{name: "trusted never run", git: true, state: true, trusted: true},
		{name: "trusted and run", git: true, state: true, trusted: true, run: true},
	}
	places := []string{".", PreviousDir, filepath.Join(PreviousDir, PreviousDir), CommitDir}
	names := []string{"console.7.log", "check_src_c.3.log", "review_src_q_claude@1.3.json", "notes.txt"}
	ages := map[string]time.Duration{"old": 30 * 24 * time.Hour, "new": -time.Hour}
	for _, s := range setups {
		for _, includeState := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/state=%v", s.name, includeState), func(t *testing.T) {
				root := t.TempDir()
				if s.git {
					if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				dir := filepath.Join(root, "gauntlet_logs")
				lastRun := time.Now().Add(-2 * time.Hour)
				writeAll(t, dir, "console.1.log")
				if s.state {
					writeAll(t, dir, state.File)
					touch(t, filepath.Join(dir, state.File), lastRun)
				}
				touch(t, filepath.Join(dir, "console.1.log"), lastRun)
				var person []string
				for _, pl := range places {
					for _, n := range names {
						for age, d := range ages {
							rel := filepath.Join(pl, n)
							if age == "new" {
								rel = filepath.Join(pl, "new"+n) // a name of its own
								if IsOwn(n) {
									rel = filepath.Join(pl, renumber(n))
								}
							}
							writeAll(t, dir, rel)
							touch(t, filepath.Join(dir, rel), lastRun.Add(-d))
							person = append(person, rel)
						}
					}
				}
				if s.trusted {
					if err := Start(dir); err != nil {
						t.Fatal(err)
					}
				}
				if s.run {
					f, err := OpenLog(filepath.Join(dir, "console.2.log"), false)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = f.WriteString("gauntlet run 2")
					if err := errors.Join(f.Close(), Note(filepath.Join(dir, "console.2.log"), false)); err != nil {
						t.Fatal(err)
					}
				}
				want := map[[32]byte]string{}
				for _, rel := range person {
					b, err := os.ReadFile(filepath.Join(dir, rel))
					if err != nil {
						t.Fatal(err)
					}
					want[sha256.Sum256(b)] = rel
					if Owned(filepath.Join(dir, rel)) {
						t.Errorf("Owned(%s) = true: a person's file may be written over", rel)
					}
				}
				for i := range 2 {
					if _, err := Clean(root, dir, includeState); err != nil {
						t.Fatalf("Clean %d: %v", i+1, err)
					}
					have := inventory(t, root)
					for sum, rel := range want {
						if !have[sum] {
							t.Errorf("after Clean %d the person's %s is gone", i+1, rel)
						}
					}
				}
			})
		}
	}
}

// renumber gives the log name n another run number (1 → 5, 3 → 8), so
// that a person's newer file is one of its own.
func renumber(n string) string {
	switch n {
	case "console.7.log":
		return "console.8.log"
	case "check_src_c.3.log":
		return "check_src_c.5.log"
	case "review_src_q_claude@1.3.json":
		return "review_src_q_claude@1.5.json"
	}
	return n
}

// touch sets the modification time of the file at p.
func touch(t *testing.T, p string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// inventory is the set of digests of every regular file under root.
func inventory(t *testing.T, root string) map[[32]byte]bool {
	t.Helper()
	have := map[[32]byte]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		have[sha256.Sum256(b)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return have
}
