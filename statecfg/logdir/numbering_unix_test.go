//go:build unix

package logdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Whatever is put at a numbered name in the gauntlet's formats (a
// directory, a FIFO, a symbolic link, dangling or not, a regular file),
// the next run's names are free: NextRunNumber numbers past it, so no
// run ever fails to create its console log or a gate's log there.
func TestNextRunNumberNamesAreFree(t *testing.T) {
	plant := map[string]func(p string) error{
		"directory": func(p string) error { return os.Mkdir(p, 0o755) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"symlink":   func(p string) error { return os.Symlink("console.1.log", p) },
		"dangling":  func(p string) error { return os.Symlink("nowhere", p) },
		"file":      func(p string) error { return os.WriteFile(p, nil, 0o644) },
	}
	names := []string{"console.2.log", "check_src_lint.2.log", "review_src_qa_claude@1.2.log", "review_src_qa_claude@1.2.json"}
	for kind, mk := range plant {
		for _, name := range names {
			t.Run(kind+"/"+name, func(t *testing.T) {
				dir := makeDir(t, "console.1.log", "check_src_lint.1.log")
				if err := mk(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
				n, err := NextRunNumber(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []Name{ConsoleName(n), {Kind: KindJobLog, Stem: "check_src_lint", Run: n}} {
					if _, err := os.Lstat(want.Path(dir)); err == nil {
						t.Errorf("NextRunNumber = %d: %s is taken", n, want.Path(dir))
					}
				}
				if n <= 2 {
					t.Errorf("NextRunNumber = %d, want past the entry at %s", n, name)
				}
			})
		}
	}
}
