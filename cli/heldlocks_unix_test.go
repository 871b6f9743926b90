//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["holdlock"] = cmdHoldLock }

// cmdHoldLock takes an exclusive flock(2) of every file or directory under
// dir whose path relative to dir matches the regular expression re (at
// least one), and holds it until the script ends: a lock held on purpose,
// as an agent's process can hold one of the gauntlet's.
//
//	holdlock dir re
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: holdlock dir re")
	}
	dir, re := ts.MkAbs(args[0]), regexp.MustCompile(args[1])
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !re.MatchString(filepath.ToSlash(rel)) || !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return err
		}
		ts.Defer(func() { f.Close() })
		n++
		return nil
	})
	ts.Check(err)
	if n == 0 {
		ts.Fatalf("holdlock: nothing under %s matches %s", dir, re)
	}
}
