package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Discover consults the trust store before the work tree: a configuration
// with neither a record nor a commit at HEAD never hides a project with a
// record, whatever the session's directory and the input's; a record whose
// directory is gone, or a link, is Unjudged with why; a record file copied
// under another project's name is no project's; a recorded project nested
// in the one judged is Unjudged wherever the session is.
func TestDiscover(t *testing.T) {
	untrusted := map[string]string{".gauntlet/config.yml": configYML}
	for _, tc := range []struct {
		name           string
		planted        string // where an untrusted configuration is written
		act            func(t *testing.T, top string)
		dir, inner     string
		pending        []string // projects whose failures are pending
		root, shadowed string   // "-" for none
		unjudged       []string // "project why"
	}{
		{name: "untrusted top level, session there", planted: ".", dir: ".", root: "app", shadowed: ".", unjudged: []string{"lib"}},
		{name: "untrusted top level, input in lib", planted: ".", dir: ".", inner: "lib/src", root: "lib", shadowed: ".", unjudged: []string{"app"}},
		{name: "untrusted top level, lib pending", planted: ".", dir: ".", pending: []string{"lib"}, root: "lib", shadowed: ".", unjudged: []string{"app"}},
		{name: "nothing planted, session at the top level", dir: ".", root: "app", shadowed: "-", unjudged: []string{"lib"}},
		{name: "untrusted parent of the session, nothing trusted in its reach", planted: "work", dir: "work/inner", root: "work", shadowed: "-"},
		{name: "untrusted sibling, session in app", planted: "docs", dir: "app", root: "app", shadowed: "-"},
		{name: "app renamed, input in the copy", dir: ".", inner: "app2", root: "lib", shadowed: "app2",
			act: func(t *testing.T, top string) { rename(t, top, "app", "app2") }, unjudged: []string{"app its directory is gone, moved or deleted"}},
		{name: "app replaced by a link", dir: ".", root: "lib", shadowed: "-",
			act: func(t *testing.T, top string) {
				rename(t, top, "app", "app2")
				if err := os.Symlink("app2", filepath.Join(top, "app")); err != nil {
					t.Fatal(err)
				}
			}, unjudged: []string{"app its directory is now a symbolic link"}},
		{name: "recorded top level, session beside its nested projects", dir: "work/inner", root: ".", shadowed: "-", unjudged: []string{"app", "lib"},
			act: func(t *testing.T, top string) {
				write(t, top, untrusted)
				if err := WriteRecord(locate(t, top), Record{How: HowYes, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a record copied under another name", dir: ".", root: "app", shadowed: "-", unjudged: []string{"lib"},
			act: func(t *testing.T, top string) {
				data, err := os.ReadFile(filepath.Join(top, ".git", "agent-gauntlet", "trust", "app.json"))
				if err != nil {
					t.Fatal(err)
				}
				write(t, top, map[string]string{".git/agent-gauntlet/trust/zzz.json": string(data)})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := repo(t, map[string]string{"app/.gauntlet/config.yml": configYML, "lib/.gauntlet/config.yml": configYML,
				"app/src/x": "", "lib/src/x": "", "docs/x": "", "work/inner/x": ""})
			for _, p := range []string{"app", "lib"} {
				if err := WriteRecord(locate(t, filepath.Join(top, p)), Record{How: HowYes, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
					t.Fatal(err)
				}
			}
			git(t, top, "rm", "-rq", "--cached", "app/.gauntlet", "lib/.gauntlet")
			git(t, top, "commit", "-qm", "the records alone say what is trusted")
			if tc.planted != "" {
				for name, content := range untrusted {
					write(t, filepath.Join(top, tc.planted), map[string]string{name: content})
				}
			}
			if tc.act != nil {
				tc.act(t, top)
			}
			abs := func(rel string) string {
				if rel == "" || rel == "-" {
					return ""
				}
				return filepath.Join(top, rel)
			}
			pending := func(k Known) bool { return slices.Contains(tc.pending, k.Place.Project()) }
			d, ok, err := Discover(t.Context(), abs(tc.dir), abs(tc.inner), pending)
			if err != nil {
				t.Fatal(err)
			}
			var unjudged []string
			for _, k := range d.Unjudged {
				u := k.Place.Project()
				if k.Gone != "" {
					u += " " + k.Gone
				}
				unjudged = append(unjudged, u)
			}
			if d.Root != abs(tc.root) || ok != (tc.root != "-") || d.Shadowed != abs(tc.shadowed) || !slices.Equal(unjudged, tc.unjudged) {
				t.Errorf("Discover = root %q (%v), shadowed %q, unjudged %q; want %q, %q, %q", d.Root, ok, d.Shadowed, unjudged,
					abs(tc.root), abs(tc.shadowed), tc.unjudged)
			}
		})
	}
}

func rename(t *testing.T, top, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(top, from), filepath.Join(top, to)); err != nil {
		t.Fatal(err)
	}
}

// A repository is one with records only when its trust store holds a
// record: junk, a record edited or cut short, or one copied under
// another project's name leaves it upgraded (the configuration committed
// at HEAD stands in), so an agent that deletes its project's record and
// leaves a file there does not get its own configuration run instead.
func TestUpgradedCountsRecordsOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		plant    func(t *testing.T, p place.Place, dir string)
		upgraded bool
	}{
		{"nothing", func(*testing.T, place.Place, string) {}, true},
		{"an empty file", func(t *testing.T, _ place.Place, dir string) { writeFile(t, filepath.Join(dir, "x.json"), "") }, true},
		{"an empty object", func(t *testing.T, _ place.Place, dir string) { writeFile(t, filepath.Join(dir, "zzz.json"), "{}") }, true},
		{"a record edited", func(t *testing.T, p place.Place, _ string) {
			if err := WriteRecord(p, Record{How: HowYes, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
				t.Fatal(err)
			}
			path := RecordPath(p)
			data, _ := os.ReadFile(path)
			writeFile(t, path, strings.Replace(string(data), "yes", "terminal", 1))
		}, true},
		{"a record copied under another name", func(t *testing.T, p place.Place, dir string) {
			if err := WriteRecord(p, Record{How: HowYes, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(RecordPath(p), filepath.Join(dir, "other.json")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a record", func(t *testing.T, p place.Place, _ string) {
			if err := WriteRecord(p, Record{How: HowYes, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := repo(t, map[string]string{".gauntlet/config.yml": configYML})
			p := locate(t, top)
			dir := filepath.Dir(RecordPath(p))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, p, dir)
			if got := Upgraded(p.CommonDir); got != tc.upgraded {
				t.Errorf("Upgraded = %v, want %v", got, tc.upgraded)
			}
		})
	}
}

// writeFile writes content at path.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
