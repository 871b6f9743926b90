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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tick outlasts the file system's time granularity (the kernel stamps
// inodes with a clock of a few milliseconds): what a test changes after
// an install is then stamped later than the install's record, as anything
// an agent changes seconds or hours later is.
const tick = 50 * time.Millisecond

// npmInstall installs, with the real npm and no network, a local package
// leftpad (packed as a tarball, so that its files are copied into
// node_modules as a registry's would be) into project/node_modules.
func npmInstall(t testing.TB, project string) {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	pkg := filepath.Join(t.TempDir(), "leftpad")
	writeFiles(t, pkg, map[string]string{
		"package.json": `{"name": "leftpad", "version": "1.0.0", "main": "index.js", "bin": {"leftpad": "./cli.js"}}`,
		"index.js":     "module.exports = (s, n) => String(s).padStart(n)\n",
		"cli.js":       "#!/usr/bin/env node\nconsole.log(require('./index.js')('x', 3))\n",
		"lib/util.js":  "module.exports = 1\n",
	})
	writeFiles(t, project, map[string]string{"package.json": `{"name": "app", "version": "1.0.0"}`})
	t.Setenv("npm_config_cache", filepath.Join(t.TempDir(), "cache")) // where the verification finds the tarballs too
	run := func(dir string, args ...string) string {
		cmd := exec.Command(npm, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_offline=true",
			"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tgz := run(pkg, "pack", "--silent")
	run(project, "install", filepath.Join(pkg, tgz))
	npmAgain[project] = func() { run(project, "install") }
}

// npmAgain runs npm install again in a project npmInstall installed.
var npmAgain = map[string]func(){}

// handVenv makes, in dir, a virtual environment as venv and pip leave
// one: an activation script and pyvenv.cfg first, then a package leftpad
// with its dist-info whose RECORD, written last, has every file's sha256.
func handVenv(t testing.TB, dir string) {
	t.Helper()
	writeFiles(t, dir, map[string]string{"bin/activate": "VIRTUAL_ENV=" + dir + "\n"})
	writeFiles(t, dir, map[string]string{"pyvenv.cfg": "home = /usr/bin\nversion = 3.11.7\n"}) // last: see venvMaking in TestVerifyDependency
	site := "lib/python3.11/site-packages"
	files := map[string]string{
		"leftpad/__init__.py":                  "def pad(s, n):\n    return s.rjust(n)\n",
		"leftpad/util.py":                      "X = 1\n",
		"leftpad-1.0.0.dist-info/METADATA":     "Name: leftpad\nVersion: 1.0.0\n",
		"leftpad-1.0.0.dist-info/INSTALLER":    "pip\n",
		"../../../bin/leftpad":                 "#!" + dir + "/bin/python\nimport leftpad\n",
		"__editable__.other.pth":               "/elsewhere/src\n",
		"leftpad/__pycache__/util.cpython.pyc": "\x00compiled",
	}
	var record strings.Builder
	for p, content := range files {
		writeFiles(t, filepath.Join(dir, site), map[string]string{p: content})
		sum := sha256.Sum256([]byte(content))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", p, base64.RawURLEncoding.EncodeToString(sum[:]), len(content))
	}
	record.WriteString("leftpad-1.0.0.dist-info/RECORD,,\n")
	writeFiles(t, filepath.Join(dir, site), map[string]string{"leftpad-1.0.0.dist-info/RECORD": record.String()})
}

// writeFiles writes files (slash paths relative to dir).
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A dependency directory verifies only while it holds what its package
// manager installed: for each kind (npm's node_modules, a .venv, a venv),
// a fresh install verifies, and so does what tools write as they run (a
// cache, compiled Python); a file of a package edited, added or deleted,
// a whole package deleted, and an edit whose modification time is set
// back to before the install do not, and the reason names the file and
// how to install again.
func TestVerifyDependency(t *testing.T) {
	type kind struct {
		name    string
		install func(t testing.TB, dir string)
		pkg     string // a package's directory, relative to the dependency directory
		remedy  string
	}
	kinds := []kind{
		{"node_modules", func(t testing.TB, dir string) { npmInstall(t, filepath.Dir(dir)) }, "leftpad", "npm ci"},
		{".venv", handVenv, "lib/python3.11/site-packages/leftpad", "pip install --force-reinstall leftpad==1.0.0"},
		{"venv", handVenv, "lib/python3.11/site-packages/leftpad", "pip install --force-reinstall leftpad==1.0.0"},
	}
	defer func(d time.Duration) { venvMaking = d }(venvMaking)
	venvMaking = 4 * tick // handVenv writes its files at once: what comes after this is not of its making
	entry := map[string]string{"node_modules": "index.js", ".venv": "__init__.py", "venv": "__init__.py"}
	type change struct {
		name string
		do   func(t *testing.T, dir, pkg, file string)
		// want is a part of the reason ("" when it verifies), %s the file.
		want string
	}
	appendTo := func(t *testing.T, p, text string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	changes := []change{
		{"fresh install", func(*testing.T, string, string, string) {}, ""},
		{"file edited", func(t *testing.T, dir, pkg, file string) {
			appendTo(t, filepath.Join(dir, pkg, file), "throw new Error('broken')\n")
		}, "%s changed"},
		{"same size edit, modification time set back", func(t *testing.T, dir, pkg, file string) {
			p := filepath.Join(dir, pkg, file)
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			copy(b, "XX")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(filepath.Dir(p), old, old); err != nil {
				t.Fatal(err)
			}
			_ = info
		}, "%s changed"},
		{"file edited, then installed again", func(t *testing.T, dir, pkg, file string) {
			appendTo(t, filepath.Join(dir, pkg, file), "throw new Error('broken')\n")
			time.Sleep(tick)
			if again := npmAgain[filepath.Dir(dir)]; again != nil {
				again() // npm rewrites its record, and leaves the edited package
				return
			}
			records, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages", "*.dist-info", "RECORD"))
			for _, r := range records {
				appendTo(t, r, "")
				now := time.Now()
				if err := os.Chtimes(r, now, now); err != nil {
					t.Fatal(err)
				}
			}
		}, "%s changed"},
		{"file edited, then the install record touched", func(t *testing.T, dir, pkg, file string) {
			appendTo(t, filepath.Join(dir, pkg, file), "throw new Error('broken')\n")
			time.Sleep(tick)
			records, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages", "*.dist-info", "RECORD"))
			for _, r := range append(records, filepath.Join(dir, ".package-lock.json"), filepath.Join(dir, "pyvenv.cfg")) {
				now := time.Now()
				if err := os.Chtimes(r, now, now); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}, "%s changed"},
		{"file replaced by a link to another", func(t *testing.T, dir, pkg, file string) {
			other := filepath.Join(t.TempDir(), "other")
			writeFiles(t, filepath.Dir(other), map[string]string{"other": "throw new Error('broken')\n"})
			p := filepath.Join(dir, pkg, file)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, p); err != nil {
				t.Fatal(err)
			}
		}, "%s changed"},
		{"file added", func(t *testing.T, dir, pkg, _ string) {
			writeFiles(t, filepath.Join(dir, pkg), map[string]string{"extra.js": "x\n"})
		}, "extra.js"},
		{"file deleted", func(t *testing.T, dir, pkg, file string) {
			if err := os.Remove(filepath.Join(dir, pkg, file)); err != nil {
				t.Fatal(err)
			}
		}, "leftpad"},
		{"package deleted", func(t *testing.T, dir, pkg, _ string) {
			if err := os.RemoveAll(filepath.Join(dir, pkg)); err != nil {
				t.Fatal(err)
			}
		}, "leftpad"},
		{"caches written by tools", func(t *testing.T, dir, pkg, _ string) {
			if filepath.Base(dir) == "node_modules" {
				writeFiles(t, dir, map[string]string{".cache/babel/x.json": "{}", ".vite/deps/_metadata.json": "{}"})
				return
			}
			writeFiles(t, filepath.Join(dir, pkg), map[string]string{"__pycache__/__init__.cpython-311.pyc": "\x00"})
		}, ""},
	}
	for _, k := range kinds {
		for _, c := range changes {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				project := t.TempDir()
				dir := filepath.Join(project, k.name)
				k.install(t, dir)
				if got := verifyDependency(context.Background(), dir, k.name); got != "" {
					t.Fatalf("a fresh install does not verify: %s", got)
				}
				time.Sleep(venvMaking + tick)
				c.do(t, dir, k.pkg, entry[k.name])
				got := verifyDependency(context.Background(), dir, k.name)
				if c.want == "" {
					if got != "" {
						t.Errorf("verify = %q, want it verified", got)
					}
					return
				}
				want := c.want
				if strings.Contains(want, "%s") {
					want = fmt.Sprintf(want, k.name+"/"+k.pkg+"/"+entry[k.name])
				}
				if !strings.Contains(got, want) || !strings.HasPrefix(got, k.name+" was changed after") {
					t.Errorf("verify = %q, want it to say %q", got, want)
				}
				if c.name != "file added" && !strings.Contains(got, "("+k.remedy+")") {
					t.Errorf("verify = %q, want the remedy %q", got, k.remedy)
				}
			})
		}
	}
}

// A virtual environment made by the real python3 -m venv (with the pip and
// setuptools it installs, whose RECORDs pip wrote) verifies, and stops
// verifying once a file of pip is edited. Skipped without python3.
func TestVerifyRealVenv(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	dir := filepath.Join(t.TempDir(), ".venv")
	if out, err := exec.Command(python, "-m", "venv", dir).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv: %v\n%s", err, out)
	}
	if got := verifyDependency(context.Background(), dir, ".venv"); got != "" {
		t.Fatalf("a fresh virtual environment does not verify: %s", got)
	}
	inits, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages", "pip", "__init__.py"))
	if len(inits) != 1 {
		t.Skipf("no pip in the virtual environment: %v", inits)
	}
	time.Sleep(tick)
	if err := os.WriteFile(inits[0], []byte("raise SystemExit(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := verifyDependency(context.Background(), dir, ".venv"); !strings.Contains(got, "pip/__init__.py changed") || !strings.Contains(got, "pip install --force-reinstall pip==") {
		t.Errorf("verify = %q, want pip/__init__.py named", got)
	}
}

// BenchmarkVerifyNodeModules verifies a node_modules of 20,000 files (800
// packages of 25, npm's record of them written last): a stat of every
// entry, no content read.
func BenchmarkVerifyNodeModules(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "node_modules")
	var lock strings.Builder
	lock.WriteString(`{"lockfileVersion": 3, "packages": {`)
	for p := range 800 {
		files := map[string]string{}
		for f := range 25 {
			files[fmt.Sprintf("pkg%d/lib/f%d.js", p, f)] = "module.exports = 1;\n"
		}
		writeFiles(b, dir, files)
		if p > 0 {
			lock.WriteString(",")
		}
		fmt.Fprintf(&lock, `"node_modules/pkg%d": {"version": "1.0.0"}`, p)
	}
	lock.WriteString("}}")
	writeFiles(b, dir, map[string]string{".package-lock.json": lock.String()})
	b.ResetTimer()
	for range b.N {
		if got := verifyDependency(context.Background(), dir, "node_modules"); got != "" {
			b.Fatal(got)
		}
	}
}

