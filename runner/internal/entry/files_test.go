package entry

import (
	"reflect"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Each check scoped to its changed files gets those of its entry point;
// one that is not keeps none.
func TestExpandedFiles(t *testing.T) {
	files := []string{"src/a.go", "src/gen/b.go", "lib/c.go", "pkg/x/d.go", "pkg/y/e.go", "README.md", "docs/f.md"}
	eps := []config.EntryPoint{
		{Path: ".", Exclude: []string{"docs"}, Checks: []string{"all", "test"}},
		{Path: "src", Exclude: []string{"src/gen"}, Checks: []string{"lint"}},
		{Path: "pkg/*", Checks: []string{"lint"}},
		{Path: "**/*.md", Checks: []string{"spell"}},
	}
	expanded, _ := Expand("", eps, files)
	scoped := "x ${CHANGED_FILES}"
	jobs, _ := Jobs(&config.Config{Checks: map[string]*config.Check{
		"all": {Name: "all", RunLocally: true, Command: scoped}, "lint": {Name: "lint", RunLocally: true, Command: scoped},
		"spell": {Name: "spell", RunLocally: true, Command: scoped}, "test": {Name: "test", RunLocally: true, Command: "make test"},
	}}, expanded, Filter{Checks: true})
	SetChangedFiles(jobs, expanded, files)
	got := map[string][]string{}
	for _, j := range jobs {
		got[j.ID] = j.Changed
	}
	want := map[string][]string{
		"check:.:all":         {"src/a.go", "src/gen/b.go", "lib/c.go", "pkg/x/d.go", "pkg/y/e.go", "README.md"},
		"check:src:lint":      {"src/a.go"},
		"check:pkg/x:lint":    {"pkg/x/d.go"},
		"check:pkg/y:lint":    {"pkg/y/e.go"},
		"check:**/*.md:spell": {"README.md", "docs/f.md"},
		"check:.:test":        nil, // not given the changed files: none kept
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed files:\n%v\nwant\n%v", got, want)
	}
}
