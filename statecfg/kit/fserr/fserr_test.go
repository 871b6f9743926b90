package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWrap(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, readDir := os.ReadFile(dir)
	mkdirUnder := os.MkdirAll(filepath.Join(file, "sub"), 0o755)
	rename := os.Rename(filepath.Join(dir, "missing"), file)
	tests := []struct {
		name string
		err  error
		path string
		want string
	}{
		{"the same path once", readDir, dir, "read " + dir + ": is a directory"},
		{"another path is kept", mkdirUnder, filepath.Join(file, "sub"), "read " + filepath.Join(file, "sub") + ": mkdir " + file + ": not a directory"},
		{"a rename naming the path", rename, file, "read " + file + ": no such file or directory"},
		{"a plain error", errors.New("boom"), file, "read " + file + ": boom"},
	}
	for _, tc := range tests {
		got := Wrap("read", tc.path, tc.err)
		if got.Error() != tc.want {
			t.Errorf("%s: Wrap = %q, want %q", tc.name, got, tc.want)
		}
		if strings.Count(got.Error(), tc.path+":") > 1 {
			t.Errorf("%s: %q names the path twice", tc.name, got)
		}
	}
	if !errors.Is(Wrap("read", dir, readDir), readDir.(*fs.PathError).Err) {
		t.Error("Wrap hides the cause from errors.Is")
	}
	if Wrap("read", dir, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	if got := Pathless(readDir).Error(); got != "is a directory" {
		t.Errorf("Pathless = %q", got)
	}
}

// Exhausted tells a file system that cannot take a write from any other
// error, through wrapping.
func TestExhausted(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}, true},
		{fmt.Errorf("write log: %w", &fs.PathError{Op: "write", Path: "/x", Err: syscall.EFBIG}), true},
		{syscall.EDQUOT, true},
		{syscall.EROFS, true},
		{fs.ErrPermission, false},
		{errors.New("no space left on device"), false},
		{nil, false},
	} {
		if got := Exhausted(tc.err); got != tc.want {
			t.Errorf("Exhausted(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