// BenchmarkVerifyVenv verifies a virtual environment of 20,000 files of
// 1 KiB (800 packages of 25, each with its RECORD): every file's sha256.
func BenchmarkVerifyVenv(b *testing.B) {
	dir := filepath.Join(b.TempDir(), ".venv")
	writeFiles(b, dir, map[string]string{"pyvenv.cfg": "home = /usr/bin\n"})
	site := filepath.Join(dir, "lib", "python3.11", "site-packages")
	content := strings.Repeat("x = 1\n", 170)
	sum := sha256.Sum256([]byte(content))
	hash := base64.RawURLEncoding.EncodeToString(sum[:])
	for p := range 800 {
		files := map[string]string{}
		var record strings.Builder
		for f := range 25 {
			name := fmt.Sprintf("pkg%d/m%d.py", p, f)
			files[name] = content
			fmt.Fprintf(&record, "%s,sha256=%s,%d\n", name, hash, len(content))
		}
		files[fmt.Sprintf("pkg%d-1.0.dist-info/RECORD", p)] = record.String()
		writeFiles(b, site, files)
	}
	b.ResetTimer()
	for range b.N {
		if got := verifyDependency(context.Background(), dir, ".venv"); got != "" {
			b.Fatal(got)
		}
	}
}

// A verification the run's deadline cuts short does not verify.
func TestVerifyDependencyDeadline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".venv")
	handVenv(t, dir)
	if got := verifyDependency(context.Background(), dir, ".venv"); got != "" {
		t.Fatalf("a fresh install does not verify: %s", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := verifyDependency(ctx, dir, ".venv"); got != ".venv could not be verified before the run's deadline" {
		t.Errorf("verify = %q", got)
	}
}

// Every base run of a checkout that copied a changed dependency directory
// says so, the first and the checks after it (which find the copy made);
// a tracked directory of the base is not the work tree's and is not
// checked; tool caches are not copied.
func TestWorktreesUnverified(t *testing.T) {
	root, commit := repo(t, map[string]string{".gitignore": "node_modules/\n", "a.txt": "x\n", "web/venv/keep.txt": "tracked\n"})
	writeFiles(t, root, map[string]string{
		"node_modules/leftpad/index.js":     "module.exports = 1\n",
		"node_modules/.cache/tool/x.json":   "{}\n",
		"web/venv/lib/site-packages/any.py": "untracked, not installed\n",
	})
	writeFiles(t, root, map[string]string{"node_modules/.package-lock.json": `{"packages": {"node_modules/leftpad": {"version": "1.0.0"}}}`})
	time.Sleep(tick)
	writeFiles(t, root, map[string]string{"node_modules/leftpad/index.js": "throw new Error('broken')\n"})
	w := NewWorktrees(root)
	defer w.Close()
	for _, wd := range []string{".", "web", "."} {
		res, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob("ls -a node_modules; exit 1", wd, nil, nil), Log: logFile(t)})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"node_modules was changed after npm installed it (node_modules/leftpad/index.js changed); install it again (npm ci)"}
		if !reflect.DeepEqual(res.Unverified, want) {
			t.Errorf("%s: Unverified = %q, want %q", wd, res.Unverified, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.trees[commit].root, "node_modules", ".cache")); err == nil {
		t.Error("node_modules/.cache was copied")
	}
}

