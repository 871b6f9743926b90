package release

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	modzip "golang.org/x/mod/zip"
)

// testSet builds a Set from go.mod contents by module directory, in the
// given order; go.work uses every module and has the given replaces.
func testSet(t *testing.T, work string, mods ...[2]string) *Set {
	t.Helper()
	wf, err := modfile.ParseWork("go.work", []byte(work), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Root: t.TempDir(), work: wf}
	for _, m := range mods {
		f, err := modfile.Parse(m[0]+"/go.mod", []byte(m[1]), nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Modules = append(s.Modules, &Module{Dir: m[0], Path: f.Module.Mod.Path, Mod: []byte(m[1]), file: f})
	}
	return s
}

func gomod(dir string, requires ...string) [2]string {
	var b strings.Builder
	b.WriteString("module " + RepoPath + "/" + dir + "\n\ngo 1.25.0\n")
	for _, r := range requires {
		b.WriteString("\nrequire " + r + "\n")
	}
	return [2]string{dir, b.String()}
}

const sib = RepoPath + "/"

func TestVersion(t *testing.T) {
	tests := []struct {
		name    string
		mods    [][2]string
		want    string
		wantErr string
	}{
		{
			name: "in step",
			mods: [][2]string{gomod("a"), gomod("b", sib+"a v0.3.0"), gomod("c", sib+"a v0.3.0", sib+"b v0.3.0", "example.com/x v1.0.0")},
			want: "v0.3.0",
		},
		{
			name:    "out of step",
			mods:    [][2]string{gomod("a"), gomod("b", sib+"a v0.3.0"), gomod("c", sib+"a v0.2.0")},
			wantErr: "modules out of step: they require one another at 2 versions",
		},
		{
			name:    "a sibling go.work does not list",
			mods:    [][2]string{gomod("a"), gomod("b", sib+"zz v0.3.0")},
			wantErr: "b/go.mod requires " + sib + "zz v0.3.0, a module go.work does not list",
		},
		{
			name:    "no sibling requirement",
			mods:    [][2]string{gomod("a"), gomod("b", "example.com/x v1.0.0")},
			wantErr: "no module requires another",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testSet(t, "go 1.25.0\n", tt.mods...).Version()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Version() = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Version() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestReplaces(t *testing.T) {
	s := testSet(t, "go 1.25.0\n", gomod("a"), [2]string{"b", "module " + sib + "b\n\ngo 1.25.0\n\nrequire " + sib + "a v0.0.0\n\nreplace " + sib + "a => ../a\n"})
	got := s.Replaces()
	if len(got) != 1 || !strings.HasPrefix(got[0], "b/go.mod: replace "+sib+"a: no replace directives") {
		t.Fatalf("Replaces() = %q", got)
	}
	if got := testSet(t, "go 1.25.0\n", gomod("a")).Replaces(); len(got) != 0 {
		t.Fatalf("Replaces() without any = %q", got)
	}
}

func TestTopoSort(t *testing.T) {
	s := testSet(t, "go 1.25.0\n", gomod("cli"), gomod("hookproto"), gomod("runner"), gomod("statecfg"))
	m := map[string]*Module{}
	for _, mod := range s.Modules {
		m[mod.Dir] = mod
	}
	dirs := func(mods []*Module) []string {
		var d []string
		for _, x := range mods {
			d = append(d, x.Dir)
		}
		return d
	}
	got, err := topoSort(s.Modules, map[*Module][]*Module{
		m["cli"]:    {m["runner"], m["hookproto"]},
		m["runner"]: {m["statecfg"]},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"statecfg", "runner", "hookproto", "cli"}; !slices.Equal(dirs(got), want) {
		t.Fatalf("order = %v, want %v", dirs(got), want)
	}
	_, err = topoSort(s.Modules, map[*Module][]*Module{m["runner"]: {m["statecfg"]}, m["statecfg"]: {m["runner"]}})
	if err == nil || !strings.Contains(err.Error(), "cycle (runner -> statecfg -> runner)") {
		t.Fatalf("cycle: err = %v", err)
	}
}

func TestTidiedKeepsReleasedSiblingHashes(t *testing.T) {
	s := testSet(t, "go 1.25.0\n", gomod("a"), gomod("b", sib+"a v0.3.0"))
	b := s.Modules[1]
	b.Sum = []byte(sib + "a v0.3.0 h1:RELEASED=\n" + sib + "a v0.3.0/go.mod h1:RELEASEDMOD=\n" + sib + "gone v0.3.0 h1:OLD=\nexample.com/x v1.0.0 h1:X=\n")
	p := &Prepared{Version: "v0.3.0", Files: map[string]Files{"b": {
		Mod: b.Mod,
		Sum: []byte("example.com/new v1.1.0 h1:N=\n" + sib + "a v0.3.0 h1:WORKTREE=\n" + sib + "a v0.3.0/go.mod h1:WORKTREEMOD=\n" + sib + "c v0.3.0 h1:C=\nexample.com/x v1.0.0 h1:X=\n"),
	}}}
	got := string(p.Tidied(b).Sum)
	want := "example.com/new v1.1.0 h1:N=\n" + sib + "a v0.3.0 h1:RELEASED=\n" + sib + "a v0.3.0/go.mod h1:RELEASEDMOD=\nexample.com/x v1.0.0 h1:X=\n"
	if got != want {
		t.Fatalf("Tidied go.sum =\n%s\nwant\n%s", got, want)
	}
}

func TestWorkReplaces(t *testing.T) {
	work := "go 1.25.0\n\nuse (\n\t./a\n\t./magefiles\n\t./b\n)\n\nreplace " + sib + "a v0.2.0 => ./a\n\nreplace example.com/x => ../x\n"
	s := testSet(t, work, gomod("a"), gomod("magefiles"), gomod("b", sib+"a v0.3.0"))
	problems := s.WorkReplacesProblems("v0.3.0")
	want := []string{
		"go.work: missing replace " + sib + "a v0.3.0 => ./a",
		"go.work: missing replace " + sib + "b v0.3.0 => ./b",
		"go.work: replace " + sib + "a v0.2.0 => ./a: not a published module at v0.3.0",
	}
	if !slices.Equal(problems, want) {
		t.Fatalf("problems =\n%s\nwant\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	data, err := s.WorkFile("v0.3.0")
	if err != nil {
		t.Fatal(err)
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	fixed := &Set{Modules: s.Modules, work: wf}
	if p := fixed.WorkReplacesProblems("v0.3.0"); len(p) > 0 {
		t.Fatalf("after WorkFile: %v\n%s", p, data)
	}
	if !strings.Contains(string(data), "example.com/x => ../x") || len(wf.Use) != 3 {
		t.Fatalf("WorkFile lost other directives:\n%s", data)
	}
}

func TestCheckVersion(t *testing.T) {
	s := testSet(t, "go 1.25.0\n", gomod("a"), gomod("magefiles"), gomod("b", sib+"a v0.3.0"))
	tags := []string{"a/v0.3.0", "b/v0.3.0", "v0.3.0", "b/v0.4.0-rc.1", "magefiles/v9.0.0", "unrelated"}
	tests := []struct{ version, wantErr string }{
		{"v0.4.0", ""},
		{"v1.0.0", ""},
		{"v0.3.1", "not newer than the tag b/v0.4.0-rc.1"},
		{"v0.3.0", "not newer than v0.3.0"},
		{"v0.4.0-rc.1", "tag b/v0.4.0-rc.1 exists already"},
		{"0.4.0", "full semantic version"},
		{"v0.4", "full semantic version"},
		{"v0.4.0+meta", "full semantic version"},
		{"v2.0.0", "major version v2"},
	}
	for _, tt := range tests {
		err := s.CheckVersion("v0.3.0", tt.version, tags)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckVersion(%s) = %v, want %q", tt.version, err, tt.wantErr)
		}
	}
	if got := releaseTags(s.Modules, "v0.4.0"); !slices.Equal(got, []string{"a/v0.4.0", "b/v0.4.0", "v0.4.0"}) {
		t.Errorf("releaseTags = %v", got)
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.work", "go 1.25.0\n\nuse (\n\t./a\n\t./b\n)\n")
	write("a/go.mod", gomod("a")[1])
	write("b/go.mod", gomod("b", sib+"a v0.1.0")[1])
	write("b/go.sum", sib+"a v0.1.0/go.mod h1:X=\n")
	s, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Modules) != 2 || s.Modules[1].Dir != "b" || s.Modules[1].Path != sib+"b" || len(s.Modules[1].Sum) == 0 || s.Modules[0].Sum != nil {
		t.Fatalf("Load() = %+v", s.Modules)
	}
	write("b/go.mod", "module example.com/elsewhere\n\ngo 1.25.0\n")
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "must be "+sib+"b, or the tag b/vX.Y.Z would not name it") {
		t.Fatalf("Load() with a module path that is not RepoPath/dir: %v", err)
	}
}

func TestModuleFiles(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"LICENSE": "root license", "a/x.go": "package a", "a/go.mod": "stale", "b/LICENSE": "b's own", "b/y.go": "package b"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree := []string{"LICENSE", "a/x.go", "a/go.mod", "a/deleted.go", "ab/z.go", "b/LICENSE", "b/y.go"}
	read := func(files []modzip.File) map[string]string {
		got := map[string]string{}
		for _, f := range files {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(r)
			r.Close()
			got[f.Path()] = string(b)
		}
		return got
	}
	got := read(moduleFiles(root, tree, "a", []byte("new go.mod"), []byte("new go.sum")))
	want := map[string]string{"go.mod": "new go.mod", "go.sum": "new go.sum", "x.go": "package a", "LICENSE": "root license"}
	if !maps.Equal(got, want) {
		t.Errorf("module a: %v, want %v", got, want)
	}
	got = read(moduleFiles(root, tree, "b", []byte("b go.mod"), nil))
	want = map[string]string{"go.mod": "b go.mod", "y.go": "package b", "LICENSE": "b's own"}
	if !maps.Equal(got, want) {
		t.Errorf("module b: %v, want %v", got, want)
	}
}
