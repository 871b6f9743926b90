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
// unshown; the change committed or not. Content that is no text may stay
// as git shows it.
func TestReviewDiffShowsRemovedText(t *testing.T) {
	ctx := context.Background()
	var shapes []fileShape
	for _, s := range fileShapes() {
		if s.link == "" {
			shapes = append(shapes, s)
		}
	}
	for _, how := range []string{"deleted", "replaced by a link", "replaced by a directory"} {
		for _, committed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/committed=%v", how, committed), func(t *testing.T) {
				r := newRepo(t)
				r.write("src/main.txt", "main\n")
				for _, s := range shapes {
					r.write("src/"+s.name, string(s.content))
				}
				r.commitAll("base")
				r.git("checkout", "-q", "-b", "feature")
				for _, s := range shapes {
					p := filepath.Join(r.root, "src", s.name)
					r.remove("src/" + s.name)
					var err error
					switch how {
					case "replaced by a link":
						err = os.Symlink("main.txt", p)
					case "replaced by a directory":
						r.write("src/"+s.name+"/inner.txt", "inner\n")
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if committed {
					r.commitAll("change")
				}
				rd, err := Diff(ctx, r.root, gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}, dirScope("src"))
				if err != nil {
					t.Fatalf("Diff: %v", err)
				}
				checkRemoved(t, rd, shapes)
			})
		}
	}
}

// checkRemoved asserts the class's invariant on rd for the shapes removed
// under src/.
func checkRemoved(t *testing.T, rd ReviewDiff, shapes []fileShape) {
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
		p := "src/" + s.name
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