// BenchmarkVerifyNodeModulesPacked verifies a node_modules of 20,000
// files (800 packages of 25) whose tarballs npm's cache holds: each
// tarball read, checked against its digest, unpacked and compared with
// the installed files.
func BenchmarkVerifyNodeModulesPacked(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "node_modules")
	cache := b.TempDir()
	b.Setenv("npm_config_cache", cache)
	var lock strings.Builder
	lock.WriteString(`{"lockfileVersion": 3, "packages": {`)
	for p := range 800 {
		files := map[string]string{}
		var tgz bytes.Buffer
		zw := gzip.NewWriter(&tgz)
		tw := tar.NewWriter(zw)
		for f := range 25 {
			name := fmt.Sprintf("lib/f%d.js", f)
			content := fmt.Sprintf("module.exports = %d;\n%s", f, strings.Repeat("// padding\n", 40))
			files[fmt.Sprintf("pkg%d/%s", p, name)] = content
			if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
				b.Fatal(err)
			}
			if _, err := tw.Write([]byte(content)); err != nil {
				b.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			b.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
		sum := sha512.Sum512(tgz.Bytes())
		x := hex.EncodeToString(sum[:])
		writeFiles(b, filepath.Join(cache, "_cacache", "content-v2", "sha512", x[:2], x[2:4]), map[string]string{x[4:]: tgz.String()})
		writeFiles(b, dir, files)
		if p > 0 {
			lock.WriteString(",")
		}
		fmt.Fprintf(&lock, `"node_modules/pkg%d": {"version": "1.0.0", "integrity": "sha512-%s"}`, p, base64.StdEncoding.EncodeToString(sum[:]))
	}
	lock.WriteString("}}")
	writeFiles(b, dir, map[string]string{".package-lock.json": lock.String()})
	// one file changed, its record rewritten: only the tarballs tell
	writeFiles(b, dir, map[string]string{"pkg400/lib/f3.js": strings.Repeat("X", len(fmt.Sprintf("module.exports = %d;\n%s", 3, strings.Repeat("// padding\n", 40))))})
	writeFiles(b, dir, map[string]string{".package-lock.json": lock.String()})
	b.ResetTimer()
	for range b.N {
		if got := verifyDependency(context.Background(), dir, "node_modules"); !strings.Contains(got, "node_modules/pkg400/lib/f3.js changed") {
			b.Fatal(got)
		}
	}
}

