package baseline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A base run given a copy of a dependency directory tests the base's code
// with the work tree's dependencies: a package there that the change broke
// (an edited node_modules/leftpad/index.js) fails the base run as it fails
// the work tree, and the failure would read as pre-existing. So a base
// failure is evidence only when every dependency directory it was given
// holds what its package manager installed: verifyDependency checks that
// against the package manager's own record, and says what differs.

// maxNamed bounds the paths a verification problem names.
const maxNamed = 3

// nodeInstall is a package manager's record of having installed a
// node_modules: the file it writes last, and how to install again.
type nodeInstall struct{ marker, manager, remedy string }

// nodeInstalls are the records node's package managers leave, in the order
// they are looked for.
var nodeInstalls = []nodeInstall{
	{".package-lock.json", "npm", "npm ci"},
	{".modules.yaml", "pnpm", "pnpm install --frozen-lockfile"},
	{".yarn-state.yml", "yarn", "yarn install --immutable"},
	{".yarn-integrity", "yarn", "yarn install --frozen-lockfile"},
}

// venvMaking bounds how long making a virtual environment takes: from its
// pyvenv.cfg, written first, to its activation scripts, written after the
// packages it starts with (pip, by python3 -m venv). A variable for tests,
// which cannot wait that long.
var venvMaking = 2 * time.Minute

// rootSlack is how much later than its install record the node_modules
// directory itself may have changed (the record is renamed into it).
const rootSlack = 2 * time.Second

// notCopied reports whether the entry rel (slash-separated, relative to
// the dependency directory named name) is left out of the base run's copy
// and of its verification: what tools write there as they run, not what
// was installed (node_modules/.cache, Vite's node_modules/.vite, Python's
// __pycache__). The base run makes its own.
func notCopied(name, rel string, dir bool) bool {
	if !dir {
		return false
	}
	if name == "node_modules" {
		return rel == ".cache" || strings.HasPrefix(rel, ".vite")
	}
	return filepath.Base(rel) == "__pycache__"
}

// tally collects what differs from a record.
type tally struct {
	named []string
	n     int
}

// add counts the entry p, named while few are.
func (t *tally) add(p, what string) {
	if t.n < maxNamed {
		t.named = append(t.named, p+" "+what)
	}
	t.n++
}

// String names what was counted.
func (t *tally) String() string {
	s := strings.Join(t.named, ", ")
	if t.n > len(t.named) {
		s += fmt.Sprintf(" and %d more", t.n-len(t.named))
	}
	return s
}

// verifyDependency checks the dependency directory dir (its links
// resolved), named rel in the project (node_modules, web/node_modules,
// .venv, ...), against its package manager's record; "" when it holds
// what was installed, else one line saying what differs and how to
// install it again.
//
// A ctx that ends cuts it short: the directory then does not verify.
func verifyDependency(ctx context.Context, dir, rel string) string {
	var problem string
	if filepath.Base(rel) == "node_modules" {
		problem = verifyNodeModules(ctx, dir, rel)
	} else {
		problem = verifyVenv(ctx, dir, rel)
	}
	if problem == "" && ctx.Err() != nil {
		return fmt.Sprintf("%s could not be verified before the run's deadline", rel)
	}
	return problem
}

