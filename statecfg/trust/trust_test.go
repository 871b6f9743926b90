package trust

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

const (
	configYML = "cli:\n  default_preference: [claude]\nentry_points:\n  - path: .\n    checks: [lint]\n"
	lintYML   = "command: make lint\n"
	weakYML   = "command: \"true\"\n"
)

// repo makes a git repository holding files, committed, and returns its
// top level (links resolved, as git names it).
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	testenv.Setenv(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	write(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	return dir
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func locate(t *testing.T, root string) place.Place {
	t.Helper()
	p, err := place.Locate(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func files(kv ...string) config.Files {
	f := config.Files{}
	for i := 0; i < len(kv); i += 2 {
		f[kv[i]] = []byte(kv[i+1])
	}
	return f
}

func TestRecordRoundTrip(t *testing.T) {
	top := repo(t, nil)
	p := locate(t, top)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	want := Record{Project: ".", TrustedAt: at, How: HowTerminal, Others: true, Entries: true,
		Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", "\x00\xff binary\n")}
	if err := WriteRecord(p, want); err != nil {
		t.Fatal(err)
	}
	if got := RecordPath(p); got != filepath.Join(top, ".git", "agent-gauntlet", "trust", "%2E.json") {
		t.Errorf("RecordPath = %s", got)
	}
	got, err := ReadRecord(p)
	if err != nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("ReadRecord = %+v, %v; want %+v", got, err, want)
	}
}

func TestNoRecord(t *testing.T) {
	p := locate(t, repo(t, nil))
	if rec, err := ReadRecord(p); rec != nil || err != nil {
		t.Errorf("ReadRecord without a record = %v, %v", rec, err)
	}
}

// A record that was cut short anywhere, or had any byte changed, is
// either refused as unusable or read as exactly what was written: never
// read as another configuration, never as no record.
func TestDamagedRecordIsUnusable(t *testing.T) {
	top := repo(t, nil)
	p := locate(t, top)
	want := Record{Project: ".", TrustedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), How: HowYes, Others: true, Entries: true,
		Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML)}
	if err := WriteRecord(p, want); err != nil {
		t.Fatal(err)
	}
	path := RecordPath(p)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRecord(p)
		switch {
		case err != nil && (got != nil || !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: ReadRecord = %v, %v; want an ErrUnusable naming the file", what, got, err)
		case err == nil && (got == nil || !reflect.DeepEqual(*got, want)):
			t.Errorf("%s: ReadRecord = %+v; want the record written or an error", what, got)
		}
	}
	for n := range len(orig) - 1 {
		check("cut", orig[:n])
	}
	for i := range orig {
		for _, b := range []byte{'0', 'a', '"', '}', ' ', 0} {
			if orig[i] == b {
				continue
			}
			mutated := append([]byte(nil), orig...)
			mutated[i] = b
			check("byte changed", mutated)
		}
	}
}

func TestUnusableRecords(t *testing.T) {
	top := repo(t, map[string]string{"sub/x": ""})
	p := locate(t, top)
	sub := locate(t, filepath.Join(top, "sub"))
	rec := Record{TrustedAt: time.Now(), How: HowInit, Files: files(".gauntlet/config.yml", configYML)}
	if err := WriteRecord(sub, rec); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(RecordPath(sub))
	if err != nil {
		t.Fatal(err)
	}
	path := RecordPath(p)
	for name, put := range map[string]func() error{
		"another project's": func() error { return os.WriteFile(path, foreign, 0o644) },
		"another format": func() error {
			return os.WriteFile(path, []byte(strings.Replace(string(foreign), `"format": 1`, `"format": 2`, 1)), 0o644)
		},
		"an unknown field": func() error {
			return os.WriteFile(path, []byte(strings.Replace(string(foreign), "{", `{"x": 1,`, 1)), 0o644)
		},
		"empty":           func() error { return os.WriteFile(path, nil, 0o644) },
		"a directory":     func() error { return os.Mkdir(path, 0o755) },
		"a dangling link": func() error { return os.Symlink(filepath.Join(top, "missing"), path) },
		"a FIFO":          func() error { return fifotest.Make(path) },
		"too large": func() error {
			return os.WriteFile(path, []byte(strings.Repeat(" ", MaxRecordBytes+1)), 0o644)
		},
	} {
		_ = os.RemoveAll(path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := put(); errors.Is(err, errors.ErrUnsupported) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		got, err := ReadRecord(p)
		if got != nil || !errors.Is(err, ErrUnusable) {
			t.Errorf("%s: ReadRecord = %v, %v; want ErrUnusable", name, got, err)
		}
	}
}

// Without a record, the trusted configuration is the one committed at
// HEAD: uncommitted edits are not part of it, a later commit is (until
// Pin records it); an unusable record falls back to it, saying so.
func TestResolve(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/checks/lint.yml": lintYML, ".gauntlet/README": "not read"})
	head := git(t, top, "rev-parse", "HEAD")
	p := locate(t, top)
	write(t, top, map[string]string{".gauntlet/checks/lint.yml": weakYML})

	tr, err := Resolve(t.Context(), p)
	want := files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML, ".gauntlet/README", "not read")
	if err != nil || tr.Source != SourceHEAD || tr.Commit != head || !reflect.DeepEqual(tr.Files, want) || tr.Unusable != nil {
		t.Fatalf("Resolve without a record = %+v, %v", tr, err)
	}
	cfg, err := tr.Load(t.Context(), top)
	if err != nil || cfg.Checks["lint"].Command != "make lint" {
		t.Fatalf("the trusted configuration loads as %+v, %v", cfg, err)
	}

	if err := Pin(p, tr, time.Now()); err != nil {
		t.Fatal(err)
	}
	git(t, top, "commit", "-qam", "weaken")
	tr, err = Resolve(t.Context(), p)
	if err != nil || tr.Source != SourceRecord || tr.Record.How != HowHEAD || tr.Record.Commit != head || !reflect.DeepEqual(tr.Files, want) {
		t.Fatalf("Resolve after Pin = %+v, %v", tr, err)
	}

	if err := os.WriteFile(RecordPath(p), []byte("{torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err = Resolve(t.Context(), p)
	if err != nil || tr.Source != SourceHEAD || !errors.Is(tr.Unusable, ErrUnusable) || string(tr.Files[".gauntlet/checks/lint.yml"]) != weakYML {
		t.Fatalf("Resolve with a torn record = %+v, %v", tr, err)
	}
	if err := Pin(p, tr, time.Now()); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(RecordPath(p)); string(data) != "{torn" {
		t.Errorf("Pin replaced an unusable record: a person should look at it")
	}
}

func TestResolveNothingCommitted(t *testing.T) {
	testenv.Setenv(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, map[string]string{".gauntlet/config.yml": configYML})
	tr, err := Resolve(t.Context(), locate(t, dir))
	if err != nil || tr.Source != SourceNone || len(tr.Files) != 0 {
		t.Fatalf("Resolve in a repository without commits = %+v, %v", tr, err)
	}
	if _, err := tr.Load(t.Context(), dir); !errors.Is(err, config.ErrNotFound) {
		t.Errorf("no trusted configuration loads as %v", err)
	}
}

// Every worktree of a repository shares the records; a project in a
// subdirectory has its own.
func TestPlacesSharedByWorktrees(t *testing.T) {
	top := repo(t, map[string]string{"sub/x": ""})
	wt := filepath.Join(filepath.Dir(top), filepath.Base(top)+"-wt")
	git(t, top, "worktree", "add", "-q", wt)
	t.Cleanup(func() { _ = os.RemoveAll(wt) })
	main, other := locate(t, top), locate(t, wt)
	if RecordPath(main) != RecordPath(other) {
		t.Errorf("worktrees keep different records: %s, %s", RecordPath(main), RecordPath(other))
	}
	subMain, subOther := locate(t, filepath.Join(top, "sub")), locate(t, filepath.Join(wt, "sub"))
	if subMain.Prefix != "sub/" || RecordPath(subMain) != RecordPath(subOther) || RecordPath(subMain) == RecordPath(main) {
		t.Errorf("subdirectory places: %+v, %+v", subMain, subOther)
	}
}

// HEAD's configuration follows symbolic links inside the commit's
// .gauntlet/; one that leads out of it reads as missing.
func TestHeadFilesLinks(t *testing.T) {
	top := repo(t, map[string]string{
		".gauntlet/config.yml":         configYML + "  - path: src\n    checks: [fmt, outside]\n",
		".gauntlet/shared/lint.yml":    lintYML,
		".gauntlet/shared/fmt.yml":     "command: gofmt -l .\n",
		"elsewhere.yml":                "command: outside\n",
		".gauntlet/checks/placeholder": "",
	})
	for link, target := range map[string]string{
		".gauntlet/checks/lint.yml":    "../shared/lint.yml",
		".gauntlet/checks/fmt.yml":     "../checks/fmt2.yml",
		".gauntlet/checks/fmt2.yml":    "../shared/fmt.yml",
		".gauntlet/checks/outside.yml": "../../elsewhere.yml",
	} {
		if err := os.Symlink(target, filepath.Join(top, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	git(t, top, "add", "-A")
	git(t, top, "commit", "-qm", "links")
	c, err := HeadFiles(t.Context(), locate(t, top))
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Files[".gauntlet/checks/lint.yml"]) != lintYML || string(c.Files[".gauntlet/checks/fmt.yml"]) != "command: gofmt -l .\n" {
		t.Errorf("links inside .gauntlet/ not followed: %q", c.Files)
	}
	if got := c.Files[".gauntlet/checks/outside.yml"]; string(got) != string(config.TreeEntry(false, true, []byte("../../elsewhere.yml"))) {
		t.Errorf("a link out of .gauntlet/ is not held as the link: %q", got)
	}
	if string(c.Files[".gauntlet/shared/lint.yml"]) != lintYML {
		t.Errorf("a file not read by the loader, kept as another file, lost its content")
	}
	// The disk reads the same files: a link inside .gauntlet/ followed, one
	// out of it held as the link (the loader reads it on disk, not in a
	// commit).
	work, err := config.ReadFiles(top)
	if err != nil {
		t.Fatal(err)
	}
	work[".gauntlet/checks/outside.yml"] = c.Files[".gauntlet/checks/outside.yml"] // followed on disk
	if d := Compare(c.Files, work); !d.Empty() {
		t.Errorf("HEAD's configuration and the same on disk differ: %s", d)
	}
}

// A .gauntlet/ deleted from the work tree is still the project: found by
// its record or by HEAD's configuration.
func TestFindRootOfADeletedConfiguration(t *testing.T) {
	top := repo(t, map[string]string{"app/.gauntlet/config.yml": configYML, "app/.gauntlet/checks/lint.yml": lintYML, "app/src/main.go": "", "other/x": ""})
	app := filepath.Join(top, "app")
	if err := os.RemoveAll(filepath.Join(app, ".gauntlet")); err != nil {
		t.Fatal(err)
	}
	root, ok, err := FindRoot(t.Context(), filepath.Join(app, "src"))
	if err != nil || !ok || root != app {
		t.Errorf("FindRoot with .gauntlet/ committed, deleted = %q, %v, %v", root, ok, err)
	}
	if root, ok, err := FindRoot(t.Context(), filepath.Join(top, "other")); ok || err != nil {
		t.Errorf("FindRoot outside any project = %q, %v", root, err)
	}

	git(t, top, "commit", "-qam", "delete the configuration")
	if root, ok, err := FindRoot(t.Context(), filepath.Join(app, "src")); ok || err != nil {
		t.Errorf("FindRoot with no record and nothing at HEAD = %q, %v", root, err)
	}
	if err := WriteRecord(locate(t, app), Record{How: HowTerminal, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
		t.Fatal(err)
	}
	root, ok, err = FindRoot(t.Context(), filepath.Join(app, "src"))
	if err != nil || !ok || root != app {
		t.Errorf("FindRoot with a record = %q, %v, %v", root, ok, err)
	}
}

// The nearest project wins; a commit names one only in a repository whose
// trust store holds no record (Upgraded): where a record exists, a
// configuration committed nearer and without a record of its own is the
// agent's to have made, and the record's project wins. When the directory
// searched from has a record, git is not asked at all (the stop hook's
// fast path): a git that fails then changes nothing.
func TestFindRootNearestFirst(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, "app/.gauntlet/config.yml": configYML, "app/src/x": ""})
	app := filepath.Join(top, "app")
	for _, dir := range []string{top, app} {
		if err := os.RemoveAll(filepath.Join(dir, ".gauntlet")); err != nil {
			t.Fatal(err)
		}
	}
	if root, ok, err := FindRoot(t.Context(), filepath.Join(app, "src")); err != nil || !ok || root != app {
		t.Errorf("committed, no record at all: FindRoot = %q, %v, %v; want %s", root, ok, err, app)
	}
	if err := WriteRecord(locate(t, top), Record{How: HowTerminal, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
		t.Fatal(err)
	}
	if root, ok, err := FindRoot(t.Context(), filepath.Join(app, "src")); err != nil || !ok || root != top {
		t.Errorf("committed nearer than a record: FindRoot = %q, %v, %v; want %s", root, ok, err, top)
	}
	if err := WriteRecord(locate(t, app), Record{How: HowTerminal, Files: files(".gauntlet/config.yml", configYML)}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no git to ask
	if root, ok, err := FindRoot(t.Context(), app); err != nil || !ok || root != app {
		t.Errorf("record at the nearest place, without git: FindRoot = %q, %v, %v", root, ok, err)
	}
}

func TestInspect(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/checks/lint.yml": lintYML})
	p := locate(t, top)
	st, _, err := Inspect(t.Context(), top)
	if err != nil || !st.Trusted || st.Source != SourceHEAD || !strings.Contains(st.Describe(), "committed at HEAD") {
		t.Errorf("Inspect of HEAD's configuration = %+v, %v", st, err)
	}
	if err := WriteRecord(p, Record{How: HowTerminal, Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML)}); err != nil {
		t.Fatal(err)
	}
	write(t, top, map[string]string{".gauntlet/checks/lint.yml": weakYML, ".gauntlet/reviews/new.md": "Review.\n",
		".gauntlet/config.yml": configYML + "    reviews: [new]\n"})
	st, _, err = Inspect(t.Context(), top)
	want := Diff{Added: []string{".gauntlet/reviews/new.md"}, Changed: []string{".gauntlet/checks/lint.yml", ".gauntlet/config.yml"}}
	if err != nil || st.Trusted || !reflect.DeepEqual(st.Diff, want) {
		t.Errorf("Inspect of an edited configuration = %+v, %v; want %+v", st, err, want)
	}
	if d := st.Describe(); !strings.Contains(d, "differs from the trusted one") || !strings.Contains(d, AdoptHint) ||
		!strings.Contains(d, "changed .gauntlet/checks/lint.yml, .gauntlet/config.yml; added .gauntlet/reviews/new.md") {
		t.Errorf("Describe = %s", d)
	}

	if err := os.Remove(filepath.Join(top, ".gauntlet", "checks", "lint.yml")); err != nil {
		t.Fatal(err)
	}
	fifotest.Create(t, filepath.Join(top, ".gauntlet", "checks", "lint.yml"))
	st, _, err = Inspect(t.Context(), top)
	if err != nil || st.Trusted || !strings.Contains(strings.Join(st.Changed, " "), ".gauntlet/checks/lint.yml") {
		t.Errorf("Inspect with a FIFO for a check = %+v, %v", st, err)
	}

	if err := os.RemoveAll(filepath.Join(top, ".gauntlet")); err != nil {
		t.Fatal(err)
	}
	st, _, err = Inspect(t.Context(), top)
	want = Diff{Removed: []string{".gauntlet/checks/lint.yml", ".gauntlet/config.yml"}}
	if err != nil || st.Trusted || !reflect.DeepEqual(st.Diff, want) {
		t.Errorf("Inspect of a deleted configuration = %+v, %v", st, err)
	}
}

// A record of an older version holds only the files the loader reads: it
// is compared on those alone, so an upgrade never reads as a changed
// configuration; a record written now compares every file of .gauntlet/.
func TestRecordOfAnOlderVersionComparesLoadedFiles(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/checks/lint.yml": lintYML, ".gauntlet/checks/lint.sh": "exit 1\n"})
	work, err := config.ReadFiles(top)
	if err != nil {
		t.Fatal(err)
	}
	old := &Record{Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML)}
	if d := Compare(old.Files, old.Comparable(top, work)); !d.Empty() {
		t.Errorf("an older record differs after an upgrade alone: %s", d)
	}
	now := &Record{Files: old.Files, Others: true}
	if d := Compare(now.Files, now.Comparable(top, work)); d.String() == "" || !slices.Contains(d.Added, ".gauntlet/checks/lint.sh") {
		t.Errorf("a record of this version does not see the helper script: %+v", d)
	}
}