// Held: an entry of a node_modules that is no file of a package npm's
// record lists, nor a .bin link to a program a package declares, does not
// verify, however its times compare with the record's: npm rewrites its
// record on every install (tried here too) and leaves such entries. Each
// plant is judged with the record touched after it and after npm install
// runs again (then only while the plant is still there).
func TestVerifyNodeModulesPlants(t *testing.T) {
	script := "#!/bin/sh\necho 'add broken' >&2\nexit 1\n"
	link := func(target, at string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, filepath.FromSlash(at))
			_ = os.Remove(p)
			if err := os.Symlink(strings.ReplaceAll(target, "$OUT", t.TempDir()), p); err != nil {
				t.Fatal(err)
			}
		}
	}
	file := func(at, content string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, filepath.FromSlash(at))
			_ = os.Remove(p)
			writeFiles(t, dir, map[string]string{at: content})
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	plants := []struct {
		name, at string
		do       func(t *testing.T, dir string)
	}{
		{".bin file", ".bin/node", file(".bin/node", script)},
		{".bin program replaced by a file", ".bin/leftpad", file(".bin/leftpad", script)},
		{".bin link to an absolute path out", ".bin/node", link("$OUT/node", ".bin/node")},
		{".bin link to a relative path out", ".bin/node", link("../../../elsewhere/node", ".bin/node")},
		{".bin link to a package's file that is no program", ".bin/node", link("../leftpad/index.js", ".bin/node")},
		{".bin link to npm's record", ".bin/node", link("../.package-lock.json", ".bin/node")},
		{".bin link to a directory of its own", ".bin/node", link("../evil/node", ".bin/node")},
		{"top-level module", "x.js", file("x.js", "module.exports = 1\n")},
		{"package npm's record does not list", "evil", file("evil/index.js", "module.exports = 1\n")},
		{"scoped package npm's record does not list", "@s/evil", file("@s/evil/index.js", "module.exports = 1\n")},
		{"file added to a package", "leftpad/lib/extra.js", file("leftpad/lib/extra.js", "x\n")},
		{"package's nested node_modules module", "leftpad/node_modules/y.js", file("leftpad/node_modules/y.js", "x\n")},
	}
	for _, again := range []bool{false, true} {
		for _, pl := range plants {
			how := "record touched"
			if again {
				how = "installed again"
			}
			t.Run(how+"/"+pl.name, func(t *testing.T) {
				project := t.TempDir()
				dir := filepath.Join(project, "node_modules")
				npmInstall(t, project)
				if _, err := os.Readlink(filepath.Join(dir, ".bin", "leftpad")); err != nil {
					t.Fatalf("npm made no .bin link: %v", err)
				}
				if got := verifyDependency(context.Background(), dir, "node_modules"); got != "" {
					t.Fatalf("a fresh install does not verify: %s", got)
				}
				pl.do(t, dir)
				time.Sleep(tick)
				if again {
					npmAgain[project]()
				} else {
					now := time.Now()
					if err := os.Chtimes(filepath.Join(dir, ".package-lock.json"), now, now); err != nil {
						t.Fatal(err)
					}
				}
				got := verifyDependency(context.Background(), dir, "node_modules")
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(pl.at))); err != nil && again {
					if got != "" { // npm removed the plant: the directory holds what it installed
						t.Errorf("npm install removed the plant, yet verify = %q", got)
					}
					return
				}
				if !strings.Contains(got, "node_modules/"+pl.at+" ") {
					t.Errorf("verify = %q, want %s named", got, pl.at)
				}
			})
		}
	}
}