// verifyNodeModules checks a node_modules against the record its package
// manager wrote last (nodeInstalls): no entry in it may have changed after
// that record (by its inode's change time, which nobody sets back; a file
// linked from a shared store, pnpm's, by its modification time), every
// package npm's record lists must be there, and hold the files of the
// tarball npm's cache keeps for it (packagesAsPacked).
func verifyNodeModules(ctx context.Context, dir, rel string) string {
	var in nodeInstall
	var mark time.Time
	for _, c := range nodeInstalls {
		if info, err := os.Lstat(filepath.Join(dir, c.marker)); err == nil && info.Mode().IsRegular() {
			in, mark = c, changed(info)
			break
		}
	}
	if in.manager == "" {
		return fmt.Sprintf("%s has no record of an install (npm's %s/.package-lock.json, pnpm's, yarn's), so nothing tells that it holds what was installed; install it again (npm ci)", rel, rel)
	}
	var t tally
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil {
			t.add(relTo(rel, dir, p), "unreadable")
			return nil
		}
		sub := relTo("", dir, p)
		if notCopied("node_modules", sub, e.IsDir()) {
			return fs.SkipDir
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		at := changed(info)
		if _, _, nlink, _ := statOf(info); in.manager == "pnpm" && nlink > 1 && !info.IsDir() {
			at = info.ModTime() // a store's file: every install linking it changes its inode
		}
		limit := mark
		if p == dir {
			limit = mark.Add(rootSlack)
		}
		if at.After(limit) {
			t.add(relTo(rel, dir, p), "changed")
		}
		return nil
	})
	if in.manager == "npm" {
		if pk, err := readNpmPackages(dir); err == nil {
			strayEntries(dir, rel, pk, &t)
		}
		missingPackages(dir, rel, &t)
		if t.n == 0 {
			packagesAsPacked(ctx, dir, rel, npmCacheDir(), &t)
		}
	}
	if t.n == 0 {
		return ""
	}
	return fmt.Sprintf("%s was changed after %s installed it (%s); install it again (%s)", rel, in.manager, t.String(), in.remedy)
}

// missingPackages adds to t the packages npm's record of node_modules at
// dir lists that are not there (optional ones aside).
func missingPackages(dir, rel string, t *tally) {
	b, err := os.ReadFile(filepath.Join(dir, ".package-lock.json"))
	if err != nil {
		return
	}
	var lock struct {
		Packages map[string]struct {
			Optional bool `json:"optional"`
		} `json:"packages"`
	}
	if json.Unmarshal(b, &lock) != nil {
		t.add(rel+"/.package-lock.json", "unreadable")
		return
	}
	for _, key := range sortedKeys(lock.Packages) {
		pkg := lock.Packages[key]
		sub, ok := strings.CutPrefix(key, "node_modules/")
		if !ok || pkg.Optional || !filepath.IsLocal(sub) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(sub))); err != nil {
			t.add(rel+"/"+sub, "deleted")
		}
	}
}

// recorded is one file a Python package's RECORD lists.
type recorded struct {
	// algo and digest are its hash ("" when RECORD gives none), size its
	// size (-1 when not given), owner the distribution that installed it.
	algo, digest, owner string
	size                int64
}

// verifyVenv checks a virtual environment against the RECORD files of
// the packages installed in it: every file a RECORD lists with a hash has
// that content, none of them is missing, and a file no RECORD lists is
// one the environment was made with (venvUnlisted): its interpreter's
// links, a pyvenv.cfg not changed since pip's first RECORD, scripts
// changed at most venvMaking after its oldest entry, by inode change time.
func verifyVenv(ctx context.Context, dir, rel string) string {
	records, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages", "*.dist-info", "RECORD"))
	more, _ := filepath.Glob(filepath.Join(dir, "Lib", "site-packages", "*.dist-info", "RECORD"))
	records = append(records, more...)
	if _, err := os.Lstat(filepath.Join(dir, "pyvenv.cfg")); err != nil {
		return fmt.Sprintf("%s has no pyvenv.cfg, so nothing tells that it holds what was installed; make it again", rel)
	}
	files := map[string]recorded{}
	var t tally
	for _, r := range records {
		if err := readRecord(r, dir, files); err != nil {
			t.add(relTo(rel, dir, r), "unreadable")
		}
	}
	owners := checkVenvFiles(ctx, dir, rel, files, records, &t)
	if t.n == 0 {
		return ""
	}
	remedy := "remove what was added, or make it again"
	if len(owners) > 0 {
		remedy = "install them again (pip install --force-reinstall " + strings.Join(owners, " ") + ")"
	}
	return fmt.Sprintf("%s was changed after its packages were installed (%s); %s", rel, t.String(), remedy)
}

// unlistedFile is a file of a virtual environment no RECORD lists.
type unlistedFile struct {
	p    string
	info fs.FileInfo
}

