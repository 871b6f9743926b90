package fsread

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// fixture builds one directory entry of each kind and returns the dir.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big"), []byte(strings.Repeat("x", 2048)), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "dir", "b"), nil, 0o644))
	must(os.WriteFile(filepath.Join(dir, "dir", "a"), nil, 0o644))
	fifotest.Create(t, filepath.Join(dir, "fifo"))
	must(os.Symlink("file", filepath.Join(dir, "link")))
	must(os.Symlink("fifo", filepath.Join(dir, "fifolink")))
	must(os.Symlink("dir", filepath.Join(dir, "dirlink")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zerolink")))
	must(os.Symlink("/dev/urandom", filepath.Join(dir, "urandomlink")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	// A socket path must be short: listen from inside dir.
	wd, err := os.Getwd()
	must(err)
	must(os.Chdir(dir))
	l, err := net.Listen("unix", "sock")
	must(os.Chdir(wd))
	must(err)
	t.Cleanup(func() { l.Close() })
	return dir
}

func TestFile(t *testing.T) {
	dir := fixture(t)
	tests := []struct {
		name string
		want string // content, or the error text after the path
	}{
		{"file", "hello"},
		{"link", "hello"},
		{"big", "is larger than 1 KiB"},
		{"dir", "is a directory, not a regular file"},
		{"dirlink", "is a directory, not a regular file"},
		{"fifo", "is a named pipe (FIFO), not a regular file"},
		{"fifolink", "is a named pipe (FIFO), not a regular file"},
		{"sock", "is a socket, not a regular file"},
		{"zerolink", "is a character device, not a regular file"},
		{"urandomlink", "is a character device, not a regular file"},
		{"dangling", "is a symbolic link to a missing file"},
		{"absent", "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			data, err := File(p, 1024)
			if err == nil {
				if string(data) != tt.want {
					t.Fatalf("File = %q, want %q", data, tt.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != p {
				t.Fatalf("error %v is not a path error naming %s", err, p)
			}
			if pe.Err.Error() != tt.want {
				t.Fatalf("error %q, want %q", pe.Err, tt.want)
			}
		})
	}
	if _, err := File(os.DevNull, 1); err == nil || !strings.HasSuffix(err.Error(), "is a character device, not a regular file") {
		t.Errorf("a device: %v, want a character device error", err)
	}
	if _, err := File(filepath.Join(dir, "absent"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := File(filepath.Join(dir, "dangling"), 1); !errors.Is(err, ErrDanglingLink) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link: %v, want ErrDanglingLink only", err)
	}
}

func TestDir(t *testing.T) {
	dir := fixture(t)
	for _, name := range []string{"dir", "dirlink"} {
		entries, err := Dir(filepath.Join(dir, name))
		if err != nil || len(entries) != 2 || entries[0].Name() != "a" || entries[1].Name() != "b" {
			t.Errorf("Dir(%s) = %v, %v; want a, b", name, entries, err)
		}
	}
	for name, want := range map[string]string{
		"file":     "is a regular file, not a directory",
		"fifo":     "is a named pipe (FIFO), not a directory",
		"fifolink": "is a named pipe (FIFO), not a directory",
		"sock":     "is a socket, not a directory",
		"dangling": "is a symbolic link to a missing file",
	} {
		_, err := Dir(filepath.Join(dir, name))
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Err.Error() != want {
			t.Errorf("Dir(%s) error %v, want %q", name, err, want)
		}
	}
	if _, err := Dir(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want fs.ErrNotExist", err)
	}
}

func TestKind(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0:                                 "a regular file",
		fs.ModeDir:                        "a directory",
		fs.ModeSymlink:                    "a symbolic link",
		fs.ModeNamedPipe:                  "a named pipe (FIFO)",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a block device",
		fs.ModeIrregular:                  "an unknown kind of file",
	} {
		if got := Kind(m); got != want {
			t.Errorf("Kind(%v) = %q, want %q", m, got, want)
		}
	}
}
