package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// fileShape is one way a changed file can look: its bytes (or a link),
// the marker a reviewer must find in an added line when it is shown, and
// whether it is text a reviewer can be shown.
type fileShape struct {
	name    string
	content []byte
	link    string
	marker  string
	text    bool
}

// utf16Bytes is s in UTF-16, big-endian when be, with a byte order mark
// when bom.
func utf16Bytes(s string, be, bom bool) []byte {
	var out []byte
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	for _, u := range units {
		if be {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// fileShapes are the shapes of the class: text git reads as text, text
// git calls binary (NUL anywhere, UTF-16 with and without a byte order
// mark), content that is no text, links in and out of the project.
func fileShapes() []fileShape {
	js := func(m string) string { return "const a = 1;\nconsole.log(\"" + m + "\");\n" }
	var shapes []fileShape
	add := func(name string, content []byte, marker string, text bool) {
		shapes = append(shapes, fileShape{name: name, content: content, marker: marker, text: text})
	}
	add("plain.js", []byte(js("MARK-plain")), "MARK-plain", true)
	add("nul-start.js", []byte("\x00"+js("MARK-nul-start")), "MARK-nul-start", true)
	add("nul-line.js", []byte("const a = 1;\nconsole.log(\"MARK-nul-line\x00\");\n"), "MARK-nul-line", true)
	add("nul-end.js", []byte(js("MARK-nul-end")+"// \x00"), "MARK-nul-end", true)
	add("latin1.js", []byte("// caf\xe9\n"+js("MARK-latin1")), "MARK-latin1", true)
	for _, be := range []bool{false, true} {
		for _, bom := range []bool{false, true} {
			name := fmt.Sprintf("utf16-be%v-bom%v", be, bom)
			add(name+".js", utf16Bytes(js("MARK-"+name), be, bom), "MARK-"+name, true)
		}
	}
	add("image.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\xff\xfe\xfd"), "", false)
	shapes = append(shapes,
		fileShape{name: "link-in.js", link: "plain.js", marker: "plain.js", text: true},
		fileShape{name: "link-out.js", link: "../../../outside/MARK-out.js", marker: "", text: false},
	)
	return shapes
}

// place is where the changed files lie: the project's own tree, a
// submodule, a repository of its own that the project does not track;
// their change committed (there, and the pointer in the project) or not.
type place struct {
	kind      string // "tree", "submodule", "nested"
	committed bool
	modified  bool // the files exist (as plain text) on the base
}

// TestReviewDiffShowsEveryChange: for every changed path of a review's
// scope, in every place, the reviewer's diff holds its added lines as
// text, or NotShown names it, never neither; text is always shown.
func TestReviewDiffShowsEveryChange(t *testing.T) {
	ctx := context.Background()
	shapes := fileShapes()
	for _, kind := range []string{"tree", "submodule", "nested"} {
		for _, committed := range []bool{false, true} {
			for _, modified := range []bool{false, true} {
				pl := place{kind: kind, committed: committed, modified: modified}
				t.Run(fmt.Sprintf("%s/committed=%v/modified=%v", kind, committed, modified), func(t *testing.T) {
					r, prefix := placeRepo(t, pl, shapes)
					rd, err := Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, dirScope("src"))
					if err != nil {
						t.Fatalf("Diff: %v", err)
					}
					checkShown(t, rd, prefix, shapes)
				})
			}
		}
	}
}

// placeRepo makes a project whose feature branch changes the shapes in
// place pl; prefix is where they lie.
func placeRepo(t *testing.T, pl place, shapes []fileShape) (*repo, string) {
	r := newRepo(t)
	r.write("src/main.txt", "main\n")
	w, prefix := r, "src/"
	switch pl.kind {
	case "tree":
		if pl.modified {
			for _, s := range shapes {
				r.write("src/"+s.name, "base\n")
			}
		}
	case "submodule":
		prefix = "src/sub/"
		sub := newRepoAt(t, t.TempDir())
		sub.write("keep.txt", "keep\n")
		if pl.modified {
			for _, s := range shapes {
				sub.write(s.name, "base\n")
			}
		}
		sub.commitAll("lib")
		r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "src/sub")
		w = &repo{t: t, root: filepath.Join(r.root, "src", "sub")}
		w.git("config", "commit.gpgsign", "false")
	case "nested":
		prefix = "src/dep/"
		if err := os.MkdirAll(filepath.Join(r.root, "src", "dep"), 0o755); err != nil {
			t.Fatal(err)
		}
		w = newRepoAt(t, filepath.Join(r.root, "src", "dep"))
		w.write("keep.txt", "keep\n")
		if pl.modified {
			for _, s := range shapes {
				w.write(s.name, "base\n")
			}
		}
		w.commitAll("dep")
	}
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	for _, s := range shapes {
		p := filepath.Join(r.root, filepath.FromSlash(prefix+s.name))
		_ = os.Remove(p)
		var err error
		if s.link != "" {
			err = os.Symlink(s.link, p)
		} else {
			err = os.WriteFile(p, s.content, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if pl.committed {
		if w != r {
			w.commitAll("change")
		}
		if pl.kind != "nested" {
			r.commitAll("change")
		}
	}
	return r, prefix
}

// checkShown asserts the class's invariant on rd for the shapes under
// prefix.
func checkShown(t *testing.T, rd ReviewDiff, prefix string, shapes []fileShape) {
	t.Helper()
	added := map[string]string{}
	for _, s := range splitSections(rd.Text) {
		for _, l := range strings.Split(s.body, "\n") {
			if strings.HasPrefix(l, "+") {
				added[s.path] += l + "\n"
			}
		}
	}
	named := map[string]string{}
	for _, n := range rd.NotShown {
		named[n.Path] = n.Why
	}
	for _, s := range shapes {
		p := prefix + s.name
		shown := s.marker != "" && strings.Contains(added[p], s.marker)
		why, isNamed := named[p]
		switch {
		case !shown && !isNamed:
			t.Errorf("%s: neither shown nor named\n%s", p, rd.Text)
		case s.text && !shown:
			t.Errorf("%s is text but not shown (named: %s)", p, why)
		case s.text && isNamed:
			t.Errorf("%s is shown but also named: %s", p, why)
		case !s.text && !isNamed:
			t.Errorf("%s cannot be shown as text but is not named", p)
		}
	}
	if strings.Contains(rd.Text, "Subproject commit") {
		t.Errorf("a repository shown as its commit:\n%s", rd.Text)
	}
}

// A diff over the size bound names each path it no longer holds.
func TestReviewDiffNamesWhatTheBoundCuts(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("src/main.txt", "main\n")
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	r.write("src/a.txt", "MARK-a\n")
	huge := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", MaxDiffBytes/64+64)
	r.write("src/b-huge.txt", huge)
	r.write("src/c.txt", "MARK-c\n")
	rd, err := Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffUncommitted}, dirScope("src"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rd.Text, TruncatedNote) || len(rd.Text) > MaxDiffBytes+len(TruncatedNote) {
		t.Errorf("diff of %d bytes, cut note %v", len(rd.Text), strings.HasSuffix(rd.Text, TruncatedNote))
	}
	if !strings.Contains(rd.Text, "+MARK-a") {
		t.Errorf("src/a.txt, before the cut, is not shown")
	}
	got := map[string]bool{}
	for _, n := range rd.NotShown {
		got[n.Path] = true
	}
	if !got["src/b-huge.txt"] || !got["src/c.txt"] || got["src/a.txt"] || len(got) != 2 {
		t.Errorf("named %v; want src/b-huge.txt and src/c.txt", rd.NotShown)
	}
}

// BenchmarkReviewDiff is the review diff of 200 changed text files, with
// and without 20 more that git calls binary (a NUL, UTF-16).
func BenchmarkReviewDiff(b *testing.B) {
	for _, binaries := range []int{0, 20} {
		b.Run(fmt.Sprintf("binary=%d", binaries), func(b *testing.B) {
			ctx := context.Background()
			testenv.Setenv(b)
			r := &repo{root: b.TempDir()}
			benchRepo(b, r, binaries)
			spec := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
			tree, err := SnapshotTree(ctx, r.root)
			if err != nil {
				b.Fatal(err)
			}
			spec.WorkTree, spec.ReadTree = tree, tree
			b.ResetTimer()
			for range b.N {
				if _, err := Diff(ctx, r.root, spec, dirScope("src")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchRepo fills r: a base on main, a feature branch changing 200 text
// files and adding binaries files git calls binary.
func benchRepo(b *testing.B, r *repo, binaries int) {
	write := func(name string, content []byte) {
		p := filepath.Join(r.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		write(fmt.Sprintf("src/f%03d.go", i), []byte(strings.Repeat("package a // line\n", 50)))
	}
	run := func(args ...string) {
		if _, _, err := run(context.Background(), call{root: r.root, args: args}); err != nil {
			b.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	run("checkout", "-q", "-b", "feature")
	for i := range 200 {
		write(fmt.Sprintf("src/f%03d.go", i), []byte(strings.Repeat("package a // line\n", 49)+"// changed\n"))
	}
	for i := range binaries {
		write(fmt.Sprintf("src/b%03d.js", i), []byte(strings.Repeat("console.log(1);\n", 40)+"// \x00\n"))
	}
}

// A bumped submodule whose files are not in the work tree (deinit) is
// shown as its commit and named; in a review of the commit that bumped
// it, with its repository there, as its lines.
func TestReviewDiffSubmoduleCommits(t *testing.T) {
	ctx := context.Background()
	r, _ := placeRepo(t, place{kind: "submodule", committed: true}, fileShapes()[:1])
	head := r.git("rev-parse", "HEAD")
	rd, err := Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffCommit, Commit: head}, dirScope("src"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rd.Text, "+console.log(\"MARK-plain\");") || len(rd.NotShown) != 0 {
		t.Errorf("commit review: named %v\n%s", rd.NotShown, rd.Text)
	}
	r.git("submodule", "deinit", "-q", "-f", "src/sub")
	rd, err = Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, dirScope("src"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.NotShown) != 1 || rd.NotShown[0].Path != "src/sub" || !strings.Contains(rd.NotShown[0].Why, "only the commit") {
		t.Errorf("named %v; want src/sub, shown as its commit\n%s", rd.NotShown, rd.Text)
	}
}