// checkVenvFiles adds to t the files of the virtual environment at dir
// (named rel) that differ from what the RECORDs (records) list (files):
// content other than the hash listed, not there, or not listed and not
// of the environment's making (venvUnlisted). It returns the
// distributions whose files differ, sorted.
func checkVenvFiles(ctx context.Context, dir, rel string, files map[string]recorded, records []string, t *tally) []string {
	owners := map[string]bool{}
	seen := map[string]bool{}
	var unlisted []unlistedFile
	var oldest time.Time // the environment's oldest entry: when it was made, at the latest
	buf := make([]byte, 64<<10)
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return fs.SkipAll
		case err != nil:
			t.add(relTo(rel, dir, p), "unreadable")
			return nil
		case notCopied(".venv", relTo("", dir, p), e.IsDir()):
			return fs.SkipDir
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		if at := changed(info); oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
		if e.IsDir() {
			return nil
		}
		seen[p] = true
		want, listed := files[p]
		switch {
		case listed && want.digest != "":
			if info.Mode()&fs.ModeSymlink != 0 {
				info, err = os.Stat(p) // virtualenv may link its seeded packages: what is read counts
			}
			if err != nil || !info.Mode().IsRegular() || !sameContent(p, info, want, buf) {
				t.add(relTo(rel, dir, p), "changed")
				owners[want.owner] = true
			}
		case !listed:
			unlisted = append(unlisted, unlistedFile{p, info})
		}
		return nil
	})
	venvUnlisted(dir, rel, unlisted, oldest, firstRecord(records), t)
	for _, p := range sortedKeys(files) {
		cached := strings.Contains(filepath.ToSlash(p), "/__pycache__/") // not copied, so not looked at
		if want := files[p]; !seen[p] && !cached && want.digest != "" && ctx.Err() == nil {
			t.add(relTo(rel, dir, p), "deleted")
			owners[want.owner] = true
		}
	}
	return sortedKeys(owners)
}

// firstRecord is when the oldest of the RECORD files changed (zero when
// there is none): pip's, written as the environment was made.
func firstRecord(records []string) time.Time {
	var first time.Time
	for _, r := range records {
		if info, err := os.Lstat(r); err == nil {
			if at := changed(info); first.IsZero() || at.Before(first) {
				first = at
			}
		}
	}
	return first
}

