package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// World is a fingerprint of what a base run sees beyond the base commit's
// tree: the work tree's dependency directories it gets copies of (every
// entry's path and mode, and of every file and link its size,
// modification time, inode and its change time, which nobody sets back,
// and a link's target; what tools write as they run aside; see
// copyDependencies) and the environment values that name the project
// (relocated to the checkout: PATH, VIRTUAL_ENV, PYTHONPATH...). A base
// result holds only as long as these are the same: upgrading a package
// in node_modules changes what the base run tests. root is the project
// root, wd the check's working directory (relative), env its environment.
// Reading it costs a stat of every entry, no file's content (see
// BenchmarkWorld).
func World(root, wd string, env []string) string {
	h := sha256.New()
	dirs := []string{"."}
	if wd != "." && wd != "" {
		parts := strings.Split(path.Clean(wd), "/")
		for i := range parts {
			dirs = append(dirs, strings.Join(parts[:i+1], "/"))
		}
	}
	for _, d := range dirs {
		for _, name := range DependencyDirs {
			dir := filepath.Join(root, filepath.FromSlash(d), name)
			if !isDir(dir) {
				continue
			}
			fmt.Fprintf(h, "dir %s/%s\n", d, name)
			top := resolved(dir)
			_ = filepath.WalkDir(top, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					fmt.Fprintf(h, "! %v\n", err)
					return nil
				}
				if notCopied(name, relTo("", top, p), e.IsDir()) {
					return fs.SkipDir
				}
				info, err := e.Info()
				if err != nil {
					return nil
				}
				if e.IsDir() {
					// its times change with its entries, which are listed
					fmt.Fprintf(h, "%s %o\n", p, info.Mode())
					return nil
				}
				ctime, ino, _, _ := statOf(info)
				fmt.Fprintf(h, "%s %o %d %d %d %d", p, info.Mode(), info.Size(), info.ModTime().UnixNano(), ctime.UnixNano(), ino)
				if e.Type()&fs.ModeSymlink != 0 {
					target, _ := os.Readlink(p)
					fmt.Fprintf(h, " -> %s", target)
				}
				h.Write([]byte{'\n'})
				return nil
			})
		}
	}
	r := newRelocation(root, root)
	var named []string
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		if _, ok := r.text(v); ok {
			named = append(named, kv)
		}
	}
	sort.Strings(named)
	for _, kv := range named {
		fmt.Fprintf(h, "env %s\n", kv)
	}
	return hex.EncodeToString(h.Sum(nil))
}