// realVenv makes a virtual environment at dir with the real python3 -m
// venv (without pip: no index is reachable) and installs in it, as pip
// would, a package leftpad with its RECORD. It returns how long making
// the environment took. Skipped without python3.
func realVenv(t *testing.T, dir string) time.Duration {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	start := time.Now()
	if out, err := exec.Command(python, "-m", "venv", "--without-pip", dir).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv: %v\n%s", err, out)
	}
	took := time.Since(start)
	sites, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages"))
	if len(sites) != 1 {
		t.Skipf("no site-packages: %v", sites)
	}
	time.Sleep(tick)
	content := "def pad(s, n):\n    return s.rjust(n)\n"
	sum := sha256.Sum256([]byte(content))
	record := fmt.Sprintf("leftpad/__init__.py,sha256=%s,%d\nleftpad-1.0.dist-info/RECORD,,\n", base64.RawURLEncoding.EncodeToString(sum[:]), len(content))
	writeFiles(t, sites[0], map[string]string{"leftpad/__init__.py": content})
	writeFiles(t, sites[0], map[string]string{"leftpad-1.0.dist-info/RECORD": record})
	return took
}

// Held: a file of a virtual environment no RECORD lists does not verify
// when it is an interpreter that leads elsewhere than pyvenv.cfg's home,
// another program in bin, or a pyvenv.cfg changed after the packages
// were installed, however fresh the environment; any other such file
// does not once the environment is older than venvMaking, whatever file
// was touched to look as old. A fresh environment, and one a package was
// added to later, verify.
func TestVerifyVenvPlants(t *testing.T) {
	script := "#!/bin/sh\necho 'add broken' >&2\nexit 1\n"
	write := func(t *testing.T, p, content string) {
		_ = os.Remove(p)
		writeFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): content})
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	relink := func(t *testing.T, p, target string) {
		_ = os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(t *testing.T, dir string, names ...string) {
		now := time.Now()
		for _, n := range names {
			matches, _ := filepath.Glob(filepath.Join(dir, n))
			for _, m := range matches {
				if err := os.Chtimes(m, now, now); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	const record = "lib/*/site-packages/*.dist-info/RECORD"
	cases := []struct {
		name  string
		fresh bool   // judged within venvMaking of its making
		want  string // the entry named, "" when it verifies
		do    func(t *testing.T, dir string)
	}{
		{"untouched", true, "", func(*testing.T, string) {}},
		{"untouched, old", false, "", func(*testing.T, string) {}},
		{"package installed later", false, "", func(t *testing.T, dir string) {
			sites, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages"))
			writeFiles(t, sites[0], map[string]string{"other/__init__.py": "", "other-1.0.dist-info/RECORD": "other/__init__.py,,\nother-1.0.dist-info/RECORD,,\n"})
		}},
		{"bin/python a script", true, "bin/python ", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "python"), script)
		}},
		{"bin/python a script, pyvenv.cfg touched", false, "bin/python ", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "python"), script)
			touch(t, dir, "pyvenv.cfg")
		}},
		{"bin/python3 a link out", true, "bin/python3 ", func(t *testing.T, dir string) {
			out := filepath.Join(t.TempDir(), "python3")
			write(t, out, script)
			relink(t, filepath.Join(dir, "bin", "python3"), out)
		}},
		{"bin/python a link to a package's file", true, "bin/python ", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages", "leftpad", "__init__.py"))
			relink(t, filepath.Join(dir, "bin", "python"), files[0])
		}},
		{"home moved to a script", true, "pyvenv.cfg ", func(t *testing.T, dir string) {
			home := t.TempDir()
			write(t, filepath.Join(home, "python3"), script)
			cfg, _ := os.ReadFile(filepath.Join(dir, "pyvenv.cfg"))
			var lines []string
			for _, l := range strings.Split(string(cfg), "\n") {
				if k, _, _ := strings.Cut(l, "="); strings.TrimSpace(k) == "home" || strings.TrimSpace(k) == "executable" {
					l = strings.TrimSpace(k) + " = " + home
				}
				lines = append(lines, l)
			}
			write(t, filepath.Join(dir, "pyvenv.cfg"), strings.Join(lines, "\n"))
			relink(t, filepath.Join(dir, "bin", "python3"), filepath.Join(home, "python3"))
		}},
		{"program in bin no package installed", true, "bin/pytest ", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "pytest"), script)
		}},
		{"sitecustomize added, pyvenv.cfg and RECORDs touched", false, "sitecustomize.py ", func(t *testing.T, dir string) {
			sites, _ := filepath.Glob(filepath.Join(dir, "lib", "*", "site-packages"))
			writeFiles(t, sites[0], map[string]string{"sitecustomize.py": "raise SystemExit(1)\n"})
			touch(t, dir, "pyvenv.cfg", record)
		}},
	}
	defer func(d time.Duration) { venvMaking = d }(venvMaking)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".venv")
			took := realVenv(t, dir)
			venvMaking = time.Hour
			if !c.fresh {
				venvMaking = took + tick // its making, and no more
				time.Sleep(venvMaking + tick)
			}
			c.do(t, dir)
			got := verifyDependency(context.Background(), dir, ".venv")
			switch {
			case c.want == "" && got != "":
				t.Errorf("verify = %q, want it verified", got)
			case c.want != "" && !strings.Contains(got, ".venv/"+c.want) && !strings.Contains(got, "/"+c.want):
				t.Errorf("verify = %q, want %s named", got, c.want)
			}
		})
	}
}
