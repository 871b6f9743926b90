package baseline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
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
	"slices"
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

// compareTarball adds to t every file of the package tarball tgz, as npm
// extracts it (extracted), that the package directory pkg (named rel)
// lacks or holds with other content, and returns the paths in the package
// of the files npm extracts (nil when the tarball cannot be read to its
// end). buf is a buffer to read with.
func compareTarball(tgz []byte, pkg, rel string, t *tally, buf []byte) map[string]bool {
	files := extracted(tgz, buf)
	if files == nil {
		return nil
	}
	packed := make(map[string]bool, len(files))
	for _, inPkg := range sortedKeys(files) {
		f := files[inPkg]
		packed[inPkg] = true
		if f.from != "" {
			packed[f.from] = true
		}
		switch {
		case f.installedAt(filepath.Join(pkg, filepath.FromSlash(inPkg)), buf):
		case f.from != "" && f.installedAt(filepath.Join(pkg, filepath.FromSlash(f.from)), buf):
			// a package's ignore file kept under its own name
		case missing(filepath.Join(pkg, filepath.FromSlash(inPkg))) && (f.from == "" || missing(filepath.Join(pkg, filepath.FromSlash(f.from)))):
			t.add(rel+"/"+inPkg, "deleted")
		default:
			t.add(rel+"/"+inPkg, "changed")
		}
	}
	return packed
}

// packedFile is the content npm leaves at one path of a package: that of
// the last tar entry it extracts there.
type packedFile struct {
	size int64
	sum  [sha256.Size]byte
	// from is the entry's own path when npm renamed it (a .gitignore
	// installed as .npmignore), else "".
	from string
}

// extracted is the package tarball tgz as npm (pacote over node-tar)
// extracts it: each path in the package with the content it ends up
// holding, nil when the tarball cannot be read to its end. npm extracts
// only files (links are refused, directories made as files need them),
// strips each name's first component (package/), refuses a name with a
// ".." component, installs a .gitignore as .npmignore unless a .npmignore
// in the same directory came before it in the tarball (then the .gitignore
// is dropped), and writes a later entry of a path over an earlier one; an
// entry whose path needs a directory where a file already is, or a file
// where a directory already is, fails and is left out.
func extracted(tgz []byte, buf []byte) map[string]packedFile {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil
	}
	tr := tar.NewReader(zr)
	files := map[string]packedFile{}
	dirs := map[string]bool{}
	sawIgnore := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			return nil // a tarball npm could not have installed either
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeCont {
			continue
		}
		name, from := h.Name, ""
		switch path.Base(name) {
		case ".npmignore":
			sawIgnore[name] = true
		case ".gitignore":
			ni := strings.TrimSuffix(name, ".gitignore") + ".npmignore"
			if sawIgnore[ni] {
				continue
			}
			name, from = ni, h.Name
		}
		inPkg, ok := inPackage(name)
		if !ok || blocked(inPkg, files, dirs) {
			continue
		}
		if from != "" {
			from, _ = inPackage(from)
		}
		d := sha256.New()
		if _, err := io.CopyBuffer(d, tr, buf); err != nil {
			return nil
		}
		f := packedFile{size: h.Size, from: from}
		d.Sum(f.sum[:0])
		files[inPkg] = f
		for dir := path.Dir(inPkg); dir != "."; dir = path.Dir(dir) {
			dirs[dir] = true
		}
	}
}

// inPackage is where npm extracts the tar entry name in the package: its
// first component stripped, a leading "/" dropped; false for a name it
// refuses (a ".." component) or that names the package directory itself.
func inPackage(name string) (string, bool) {
	parts := strings.Split(name, "/")
	if len(parts) < 2 || slices.Contains(parts[1:], "..") {
		return "", false
	}
	p := path.Clean(strings.TrimLeft(strings.Join(parts[1:], "/"), "/"))
	if p == "." || !filepath.IsLocal(p) {
		return "", false
	}
	return p, true
}

// blocked reports whether npm fails to extract a file at p: a directory
// is already there (dirs), or a file where one of its directories goes.
func blocked(p string, files map[string]packedFile, dirs map[string]bool) bool {
	if dirs[p] {
		return true
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if _, ok := files[dir]; ok {
			return true
		}
	}
	return false
}

// installedAt reports whether the regular file p holds f's content.
func (f packedFile) installedAt(p string, buf []byte) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() != f.size {
		return false
	}
	r, err := os.Open(p)
	if err != nil {
		return false
	}
	defer r.Close()
	d := sha256.New()
	if _, err := io.CopyBuffer(d, r, buf); err != nil {
		return false
	}
	var sum [sha256.Size]byte
	return bytes.Equal(d.Sum(sum[:0]), f.sum[:])
}

// missing reports whether nothing is at p.
func missing(p string) bool {
	_, err := os.Lstat(p)
	return err != nil
}
