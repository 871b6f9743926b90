package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineDiffSeesTheBytes pins what maps a finding's line to the base
// (LineDiff).
//
// Invariant: the line diff is the diff of the bytes on disk against the
// base's blobs, whatever git attributes say and wherever they are set: a
// file marked -diff or binary, one whose diff driver converts it (textconv)
// or calls it binary, a clean filter, an end-of-line setting, or bytes git
// takes for binary (a NUL) all give the hunks of the plain file. A diff
// that said "Binary files differ" named no line changed, and a check
// finding on a rewritten line passed as the base's.
//
// The table is every attribute × every place attributes are read from ×
// text and NUL content.
func TestLineDiffSeesTheBytes(t *testing.T) {
	attrs := []struct {
		attr   string
		config [][]string
	}{
		{"-diff", nil},
		{"binary", nil},
		{"diff=hide", [][]string{{"diff.hide.textconv", "sed -e s/bad/ok/"}}},
		{"diff=bin", [][]string{{"diff.bin.binary", "true"}}},
		{"filter=hide", [][]string{{"filter.hide.clean", "sed -e s/bad/ok/"}}},
		{"text=auto", nil},
		{"-text", nil},
		{"eol=crlf", nil},
	}
	places := []string{".gitattributes", ".git/info/attributes", "core.attributesFile"}
	contents := []struct{ name, base, work string }{
		{"text", "one\ntwo\nbad\n", "uno\ntwo\nbad\n"},
		{"nul", "one\x00\ntwo\nbad\n", "uno\x00\ntwo\nbad\n"},
	}
	for _, a := range attrs {
		for _, place := range places {
			for _, c := range contents {
				t.Run(a.attr+"/"+place+"/"+c.name, func(t *testing.T) {
					r := newRepo(t)
					line := "f.txt " + a.attr + "\n"
					switch place {
					case ".gitattributes":
						r.write(".gitattributes", line)
					case ".git/info/attributes":
						r.write(".git/info/attributes", line)
					default:
						p := filepath.Join(t.TempDir(), "attributes")
						if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
							t.Fatal(err)
						}
						r.git("config", "core.attributesFile", p)
					}
					for _, kv := range a.config {
						r.git("config", kv[0], kv[1])
					}
					r.write("f.txt", c.base)
					base := r.commitAll("base")
					r.write("f.txt", c.work)
					diff, cut, err := LineDiff(context.Background(), r.root, base)
					if err != nil || cut {
						t.Fatalf("LineDiff: %v (cut %v)", err, cut)
					}
					if !strings.Contains(diff, "@@ -1 +1 @@") || strings.Contains(diff, "Binary files") {
						t.Fatalf("line 1's change is not a hunk of its own:\n%s", diff)
					}
				})
			}
		}
	}
}
