package entry

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// expandReference is the straightforward Expand (every entry point against
// every file) that Expand must agree with.
func expandReference(root string, eps []config.EntryPoint, files []string) []Expanded {
	if len(files) == 0 {
		return nil
	}
	exists := func(dir string) bool { return isDirectory(filepath.Join(root, filepath.FromSlash(dir))) }
	var out []Expanded
	for i := range eps {
		ep := &eps[i]
		p := Clean(ep.Path)
		var kept []string
		for _, f := range files {
			if !Excluded(f, ep.Exclude) {
				kept = append(kept, f)
			}
		}
		if len(kept) == 0 {
			continue
		}
		if parent, ok := wildcardParent(p); ok {
			prefix := parent + "/"
			if parent == "" {
				prefix = ""
			}
			seen := map[string]bool{}
			for _, f := range kept {
				rest, ok := strings.CutPrefix(f, prefix)
				if !ok {
					continue
				}
				seg, _, isDir := strings.Cut(rest, "/")
				if !isDir || seg == "" || seen[seg] {
					continue // a file directly in parent is not a sub-directory
				}
				seen[seg] = true
				dir := prefix + seg
				if root != "" && !isDirectory(filepath.Join(root, filepath.FromSlash(dir))) {
					continue // the whole directory was deleted
				}
				out = append(out, Expanded{Path: dir, Dir: dir, Source: ep})
			}
			continue
		}
		if glob.IsGlob(p) {
			for _, f := range kept {
				if glob.Match(p, f) {
					if exists(globDir(p)) {
						out = append(out, Expanded{Path: p, Dir: globDir(p), Source: ep})
					}
					break
				}
			}
			continue
		}
		found, file := false, false
		for _, f := range kept {
			found = found || under(f, p)
			file = file || f == p
		}
		dir := p
		if file && !isDirectory(filepath.Join(root, p)) {
			dir = parentDir(p)
		}
		if found && exists(dir) {
			out = append(out, Expanded{Path: p, Dir: dir, Source: ep})
		}
	}
	return out
}

// filesReference is the straightforward Expanded.Files (every file
// looked at) that Files must agree with.
func filesReference(ep Expanded, files []string) []string {
	src := Clean(ep.Source.Path)
	_, wildcard := wildcardParent(src)
	isGlob := !wildcard && glob.IsGlob(src)
	var out []string
	for _, f := range files {
		in := f == ep.Path || ep.Path == Root || strings.HasPrefix(f, ep.Path+"/")
		if isGlob {
			in = glob.Match(src, f)
		}
		if in && !Excluded(f, ep.Source.Exclude) {
			out = append(out, f)
		}
	}
	return out
}

func TestExpandMatchesReference(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/x", "a/y", "a/z", "b/x", "b/y/z", "c", "a b/x", "a-b/x"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"a", "b", "c", "a b", "a-b", "a.b", "x", "y", "z", "vendor"}
	paths := []string{".", "*", "a/*", "b/*", "a", "b", "a/x", "a b", "a-b/*", "a/**/*.go", "**/*.go", "*.go", "a/{x,y}/*", "b/**", "a/x/f0.go", "c/[ab]*", "nope", "nope/*",
		"a/**/*.{go,md}", "**/{x,vendor}/**", "{a,b}/**/f[01].go"}
	excludes := []string{"a/x", "**/vendor", "b", "*.md", "a/y/", "./c", "**/f1.go", "a/{x,z}/**"}
	// Every entry point has a review: its job's scope must select what the
	// entry point's checks are given.
	cfg := &config.Config{Reviews: map[string]*config.Review{"r": {Name: "r", RunLocally: true}}}
	rnd := rand.New(rand.NewSource(1))
	pick := func(l []string) string { return l[rnd.Intn(len(l))] }
	for iter := 0; iter < 2000; iter++ {
		var files []string
		for n := rnd.Intn(12); n > 0; n-- {
			depth := 1 + rnd.Intn(4)
			f := pick(names)
			for d := 1; d < depth; d++ {
				f += "/" + pick(names)
			}
			if rnd.Intn(2) == 0 {
				f += fmt.Sprintf("/f%d.go", rnd.Intn(3))
			}
			files = append(files, f)
		}
		var eps []config.EntryPoint
		for n := 1 + rnd.Intn(5); n > 0; n-- {
			ep := config.EntryPoint{Path: pick(paths), Reviews: []string{"r"}}
			for m := rnd.Intn(3); m > 0; m-- {
				ep.Exclude = append(ep.Exclude, pick(excludes))
			}
			eps = append(eps, ep)
		}
		got, _ := Expand(root, eps, files)
		want := expandReference(root, eps, files)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("files %q, entry points %+v:\n got %+v\nwant %+v", files, eps, got, want)
		}
		for _, ep := range got {
			want := filesReference(ep, files)
			if got := ep.Files(files); !slices.Equal(got, want) {
				t.Fatalf("files %q, entry point %+v: Files = %q, want %q", files, ep, got, want)
			}
			jobs, _ := Jobs(cfg, []Expanded{ep}, Filter{Reviews: true})
			if len(jobs) != 1 {
				t.Fatalf("entry point %+v: jobs %+v", ep, jobs)
			}
			sc := JobScope(jobs[0])
			var selected []string
			for _, f := range files {
				if sc.Selects(f) {
					selected = append(selected, f)
				}
				if sc.Selects(f) && !under(f, sc.Dir()) {
					t.Fatalf("entry point %+v: %q selected, outside the scope's directory %q", ep, f, sc.Dir())
				}
				if sc.Whole() && under(f, sc.Dir()) && !sc.Selects(f) {
					t.Fatalf("entry point %+v: %q is in the whole scope %q, not selected", ep, f, sc.Dir())
				}
			}
			if !slices.Equal(selected, want) {
				t.Fatalf("files %q, entry point %+v (source %+v): the review's scope selects %q, the checks get %q", files, ep, *ep.Source, selected, want)
			}
		}
	}
}
