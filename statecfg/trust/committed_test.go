package trust

import (
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
)

// CommittedProjects lists every project whose .gauntlet/config.yml HEAD
// holds, at any depth, and nothing else: a configuration removed from the
// index only is still committed; one staged only, a file named like a
// configuration outside a .gauntlet/ directory, and a repository without
// a commit are not. One added (last) over a nested configuration already
// committed then is left out: it is not adopted over the older one.
func TestCommittedProjects(t *testing.T) {
	cfg := ".gauntlet/config.yml"
	for _, tc := range []struct {
		name  string
		files []string
		act   func(t *testing.T, top string)
		want  []string
	}{
		{name: "top level and nested", files: []string{cfg, "app/" + cfg, "a/b/c/" + cfg}, want: []string{".", "a/b/c", "app"}},
		{name: "none", files: []string{"src/x.txt"}},
		{name: "look-alikes", files: []string{"x.gauntlet/config.yml", "app/.gauntlet/config.yml.bak", "lib/" + cfg}, want: []string{"lib"}},
		{name: "removed from the index only", files: []string{"app/" + cfg},
			act: func(t *testing.T, top string) { git(t, top, "rm", "-q", "--cached", "app/"+cfg) }, want: []string{"app"}},
		{name: "staged only", files: []string{"app/" + cfg}, act: func(t *testing.T, top string) {
			write(t, top, map[string]string{"lib/" + cfg: configYML})
			git(t, top, "add", "lib")
		}, want: []string{"app"}},
		{name: "top level added over an older nested one", files: []string{"app/" + cfg}, act: func(t *testing.T, top string) {
			write(t, top, map[string]string{cfg: configYML})
			git(t, top, "add", "-A")
			git(t, top, "commit", "-qm", "over it")
		}, want: []string{"app"}},
		{name: "top level added, removed and added again over it", files: []string{cfg, "app/" + cfg}, act: func(t *testing.T, top string) {
			git(t, top, "rm", "-q", cfg)
			git(t, top, "commit", "-qm", "gone")
			write(t, top, map[string]string{cfg: configYML})
			git(t, top, "add", "-A")
			git(t, top, "commit", "-qm", "back")
		}, want: []string{"app"}},
		{name: "nested added under an older top level", files: []string{cfg}, act: func(t *testing.T, top string) {
			write(t, top, map[string]string{"app/" + cfg: configYML})
			git(t, top, "add", "-A")
			git(t, top, "commit", "-qm", "under it")
		}, want: []string{".", "app"}},
		{name: "no commit", act: func(t *testing.T, top string) {
			git(t, top, "checkout", "-q", "--orphan", "unborn")
			write(t, top, map[string]string{cfg: configYML})
			git(t, top, "add", "-A")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for _, f := range tc.files {
				files[f] = configYML
			}
			top := repo(t, files)
			if tc.act != nil {
				tc.act(t, top)
			}
			d, ok := gitdir.Find(top)
			if !ok {
				t.Fatal("no git directory")
			}
			known, err := CommittedProjects(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range known {
				got = append(got, k.Place.Project())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
