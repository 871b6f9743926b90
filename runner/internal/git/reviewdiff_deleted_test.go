package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// TestReviewDiffShowsRemovedText: the side of a change that goes away is
// text to its reviewer as much as the side that comes: for every file
// shape that is text (git reading it as text or calling it binary: a NUL
// anywhere, UTF-16, Latin-1) that the change deletes, or replaces by a
// link or a directory, the reviewer's diff holds its lines as removed
// lines, never git's "Binary files … differ", and does not name it as
// unshown; in the project's tree, a submodule or a repository of its own,
// the change committed or not. Content that is no text may stay as git
// shows it.
func TestReviewDiffShowsRemovedText(t *testing.T) {
	ctx := context.Background()
	var shapes []fileShape
	for _, s := range fileShapes() {
		if s.link == "" {
			shapes = append(shapes, s)
		}
	}
	for _, kind := range []string{"tree", "submodule", "nested"} {
		for _, how := range []string{"deleted", "replaced by a link", "replaced by a directory"} {
			for _, committed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/committed=%v", kind, how, committed), func(t *testing.T) {
					r, prefix := removedRepo(t, kind, how, committed, shapes)
					rd, err := Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, dirScope("src"))
					if err != nil {
						t.Fatalf("Diff: %v", err)
					}
					checkRemoved(t, rd, prefix, shapes)
				})
			}
		}
	}
}

// removedRepo makes a project whose base holds the shapes in a place of
// kind (as placeRepo) and whose feature branch removes them as how says;
// prefix is where they lie.
func removedRepo(t *testing.T, kind, how string, committed bool, shapes []fileShape) (*repo, string) {
	r := newRepo(t)
	r.write("src/main.txt", "main\n")
	w, prefix := r, "src/"
	fill := func(w *repo) {
		w.write("keep.txt", "keep\n")
		for _, s := range shapes {
			w.write(s.name, string(s.content))
		}
	}
	switch kind {
	case "tree":
		for _, s := range shapes {
			r.write("src/"+s.name, string(s.content))
		}
	case "submodule":
		prefix = "src/sub/"
		sub := newRepoAt(t, t.TempDir())
		fill(sub)
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
		fill(w)
		w.commitAll("dep")
	}
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	for _, s := range shapes {
		p := filepath.Join(r.root, filepath.FromSlash(prefix+s.name))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "replaced by a link":
			if err := os.Symlink("keep.txt", p); err != nil {
				t.Fatal(err)
			}
		case "replaced by a directory":
			w.write(strings.TrimPrefix(filepath.Join(p, "inner.txt"), w.root+string(filepath.Separator)), "inner\n")
		}
	}
	if committed {
		if w != r {
			w.commitAll("change")
		}
		if kind != "nested" {
			r.commitAll("change")
		}
	}
	return r, prefix
}

// checkRemoved asserts the class's invariant on rd for the shapes removed
// under prefix.
func checkRemoved(t *testing.T, rd ReviewDiff, prefix string, shapes []fileShape) {
	t.Helper()
	removed, binary := map[string]string{}, map[string]bool{}
	for _, s := range splitSections(rd.Text) {
		if hasLine(s.header, "Binary files ") {
			binary[s.path] = true
		}
		for _, l := range strings.Split(s.body, "\n") {
			if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--- ") {
				removed[s.path] += l + "\n"
			}
		}
	}
	named := map[string]string{}
	for _, n := range rd.NotShown {
		named[n.Path] = n.Why
	}
	for _, s := range shapes {
		if !s.text {
			continue
		}
		p := prefix + s.name
		switch {
		case binary[p]:
			t.Errorf("%s is text but shown as binary\n%s", p, rd.Text)
		case !strings.Contains(removed[p], s.marker):
			t.Errorf("%s: its removed lines are not shown (want %q)\n%s", p, s.marker, rd.Text)
		case named[p] != "":
			t.Errorf("%s is shown but also named: %s", p, named[p])
		}
	}
}
