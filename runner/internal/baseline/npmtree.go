package baseline

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Every entry of a node_modules npm installed is a package its record
// lists (or a scope directory holding some), a file of one, a link in a
// .bin directory to a program a package declares (its package.json's
// bin), or npm's record itself. Anything else (a node_modules/.bin/node
// put there, a stray module) was added by hand, whatever its times say:
// npm rewrites its record on every install and leaves such a file.

// npmPackages are the package directories npm's record of a node_modules
// lists, relative to it (slash-separated), each with whether npm ran an
// install script for it (which may add files its tarball does not hold).
type npmPackages map[string]bool

// owner is the longest package directory holding sub (slash-separated,
// relative to the node_modules), "" when none does.
func (pk npmPackages) owner(sub string) string {
	for s := sub; s != "." && s != "/" && s != ""; s = path.Dir(s) {
		if _, ok := pk[s]; ok {
			return s
		}
	}
	return ""
}

// readNpmPackages reads npm's record of the node_modules at dir.
func readNpmPackages(dir string) (npmPackages, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".package-lock.json"))
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]struct {
			HasInstallScript bool `json:"hasInstallScript"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, err
	}
	pk := npmPackages{}
	for key, p := range lock.Packages {
		if sub, ok := strings.CutPrefix(key, "node_modules/"); ok && filepath.IsLocal(sub) {
			pk[sub] = p.HasInstallScript
		}
	}
	return pk, nil
}

// strayEntries adds to t every entry of the node_modules at dir (named
// rel) that is no package npm's record lists, no file of one, no .bin
// link to a program a listed package declares, and not npm's record.
func strayEntries(dir, rel string, pk npmPackages, t *tally) {
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		sub := relTo("", dir, p)
		if notCopied("node_modules", sub, e.IsDir()) {
			return fs.SkipDir
		}
		name := sub // the entry's path in the node_modules level holding it
		if own := pk.owner(sub); own != "" {
			rest, nested := strings.CutPrefix(strings.TrimPrefix(sub, own), "/node_modules")
			if sub == own || !nested || (rest != "" && rest[0] != '/') {
				return nil // a package, or a file of one (compared with its tarball)
			}
			if name = strings.TrimPrefix(rest, "/"); name == "" {
				return nil // a package's own node_modules
			}
		}
		switch first, more, _ := strings.Cut(name, "/"); {
		case name == ".package-lock.json" && sub == name && e.Type().IsRegular():
			return nil
		case name == ".bin" && e.IsDir():
			return nil
		case first == ".bin" && !strings.Contains(more, "/"):
			if !declaredBin(dir, p, pk) {
				t.add(relTo(rel, dir, p), "added (no link to a program a package declares)")
			}
			return nil
		case strings.HasPrefix(first, "@") && more == "" && e.IsDir():
			return nil // a scope: its packages are listed
		}
		t.add(relTo(rel, dir, p), "added (no package npm's record lists)")
		if e.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// declaredBin reports whether the .bin entry p is what npm makes there: a
// link to a file that a package of the node_modules at dir declares as a
// program in its package.json. On Windows npm writes command shims
// instead, which are not read here: any file passes.
func declaredBin(dir, p string, pk npmPackages) bool {
	info, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return info.Mode().IsRegular()
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	target, err := os.Readlink(p)
	if err != nil || filepath.IsAbs(target) {
		return false
	}
	inside, err := filepath.Rel(dir, filepath.Join(filepath.Dir(p), target))
	if err != nil || !filepath.IsLocal(inside) {
		return false
	}
	sub := filepath.ToSlash(inside)
	own := pk.owner(sub)
	if own == "" {
		return false
	}
	file := strings.TrimPrefix(sub, own+"/")
	for _, b := range packageBins(filepath.Join(dir, filepath.FromSlash(own), "package.json")) {
		if path.Clean(b) == file {
			return true
		}
	}
	return false
}

// packageBins are the programs the package.json at p declares (its bin,
// a path or a map of names to paths), as paths in the package.
func packageBins(p string) []string {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return nil
	}
	var one string
	if json.Unmarshal(pkg.Bin, &one) == nil {
		return []string{one}
	}
	var many map[string]string
	if json.Unmarshal(pkg.Bin, &many) != nil {
		return nil
	}
	bins := make([]string, 0, len(many))
	for _, v := range many {
		bins = append(bins, v)
	}
	return bins
}
