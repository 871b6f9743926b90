//go:build unix

package run

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"pgregory.net/rapid"
)

// TestOddPathsAgreesWithEach holds oddPaths, the look at every changed path
// a stop makes, to oddPathsEach, one Lstat and Open per path: for any
// tree of regular files (readable or not), directories (searchable or
// not), symbolic links (to a file, a directory, a FIFO, nothing),
// FIFOs, sockets and devices (as root), and any list of paths in it, in
// any order, with repeats, paths that do not exist and paths below a file,
// a link or a FIFO, both name the same paths as the same kinds, in the
// same order.
func TestOddPathsAgreesWithEach(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root := t.TempDir()
		defer os.Chmod(root, 0o755) // the temporary directory's removal
		var paths []string
		dirs := []string{""}
		n := rapid.IntRange(1, 25).Draw(rt, "entries")
		for i := range n {
			dir := rapid.SampledFrom(dirs).Draw(rt, "dir")
			rel := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("e%d", i)))
			p := filepath.Join(root, filepath.FromSlash(rel))
			kind := rapid.SampledFrom([]string{"file", "file", "unreadable", "dir", "closed dir", "link to file", "link to dir", "dangling link", "link to fifo", "fifo", "socket", "device", "block device"}).Draw(rt, "kind")
			if err := makeEntry(p, kind); err != nil {
				rt.Skipf("cannot make a %s here: %v", kind, err)
			}
			paths = append(paths, rel)
			if kind == "dir" || kind == "closed dir" || kind == "link to dir" {
				dirs = append(dirs, rel)
			}
		}
		var files []string
		for range rapid.IntRange(0, 40).Draw(rt, "files") {
			p := rapid.SampledFrom(paths).Draw(rt, "path")
			switch rapid.IntRange(0, 3).Draw(rt, "where") {
			case 0:
				p += "/below"
			case 1:
				p += "-missing"
			}
			files = append(files, p)
		}
		// The directories closed last: making entries in them needs them open.
		for _, p := range paths {
			if fi, err := os.Lstat(filepath.Join(root, p)); err == nil && fi.IsDir() && fi.Mode().Perm() == 0o700 {
				_ = os.Chmod(filepath.Join(root, p), 0)
			}
		}
		defer func() {
			for _, p := range slices.Backward(paths) {
				_ = os.Chmod(filepath.Join(root, p), 0o755)
			}
		}()
		want := oddPathsEach(root, files)
		got := oddPaths(root, files)
		if !slices.Equal(got, want) {
			rt.Fatalf("oddPaths(%q)\n = %q\nwant %q (one path at a time)", files, got, want)
		}
	})
}

// makeEntry makes at p an entry of the kind.
func makeEntry(p, kind string) error {
	switch kind {
	case "file":
		return os.WriteFile(p, []byte("x\n"), 0o644)
	case "unreadable":
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			return err
		}
		return os.Chmod(p, 0)
	case "dir":
		return os.Mkdir(p, 0o755)
	case "closed dir":
		// 0o700 now, closed (0) when every entry is made.
		return os.Mkdir(p, 0o700)
	case "link to file":
		if err := os.WriteFile(p+".target", []byte("x\n"), 0o644); err != nil {
			return err
		}
		return os.Symlink(filepath.Base(p)+".target", p)
	case "link to dir":
		if err := os.Mkdir(p+".target", 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(p+".target", "in"), []byte("x\n"), 0o644); err != nil {
			return err
		}
		return os.Symlink(filepath.Base(p)+".target", p)
	case "link to fifo":
		if err := syscall.Mkfifo(p+".target", 0o644); err != nil {
			return err
		}
		return os.Symlink(filepath.Base(p)+".target", p)
	case "dangling link":
		return os.Symlink("nowhere", p)
	case "fifo":
		return syscall.Mkfifo(p, 0o644)
	case "socket":
		l, err := net.Listen("unix", p)
		if err != nil {
			return err
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		return l.Close()
	case "device":
		if os.Geteuid() != 0 {
			return os.WriteFile(p, nil, 0o644)
		}
		return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3)
	case "block device":
		if os.Geteuid() != 0 {
			return os.WriteFile(p, nil, 0o644)
		}
		return syscall.Mknod(p, syscall.S_IFBLK|0o644, 7<<8|200)
	}
	return fmt.Errorf("no kind %q", kind)
}

// BenchmarkOddPaths: the look at 10,000 changed files in 200 directories,
// one path at a time (oddPathsEach) and as a stop makes it (oddPaths).
func BenchmarkOddPaths(b *testing.B) {
	root := b.TempDir()
	var files []string
	for i := range 10000 {
		f := fmt.Sprintf("pkg%d/sub/f%d.go", i%200, i)
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	for _, c := range []struct {
		name string
		look func(string, []string) []string
	}{{"each", oddPathsEach}, {"by-directory", oddPaths}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if found := c.look(root, files); len(found) != 0 {
					b.Fatal(found)
				}
			}
		})
	}
}
