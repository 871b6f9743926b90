package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectTellsEveryDifference pins the invariant behind every "the
// configuration differs from the trusted one" notice: Inspect reports
// nothing amiss (Trusted, with no unusable record) only when it read the
// person's record from the gauntlet's own store and the work tree's
// .gauntlet/ holds exactly the trusted files. The table crosses trusted
// configurations (one with gates; a record of none, as `trust` writes
// after .gauntlet/ was removed) with the ways a work tree can part from
// them: a file added, changed or removed, config.yml broken or alone
// removed, and files of .gauntlet/ left beside no config.yml at all (a
// check file, a helper script). A .gauntlet/ without config.yml loads no
// gates, but its files are still not the trusted ones: a run of it must
// say so. Each is crossed with the store as the agent may leave it:
// intact, or the store (or its trust/ directory) moved away and replaced
// by a link, to a directory of its own or to the moved records; and with
// the change committed or not, for a store that is not intact makes
// HEAD's configuration stand in, and a committed change is HEAD's.
func TestInspectTellsEveryDifference(t *testing.T) {
	full := map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/checks/lint.yml": lintYML}
	trusted := []struct {
		name  string
		files map[string]string
	}{
		{"gates", full},
		{"no gates", nil},
	}
	type change struct {
		name   string
		write  map[string]string
		remove []string
	}
	changes := []change{
		{name: "none"},
		{name: "check file added", write: map[string]string{".gauntlet/checks/test.yml": "command: make test\n"}},
		{name: "helper script added", write: map[string]string{".gauntlet/run.sh": "#!/bin/sh\n"}},
		{name: "check weakened", write: map[string]string{".gauntlet/checks/lint.yml": weakYML}},
		{name: "config.yml broken", write: map[string]string{".gauntlet/config.yml": "entry_points: [\n"}},
		{name: "config.yml removed", remove: []string{".gauntlet/config.yml"}},
		{name: "config.yml removed, check added", remove: []string{".gauntlet/config.yml"},
			write: map[string]string{".gauntlet/checks/test.yml": "command: make test\n"}},
		{name: "everything removed", remove: []string{".gauntlet"}},
	}
	for _, tr := range trusted {
		for _, base := range []string{"as trusted", "config.yml absent"} {
			for _, ch := range changes {
				for _, st := range storeStates {
					for _, committed := range []bool{false, true} {
						if committed && !strings.HasSuffix(st.name, "of its own") {
							// HEAD stands in only for a record that is
							// gone: while one reads, it plays no part.
							continue
						}
						name := fmt.Sprintf("%s/%s/%s/%s/committed=%v", tr.name, base, ch.name, st.name, committed)
						t.Run(name, func(t *testing.T) {
							start := map[string]string{}
							for p, c := range tr.files {
								start[p] = c
							}
							if base == "config.yml absent" {
								// The work tree starts as the trusted files plus what
								// the change writes, without config.yml.
								delete(start, ".gauntlet/config.yml")
							}
							top := repo(t, nil)
							write(t, top, start)
							rec := Record{How: HowTerminal, Files: files()}
							for p, c := range tr.files {
								rec.Files[p] = []byte(c)
							}
							if err := WriteRecord(locate(t, top), rec); err != nil {
								t.Fatal(err)
							}
							write(t, top, ch.write)
							for _, p := range ch.remove {
								if err := os.RemoveAll(filepath.Join(top, filepath.FromSlash(p))); err != nil {
									t.Fatal(err)
								}
							}
							if committed {
								git(t, top, "add", "-A")
								git(t, top, "commit", "-q", "--allow-empty", "-m", "the agent's")
							}
							st.leave(t, top)
							same := sameTree(t, top, rec.Files)
							got, _, err := Inspect(t.Context(), top)
							if err != nil {
								t.Fatal(err)
							}
							quiet := got.Trusted && got.Unusable == ""
							if want := same && st.name == "intact"; quiet != want {
								t.Errorf("Inspect: Trusted = %v, unusable record %q (source %s, diff %+v), but the work tree's .gauntlet/ holding the trusted files is %v, the store %s",
									got.Trusted, got.Unusable, got.Source, got.Diff, same, st.name)
							}
						})
					}
				}
			}
		}
	}
}

// storeStates are the states the gauntlet's store can be found in: as the
// gauntlet left it, or moved away and replaced by a symbolic link.
var storeStates = []struct {
	name  string
	leave func(t *testing.T, top string)
}{
	{"intact", func(*testing.T, string) {}},
	{"store a link to a directory of its own", func(t *testing.T, top string) {
		linkAway(t, filepath.Join(top, ".git", "agent-gauntlet"), false)
	}},
	{"store a link to the moved records", func(t *testing.T, top string) {
		linkAway(t, filepath.Join(top, ".git", "agent-gauntlet"), true)
	}},
	{"trust directory a link to a directory of its own", func(t *testing.T, top string) {
		linkAway(t, filepath.Join(top, ".git", "agent-gauntlet", Kind), false)
	}},
	{"trust directory a link to the moved records", func(t *testing.T, top string) {
		linkAway(t, filepath.Join(top, ".git", "agent-gauntlet", Kind), true)
	}},
}

// linkAway moves the directory dir out of the repository and puts a
// symbolic link in its place: to where it moved (toMoved), or to another
// directory, holding a file of a person's.
func linkAway(t *testing.T, dir string, toMoved bool) {
	t.Helper()
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	target := moved
	if !toMoved {
		target = t.TempDir()
		write(t, target, map[string]string{"keep.txt": "a person's\n"})
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// sameTree reports whether the .gauntlet/ of top holds exactly want.
func sameTree(t *testing.T, top string, want map[string][]byte) bool {
	t.Helper()
	got := map[string]string{}
	_ = filepath.WalkDir(filepath.Join(top, ".gauntlet"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Fatal(rerr)
		}
		rel, _ := filepath.Rel(top, p)
		got[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if len(got) != len(want) {
		return false
	}
	for p, c := range want {
		if got[p] != string(c) {
			return false
		}
	}
	return true
}