// venvUnlisted adds to t the files no RECORD lists (unlisted) of the
// virtual environment at dir (named rel) that it was not made with,
// whatever their times: an interpreter (bin/python*, bin/pypy*) that is
// not a link to, or a copy of, one in the directory pyvenv.cfg's home
// names; another program in bin; a pyvenv.cfg changed after the first
// RECORD (first) was written. Any other file must have changed at most
// venvMaking after the environment's oldest entry (oldest), which a
// touch of any one file does not move.
func venvUnlisted(dir, rel string, unlisted []unlistedFile, oldest, first time.Time, t *tally) {
	var interpreters map[string]bool
	for _, u := range unlisted {
		sub := relTo("", dir, u.p)
		name := path.Base(sub)
		inBin := path.Dir(sub) == "bin"
		switch {
		case sub == "pyvenv.cfg" && !first.IsZero() && changed(u.info).After(first):
			t.add(relTo(rel, dir, u.p), "changed")
		case inBin && (strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")):
			if interpreters == nil {
				interpreters = homeInterpreters(dir)
			}
			if !isInterpreter(u.p, u.info, interpreters) {
				t.add(relTo(rel, dir, u.p), "added (no link to the interpreter pyvenv.cfg's home names)")
			}
		case inBin && u.info.Mode().IsRegular() && u.info.Mode().Perm()&0o111 != 0:
			t.add(relTo(rel, dir, u.p), "added (a program no package installed)")
		case changed(u.info).After(oldest.Add(venvMaking)):
			t.add(relTo(rel, dir, u.p), "added")
		}
	}
}

// homeInterpreters are the interpreters (python*, pypy*) in the directory
// the pyvenv.cfg of the virtual environment at dir names as its home,
// with their links resolved, and its executable.
func homeInterpreters(dir string) map[string]bool {
	found := map[string]bool{}
	b, err := os.ReadFile(filepath.Join(dir, "pyvenv.cfg"))
	if err != nil {
		return found
	}
	for _, line := range strings.Split(string(b), "\n") {
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || !filepath.IsAbs(value) {
			continue
		}
		var candidates []string
		switch key {
		case "home":
			entries, _ := os.ReadDir(value)
			for _, e := range entries {
				if n := e.Name(); strings.HasPrefix(n, "python") || strings.HasPrefix(n, "pypy") {
					candidates = append(candidates, filepath.Join(value, n))
				}
			}
		case "executable", "base-executable":
			candidates = append(candidates, value)
		}
		for _, c := range candidates {
			if r, err := filepath.EvalSymlinks(c); err == nil && !insideDir(dir, r) {
				found[r] = true
			}
		}
	}
	return found
}

// isInterpreter reports whether the file p (info its own stat) leads to
// one of interpreters (resolved paths) through its links, or is a copy of
// one (python3 -m venv --copies).
func isInterpreter(p string, info fs.FileInfo, interpreters map[string]bool) bool {
	if info.Mode()&fs.ModeSymlink != 0 {
		r, err := filepath.EvalSymlinks(p)
		return err == nil && interpreters[r]
	}
	if !info.Mode().IsRegular() {
		return false
	}
	for i := range interpreters {
		if same, err := sameFile(p, i, info.Size()); err == nil && same {
			return true
		}
	}
	return false
}

// sameFile reports whether the files a (of size n) and b hold the same
// bytes.
func sameFile(a, b string, n int64) (bool, error) {
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	if st, err := fb.Stat(); err != nil || st.Size() != n {
		return false, err
	}
	return sameAsEntry(a, n, fb, make([]byte, 64<<10))
}

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

// insideDir reports whether p lies in the directory dir.
func insideDir(dir, p string) bool {
	inside, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(inside)
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readRecord adds to files what the RECORD file r lists (paths relative to
// the site-packages directory above it), keeping those inside dir.
func readRecord(r, dir string, files map[string]recorded) error {
	f, err := os.Open(r)
	if err != nil {
		return err
	}
	defer f.Close()
	site := filepath.Dir(filepath.Dir(r))
	owner := strings.TrimSuffix(filepath.Base(filepath.Dir(r)), ".dist-info")
	if name, version, ok := strings.Cut(owner, "-"); ok {
		owner = name + "==" + version
	}
	rd := csv.NewReader(f)
	rd.FieldsPerRecord, rd.LazyQuotes = -1, true
	for {
		row, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(row) == 0 || row[0] == "" {
			continue
		}
		p := filepath.FromSlash(row[0])
		if !filepath.IsAbs(p) {
			p = filepath.Join(site, p)
		}
		p = filepath.Clean(p)
		if inside, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(inside) {
			continue // an editable install's source, another place: not this copy's
		}
		rec := recorded{owner: owner, size: -1}
		if len(row) > 1 {
			rec.algo, rec.digest, _ = strings.Cut(row[1], "=")
		}
		if len(row) > 2 {
			if _, err := fmt.Sscan(row[2], &rec.size); err != nil {
				rec.size = -1
			}
		}
		files[p] = rec
	}
}

// sameContent reports whether the file p (info its stat) has the size and
// hash want records; a hash of an algorithm not known here counts as a
// difference. buf is a buffer to read with, reused from file to file.
func sameContent(p string, info fs.FileInfo, want recorded, buf []byte) bool {
	if want.size >= 0 && info.Size() != want.size {
		return false
	}
	var h hash.Hash
	switch want.algo {
	case "sha256":
		h = sha256.New()
	case "sha384":
		h = sha512.New384()
	case "sha512":
		h = sha512.New()
	default:
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
		return false
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)) == strings.TrimRight(want.digest, "=")
}

// changed is when the entry info describes last changed: its inode's
// change time where the system tells, else its modification time.
func changed(info fs.FileInfo) time.Time {
	if at, _, _, ok := statOf(info); ok {
		return at
	}
	return info.ModTime()
}

// relTo is p (inside dir) named from the project: rel joined with its
// path below dir, slash-separated.
func relTo(rel, dir, p string) string {
	sub, err := filepath.Rel(dir, p)
	if err != nil {
		sub = p
	}
	sub = filepath.ToSlash(sub)
	switch {
	case rel == "":
		return sub
	case sub == ".":
		return rel
	}
	return rel + "/" + sub
}
