package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInspectTellsEveryDifference pins the invariant behind every "the
// configuration differs from the trusted one" notice: Inspect reports the
// work tree's configuration as trusted only when its .gauntlet/ holds
// exactly the trusted files. The table crosses trusted configurations
// (one with gates; a record of none, as `trust` writes after .gauntlet/
// was removed) with the ways a work tree can part from them: a file
// added, changed or removed, config.yml alone removed, and files of
// .gauntlet/ left beside no config.yml at all (a check file, a helper
// script). A .gauntlet/ without config.yml loads no gates, but its files
// are still not the trusted ones: a run of it must say so.
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
		{name: "check file added", write: map[string]string{".gauntlet/checks/test.yml": "command: make test\n"}},
		{name: "helper script added", write: map[string]string{".gauntlet/run.sh": "#!/bin/sh\n"}},
		{name: "check weakened", write: map[string]string{".gauntlet/checks/lint.yml": weakYML}},
		{name: "config.yml removed", remove: []string{".gauntlet/config.yml"}},
		{name: "config.yml removed, check added", remove: []string{".gauntlet/config.yml"},
			write: map[string]string{".gauntlet/checks/test.yml": "command: make test\n"}},
		{name: "everything removed", remove: []string{".gauntlet"}},
	}
	for _, tr := range trusted {
		for _, base := range []string{"as trusted", "config.yml absent"} {
			for _, ch := range changes {
				t.Run(tr.name+"/"+base+"/"+ch.name, func(t *testing.T) {
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
					same := sameTree(t, top, rec.Files)
					st, _, err := Inspect(t.Context(), top)
					if err != nil {
						t.Fatal(err)
					}
					if st.Trusted != same {
						t.Errorf("Inspect: Trusted = %v (diff %+v), but the work tree's .gauntlet/ holding the trusted files is %v", st.Trusted, st.Diff, same)
					}
				})
			}
		}
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
