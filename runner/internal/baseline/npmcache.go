package baseline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// npm's record of a node_modules gives each package's integrity, the
// SHA-512 of the tarball it was installed from, and npm keeps every
// tarball it installed in its cache, stored by that digest. A package
// compared file by file with its tarball is verified by content: an edit
// that a later npm install left in place (npm rewrites its record even
// when it has nothing to install), or a record touched on purpose, is
// found. A package whose tarball the cache no longer holds (npm cache
// clean) is verified by time only.

// npmCacheDir is npm's cache directory: $npm_config_cache, else npm's
// default (~/.npm; %LocalAppData%\npm-cache on Windows).
func npmCacheDir() string {
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if runtime.GOOS == "windows" {
		if v := os.Getenv("LocalAppData"); v != "" {
			return filepath.Join(v, "npm-cache")
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".npm")
}

// maxTarballBytes bounds a tarball read from npm's cache.
const maxTarballBytes = 256 << 20

// packagesAsPacked adds to t the files of the packages npm's record of
// node_modules at dir lists whose content differs from the tarball npm's
// cache holds for them (or that are missing), rel naming dir.
func packagesAsPacked(ctx context.Context, dir, rel, cache string, t *tally) {
	b, err := os.ReadFile(filepath.Join(dir, ".package-lock.json"))
	if err != nil || cache == "" {
		return
	}
	var lock struct {
		Packages map[string]struct {
			Integrity        string `json:"integrity"`
			Link             bool   `json:"link"`
			HasInstallScript bool   `json:"hasInstallScript"`
		} `json:"packages"`
	}
	if json.Unmarshal(b, &lock) != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for _, key := range sortedKeys(lock.Packages) {
		pkg := lock.Packages[key]
		sub, ok := strings.CutPrefix(key, "node_modules/")
		if !ok || pkg.Link || !filepath.IsLocal(sub) || ctx.Err() != nil {
			continue
		}
		tgz := cachedTarball(cache, pkg.Integrity)
		if tgz == nil {
			continue
		}
		pkgDir := filepath.Join(dir, filepath.FromSlash(sub))
		packed := compareTarball(tgz, pkgDir, rel+"/"+sub, t, buf)
		if !pkg.HasInstallScript && packed != nil {
			unpacked(pkgDir, rel+"/"+sub, packed, t) // an install script may build files of its own
		}
	}
}

// unpacked adds to t every file of the package directory pkg (named rel)
// that its tarball does not hold (packed, paths in the package), the
// packages installed in its own node_modules aside.
func unpacked(pkg, rel string, packed map[string]bool, t *tally) {
	_ = filepath.WalkDir(pkg, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == pkg {
			return nil
		}
		sub := relTo("", pkg, p)
		if e.IsDir() {
			if sub == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		if !packed[sub] {
			t.add(rel+"/"+sub, "added (not in its package's tarball)")
		}
		return nil
	})
}

// cachedTarball is the tarball of integrity ("sha512-<base64>") in npm's
// cache, checked against its digest; nil when the cache does not hold it.
func cachedTarball(cache, integrity string) []byte {
	var want []byte
	for _, part := range strings.Fields(integrity) {
		if d, ok := strings.CutPrefix(part, "sha512-"); ok {
			if raw, err := base64.StdEncoding.DecodeString(d); err == nil && len(raw) == sha512.Size {
				want = raw
				break
			}
		}
	}
	if want == nil {
		return nil
	}
	x := hex.EncodeToString(want)
	p := filepath.Join(cache, "_cacache", "content-v2", "sha512", x[:2], x[2:4], x[4:])
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxTarballBytes {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	if sum := sha512.Sum512(data); !bytes.Equal(sum[:], want) {
		return nil // not what it is stored as: no evidence either way
	}
	return data
}

// compareTarball adds to t every regular file of the package tarball tgz
// that the package directory pkg (named rel) lacks or holds with other
// content, and returns the paths in the package of its regular files
// (nil when the tarball cannot be read to its end). buf is a buffer to
// read with.
func compareTarball(tgz []byte, pkg, rel string, t *tally, buf []byte) map[string]bool {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil
	}
	tr := tar.NewReader(zr)
	packed := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return packed
		}
		if err != nil {
			return nil // a tarball npm could not have installed either
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, inPkg, ok := strings.Cut(path.Clean(strings.TrimPrefix(h.Name, "/")), "/")
		if !ok || !filepath.IsLocal(inPkg) {
			continue
		}
		packed[inPkg] = true
		p := filepath.Join(pkg, filepath.FromSlash(inPkg))
		if path.Base(inPkg) == ".gitignore" {
			// npm installs a package's .gitignore as .npmignore.
			alt := path.Join(path.Dir(inPkg), ".npmignore")
			packed[alt] = true
			if !renamedIgnore(tr, h.Size, p, filepath.Join(pkg, filepath.FromSlash(alt))) {
				t.add(rel+"/"+inPkg, "deleted")
			}
			continue
		}
		switch same, err := sameAsEntry(p, h.Size, tr, buf); {
		case err != nil:
			t.add(rel+"/"+inPkg, "deleted")
		case !same:
			t.add(rel+"/"+inPkg, "changed")
		}
	}
}

// renamedIgnore reports whether a package's .gitignore, the tar entry r
// of size n, is installed at p or at alt (its .npmignore, as npm installs
// it), or left out for a .npmignore of the package's own at alt.
func renamedIgnore(r io.Reader, n int64, p, alt string) bool {
	if n > maxIgnoreEntry {
		return false
	}
	want, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return false
	}
	for _, f := range []string{p, alt} {
		if got, err := os.ReadFile(f); err == nil && bytes.Equal(got, want) {
			return true
		}
	}
	_, err = os.Lstat(alt)
	return err == nil
}

// maxIgnoreEntry bounds the .gitignore of a package read whole.
const maxIgnoreEntry = 1 << 20

// sameAsEntry reports whether the file p has the content of the tar entry
// r of size n; err when p cannot be read.
func sameAsEntry(p string, n int64, r io.Reader, buf []byte) (bool, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() || st.Size() != n {
		return false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	half := len(buf) / 2
	a, b := buf[:half], buf[half:]
	for {
		na, ea := io.ReadFull(r, a)
		nb, _ := io.ReadFull(f, b[:na])
		if na != nb || !bytes.Equal(a[:na], b[:nb]) {
			return false, nil
		}
		if ea != nil {
			return true, nil
		}
	}
}
