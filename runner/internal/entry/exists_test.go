package entry

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// FileExists answers as lstat does for every changed path, whether its
// directory is looked up in a listing (many changed files) or not (few),
// with a listing cut short by its budget, for deleted files, directories
// and symbolic links (dangling ones count as files).
func TestFileExistsAgreesWithLstat(t *testing.T) {
	root := t.TempDir()
	mustDir := func(d string) {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustFile := func(f string) {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustDir("many")
	mustDir("few")
	mustDir("big")
	mustDir("many/sub")
	var files []string
	for i := 0; i < 3*minListed; i++ {
		f := fmt.Sprintf("many/f%d.go", i)
		files = append(files, f)
		switch i % 3 {
		case 0:
			mustFile(f)
		case 1: // deleted: not on disk
		case 2:
			mustDir(f) // a directory where a file was
		}
	}
	if err := os.Symlink("nowhere", filepath.Join(root, "many", "link")); err != nil {
		t.Fatal(err)
	}
	files = append(files, "many/link", "many/sub", "few/a.go", "top.go", "missing/x.go")
	mustFile("few/a.go")
	mustFile("top.go")
	// big: many entries, few of them changed, the changed ones last in
	// no particular order: the budget may end the listing first.
	for i := 0; i < 2000; i++ {
		mustFile(fmt.Sprintf("big/e%04d", i))
	}
	for i := 0; i < minListed; i++ {
		files = append(files, fmt.Sprintf("big/e%04d", 1999-i*7), fmt.Sprintf("big/gone%d", i))
	}
	rand.New(rand.NewSource(1)).Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	exists := FileExists(root, files)
	for _, f := range append(files, "few/b.go", "many/f0.go") {
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f)))
		want := err == nil && !st.IsDir()
		if got := exists(f); got != want {
			t.Errorf("%s: %v, lstat says %v", f, got, want)
		}
	}
}
