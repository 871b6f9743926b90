package entry

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

func paths(exp []Expanded) []string {
	var ps []string
	for _, e := range exp {
		ps = append(ps, e.Path)
	}
	return ps
}

func TestExpand(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"packages/a", "packages/b", "apps/web", "src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		eps   []config.EntryPoint
		files []string
		want  []string
		dirs  []string
	}{
		{"no files", []config.EntryPoint{{Path: "."}}, nil, nil, nil},
		{"root", []config.EntryPoint{{Path: "."}}, []string{"x.go"}, []string{"."}, []string{"."}},
		{"every dot entry counts", []config.EntryPoint{{Path: ".", Checks: []string{"lint"}}, {Path: "./", Reviews: []string{"q"}}}, []string{"x"}, []string{".", "."}, nil},
		{"root excluded entirely", []config.EntryPoint{{Path: ".", Exclude: []string{"docs"}}}, []string{"docs/a.md"}, nil, nil},
		{"fixed dir", []config.EntryPoint{{Path: "src"}, {Path: "lib/"}}, []string{"src/a.go", "srcx/b.go"}, []string{"src"}, []string{"src"}},
		{"fixed file", []config.EntryPoint{{Path: "package.json"}}, []string{"package.json"}, []string{"package.json"}, []string{"."}},
		{"fixed file in a directory", []config.EntryPoint{{Path: "apps/web/README.md"}}, []string{"apps/web/README.md"}, []string{"apps/web/README.md"}, []string{"apps/web"}},
		{"deleted file keeps its directory", []config.EntryPoint{{Path: "apps/gone.json"}}, []string{"apps/gone.json"}, []string{"apps/gone.json"}, []string{"apps"}},
		{"fixed dir deleted", []config.EntryPoint{{Path: "gone"}, {Path: "src"}}, []string{"gone/a.go", "src/x"}, []string{"src"}, nil},
		{"glob in a deleted dir", []config.EntryPoint{{Path: "old/**/*.ts"}}, []string{"old/a.ts"}, nil, nil},
		{"wildcard", []config.EntryPoint{{Path: "packages/*"}}, []string{"packages/b/x", "packages/a/y", "packages/b/z", "packages/README.md", "other/q"}, []string{"packages/b", "packages/a"}, []string{"packages/b", "packages/a"}},
		{"wildcard skips deleted dir", []config.EntryPoint{{Path: "packages/*"}}, []string{"packages/gone/x", "packages/a/y"}, []string{"packages/a"}, nil},
		{"bare star", []config.EntryPoint{{Path: "*"}}, []string{"apps/web/x", "top.txt"}, []string{"apps"}, nil},
		{"glob", []config.EntryPoint{{Path: "apps/**/*.ts"}}, []string{"apps/web/src/a.ts"}, []string{"apps/**/*.ts"}, []string{"apps"}},
		{"glob no match", []config.EntryPoint{{Path: "apps/**/*.ts"}}, []string{"apps/web/a.go"}, nil, nil},
		{"exclude prefix", []config.EntryPoint{{Path: "packages/*", Exclude: []string{"packages/b"}}}, []string{"packages/b/x", "packages/a/y"}, []string{"packages/a"}, nil},
		{"exclude prefix is not a string prefix", []config.EntryPoint{{Path: ".", Exclude: []string{"doc"}}}, []string{"docs/a.md"}, []string{"."}, nil},
		{"exclude glob", []config.EntryPoint{{Path: ".", Exclude: []string{"**/*.md"}}}, []string{"docs/a.md", "README.md"}, nil, nil},
		{"exclude glob keeps others", []config.EntryPoint{{Path: "src", Exclude: []string{"**/*_test.go"}}}, []string{"src/a_test.go", "src/a.go"}, []string{"src"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Expand(root, tt.eps, tt.files)
			if !slices.Equal(paths(got), tt.want) {
				t.Fatalf("paths = %q, want %q", paths(got), tt.want)
			}
			if tt.dirs != nil {
				var dirs []string
				for _, e := range got {
					dirs = append(dirs, e.Dir)
				}
				if !slices.Equal(dirs, tt.dirs) {
					t.Fatalf("dirs = %q, want %q", dirs, tt.dirs)
				}
			}
		})
	}
}

