package baseline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tarEntry is one entry of a test tarball.
type tarEntry struct {
	name string
	typ  byte
	body string
}

const pkgJSON = `{"name":"deptool","version":"1.0.0"}`

// tarballShapes are package tarballs in every shape whose extraction by
// npm is not the plain copy of each entry, with what npm leaves of each
// (path in the package: content).
var tarballShapes = []struct {
	name    string
	entries []tarEntry
	want    map[string]string
}{
	{"plain", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/index.js", tar.TypeReg, "module.exports = 1\n"},
		{"package/lib/a.js", tar.TypeReg, "a\n"},
	}, map[string]string{"package.json": pkgJSON, "index.js": "module.exports = 1\n", "lib/a.js": "a\n"}},
	{"a path twice: the last entry wins", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/index.js", tar.TypeReg, "module.exports = 1\n"},
		{"package/index.js", tar.TypeReg, "module.exports = 22\n"},
	}, map[string]string{"package.json": pkgJSON, "index.js": "module.exports = 22\n"}},
	{"a path twice, spelled apart", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/lib/a.js", tar.TypeReg, "first\n"},
		{"package//lib/./a.js", tar.TypeReg, "second one\n"},
	}, map[string]string{"package.json": pkgJSON, "lib/a.js": "second one\n"}},
	{".gitignore installed as .npmignore", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/.gitignore", tar.TypeReg, "*.log\n"},
		{"package/sub/.gitignore", tar.TypeReg, "*.tmp\n"},
	}, map[string]string{"package.json": pkgJSON, ".npmignore": "*.log\n", "sub/.npmignore": "*.tmp\n"}},
	{".npmignore before .gitignore: the .gitignore is dropped", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/.npmignore", tar.TypeReg, "npm\n"},
		{"package/.gitignore", tar.TypeReg, "git\n"},
	}, map[string]string{"package.json": pkgJSON, ".npmignore": "npm\n"}},
	{".gitignore before .npmignore: the .npmignore wins", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/.gitignore", tar.TypeReg, "git\n"},
		{"package/.npmignore", tar.TypeReg, "npm!\n"},
	}, map[string]string{"package.json": pkgJSON, ".npmignore": "npm!\n"}},
	{"links are not extracted", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/index.js", tar.TypeReg, "x\n"},
		{"package/sym.js", tar.TypeSymlink, "index.js"},
		{"package/hard.js", tar.TypeLink, "package/index.js"},
	}, map[string]string{"package.json": pkgJSON, "index.js": "x\n"}},
	{"a directory entry over a file", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/index.js", tar.TypeReg, "x\n"},
		{"package/index.js/", tar.TypeDir, ""},
	}, map[string]string{"package.json": pkgJSON, "index.js": "x\n"}},
	{"a file where a directory is, and under a file", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/lib/a.js", tar.TypeReg, "a\n"},
		{"package/lib", tar.TypeReg, "not a dir\n"},
		{"package/index.js", tar.TypeReg, "x\n"},
		{"package/index.js/b.js", tar.TypeReg, "b\n"},
	}, map[string]string{"package.json": pkgJSON, "lib/a.js": "a\n", "index.js": "x\n"}},
	{"another top directory, and ./ before it", []tarEntry{
		{"deptool/package.json", tar.TypeReg, pkgJSON},
		{"./package/index.js", tar.TypeReg, "y\n"},
	}, map[string]string{"package.json": pkgJSON, "package/index.js": "y\n"}},
	{"a name with ..", []tarEntry{
		{"package/package.json", tar.TypeReg, pkgJSON},
		{"package/../escape.js", tar.TypeReg, "out\n"},
		{"package/lib/../in.js", tar.TypeReg, "in\n"},
	}, map[string]string{"package.json": pkgJSON}},
}

// makeTarball gzips a tarball of entries.
func makeTarball(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644}
		switch e.typ {
		case tar.TypeSymlink, tar.TypeLink:
			h.Linkname = e.body
		case tar.TypeDir:
			h.Mode = 0o755
		default:
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size == 0 {
			continue
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The tarball comparison reads each path's content as npm extracts it:
// for every shape, extracted gives exactly the files npm leaves.
func TestNpmExtracted(t *testing.T) {
	for _, c := range tarballShapes {
		t.Run(c.name, func(t *testing.T) {
			got := extracted(makeTarball(t, c.entries), make([]byte, 4096))
			if got == nil {
				t.Fatal("unreadable")
			}
			if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(c.want)); !slices.Equal(g, w) {
				t.Fatalf("paths %q, want %q", g, w)
			}
			for p, body := range c.want {
				if got[p].sum != sha256.Sum256([]byte(body)) || got[p].size != int64(len(body)) {
					t.Errorf("%s: not the content %q", p, body)
				}
			}
		})
	}
}

// Differential, with the real npm: each shape installed by a plain npm
// install leaves exactly the files the table says (so the table is npm's
// behaviour) and verifies; each of those files changed or deleted, npm's
// record rewritten after (as any later npm install does), does not, and
// the comparison with the tarball names it.
func TestVerifyNpmTarballShapes(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	t.Setenv("npm_config_cache", filepath.Join(t.TempDir(), "cache"))
	for i, c := range tarballShapes {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			tgz := filepath.Join(root, "deptool-1.0."+string(rune('0'+i%10))+".tgz")
			if err := os.WriteFile(tgz, makeTarball(t, c.entries), 0o644); err != nil {
				t.Fatal(err)
			}
			project := filepath.Join(root, "app")
			writeFiles(t, project, map[string]string{"package.json": `{"name": "app", "version": "1.0.0", "dependencies": {"deptool": "file:` + tgz + `"}}`})
			cmd := exec.Command(npm, "install")
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm install: %v\n%s", err, out)
			}
			nm := filepath.Join(project, "node_modules")
			pkg := filepath.Join(nm, "deptool")
			installed := map[string]string{}
			_ = filepath.WalkDir(pkg, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() {
					b, _ := os.ReadFile(p)
					installed[filepath.ToSlash(relTo("", pkg, p))] = string(b)
				}
				return nil
			})
			if !maps.Equal(installed, c.want) {
				t.Fatalf("npm installed %q, the table says %q", installed, c.want)
			}
			if why := verifyDependency(context.Background(), nm, "node_modules"); why != "" {
				t.Fatalf("a plain install does not verify: %s", why)
			}
			for p, body := range c.want {
				if p == "package.json" {
					continue // npm's record is judged by its own rules
				}
				at := filepath.Join(pkg, filepath.FromSlash(p))
				for _, change := range []func() error{
					func() error { return os.WriteFile(at, []byte(strings.ToUpper(body)+"!"), 0o644) },
					func() error { return os.Remove(at) },
				} {
					if err := change(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(tick)
					now := time.Now()
					if err := os.Chtimes(filepath.Join(nm, ".package-lock.json"), now, now); err != nil {
						t.Fatal(err)
					}
					if why := verifyDependency(context.Background(), nm, "node_modules"); !strings.Contains(why, "node_modules/deptool/"+p+" ") {
						t.Errorf("%s changed or deleted: verify = %q, want it named", p, why)
					}
				}
				if err := os.WriteFile(at, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
