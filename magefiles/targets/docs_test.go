package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsIndex pins that README.md lists every page of docs/: a page
// added there without a row in the README's table is a page nobody finds.
func TestDocsIndex(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no page in docs/")
	}
	for _, p := range pages {
		page := "docs/" + filepath.Base(p)
		if !strings.Contains(string(readme), "| ["+page+"]("+page+") |") {
			t.Errorf("README.md's table of pages has no row for %s", page)
		}
	}
}