// An entry point whose directory the change deleted is skipped with a
// note; without a root nothing is judged gone.
func TestExpandNotes(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "packages", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	eps := []config.EntryPoint{{Path: "gone"}, {Path: "packages/*"}, {Path: "old/**/*.ts"}}
	files := []string{"gone/a.go", "packages/x/y", "packages/a/z", "old/q.ts"}
	got, notes := Expand(root, eps, files)
	if want := []string{"packages/a"}; !slices.Equal(paths(got), want) {
		t.Errorf("paths = %q, want %q", paths(got), want)
	}
	want := []string{
		"Note: entry point gone skipped: its directory no longer exists.",
		"Note: entry point packages/x (packages/*) skipped: its directory no longer exists.",
		"Note: entry point old (old/**/*.ts) skipped: its directory no longer exists.",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes =\n%q\nwant\n%q", notes, want)
	}
	if got, notes := Expand("", eps[:1], files); len(got) != 1 || got[0].Dir != "gone" || len(notes) != 0 {
		t.Errorf("without a root: %+v, %q", got, notes)
	}
}

// Present leaves out the jobs whose working directory is gone, with a note
// that quotes odd names.
func TestPresent(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	jobs := []gate.Job{{ID: "check:src:a", WorkingDir: "src"}, {ID: "check:.:b", WorkingDir: "."},
		{ID: "check:src:c", WorkingDir: "build"}, {ID: "check:x\ny:d", WorkingDir: "x\ny"}}
	kept, notes := Present(root, jobs, nil)
	if len(kept) != 2 || kept[0].ID != "check:src:a" || kept[1].ID != "check:.:b" {
		t.Errorf("kept %+v", kept)
	}
	want := []string{
		"Note: check:src:c skipped: its working directory build no longer exists.",
		`Note: "check:x\ny:d" skipped: its working directory "x\ny" no longer exists.`,
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes =\n%q\nwant\n%q", notes, want)
	}
}

// A check whose working directory the change deleted is kept when that
// directory lies outside its entry point (the change took away the judge
// of the entry point's changes), and left out with a note when it is the
// entry point's own (nothing left to judge) or nothing of it changed (the
// configuration's problem, not the change's).
func TestPresentDeletedJudge(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		job     gate.Job
		changed []string
		kept    bool
	}{
		{"tests deleted by the change", gate.Job{Kind: gate.KindCheck, EntryPoint: "src", WorkingDir: "tests"}, []string{"src/a.txt", "tests/run.sh"}, true},
		{"a nested directory deleted", gate.Job{Kind: gate.KindCheck, EntryPoint: "src", WorkingDir: "qa/tests"}, []string{"qa/tests/x/run.sh"}, true},
		{"never there", gate.Job{Kind: gate.KindCheck, EntryPoint: "src", WorkingDir: "tests"}, []string{"src/a.txt"}, false},
		{"a sibling with the same prefix", gate.Job{Kind: gate.KindCheck, EntryPoint: "src", WorkingDir: "tests"}, []string{"tests2/run.sh"}, false},
		{"the entry point's own directory", gate.Job{Kind: gate.KindCheck, EntryPoint: "old", WorkingDir: "old"}, []string{"old/a.txt"}, false},
		{"below the entry point", gate.Job{Kind: gate.KindCheck, EntryPoint: "old", WorkingDir: "old/sub"}, []string{"old/sub/a.txt"}, false},
		{"a review", gate.Job{Kind: gate.KindReview, EntryPoint: "src", WorkingDir: "tests"}, []string{"tests/run.sh"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.job.ID = "check:" + tc.job.EntryPoint + ":x"
			kept, notes := Present(root, []gate.Job{tc.job}, tc.changed)
			if got := len(kept) == 1; got != tc.kept || got == (len(notes) == 1) {
				t.Errorf("kept %v, notes %q; want kept %v", kept, notes, tc.kept)
			}
		})
	}
}

func TestExpandAll(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"packages/b", "packages/a"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "packages", "file.txt"), nil, 0o644)
	got := ExpandAll(root, []config.EntryPoint{{Path: "."}, {Path: "packages/*"}, {Path: "missing/*"}, {Path: "**/*.md"}, {Path: "src"}, {Path: "packages/file.txt"}})
	want := []string{".", "packages/a", "packages/b", "**/*.md", "src", "packages/file.txt"}
	if !slices.Equal(paths(got), want) {
		t.Fatalf("got %q, want %q", paths(got), want)
	}
	if dir := got[len(got)-1].Dir; dir != "packages" {
		t.Errorf("a file entry point works in %q, want its directory", dir)
	}
}

func TestJobs(t *testing.T) {
	cfg := &config.Config{
		Checks: map[string]*config.Check{
			"lint":  {Name: "lint", RunLocally: true, RunInCI: true},
			"e2e":   {Name: "e2e", RunLocally: false, RunInCI: true, Parallel: true},
			"local": {Name: "local", RunLocally: true, RunInCI: false, WorkingDirectory: "./tools/"},
		},
		Reviews: map[string]*config.Review{
			"quality": {Name: "quality", RunLocally: true, RunInCI: true, Parallel: true},
		},
	}
	eps := []config.EntryPoint{
		{Path: ".", Checks: []string{"lint", "local"}, Reviews: []string{"quality"}},
		{Path: ".", Checks: []string{"lint", "missing"}},
		{Path: "packages/*", Checks: []string{"lint", "e2e"}},
	}
	exp := []Expanded{{Path: ".", Dir: ".", Source: &eps[0]}, {Path: ".", Dir: ".", Source: &eps[1]}, {Path: "packages/a", Dir: "packages/a", Source: &eps[2]}}

	// The same project whose ci.yml opts the review into CI runs.
	optedIn := *cfg
	optedIn.CI = &config.CI{Reviews: []config.CIGate{{Name: "quality"}}}

	tests := []struct {
		name string
		cfg  *config.Config
		f    Filter
		want []string
	}{
		{"local all", cfg, Filter{Checks: true, Reviews: true}, []string{"check:.:lint", "check:.:local", "review:.:quality", "check:packages/a:lint"}},
		{"ci without ci.yml runs no review", cfg, Filter{Checks: true, Reviews: true, CI: true}, []string{"check:.:lint", "check:packages/a:lint", "check:packages/a:e2e"}},
		{"ci with the review opted in", &optedIn, Filter{Checks: true, Reviews: true, CI: true}, []string{"check:.:lint", "review:.:quality", "check:packages/a:lint", "check:packages/a:e2e"}},
		{"reviews only", cfg, Filter{Reviews: true}, []string{"review:.:quality"}},
		{"gate filter", cfg, Filter{Checks: true, Reviews: true, Gate: "lint"}, []string{"check:.:lint", "check:packages/a:lint"}},
		{"working directory filter", cfg, Filter{Checks: true, Reviews: true, WorkingDir: "./packages/a/"}, []string{"check:packages/a:lint"}},
		{"working directory of a check's own", cfg, Filter{Checks: true, Reviews: true, WorkingDir: "tools"}, []string{"check:.:local"}},
		{"gate and working directory", cfg, Filter{Checks: true, Reviews: true, Gate: "lint", WorkingDir: "."}, []string{"check:.:lint"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, warns := Jobs(tt.cfg, exp, tt.f)
			var ids []string
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			if !slices.Equal(ids, tt.want) {
				t.Fatalf("ids = %q, want %q", ids, tt.want)
			}
			if tt.f.Checks && len(warns) != 1 {
				t.Fatalf("warnings = %q", warns)
			}
		})
	}
	jobs, _ := Jobs(cfg, exp, Filter{Checks: true})
	if jobs[1].WorkingDir != "tools" || jobs[0].WorkingDir != "." || jobs[0].Kind != gate.KindCheck {
		t.Fatalf("jobs = %+v", jobs)
	}
}

// A FIFO where a wildcard's parent directory goes expands to nothing; it
// used to hang detect (os.ReadDir opened it and waited for a writer).
func TestExpandAllFIFOParent(t *testing.T) {
	root := t.TempDir()
	fifotest.Create(t, filepath.Join(root, "pkgs"))
	if got := ExpandAll(root, []config.EntryPoint{{Path: "pkgs/*", Checks: []string{"lint"}}}); len(got) != 0 {
		t.Errorf("ExpandAll = %v, want nothing", got)
	}
}
