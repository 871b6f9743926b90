package npmpkg

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPlatformNames(t *testing.T) {
	for _, tt := range []struct {
		p        Platform
		pkg, exe string
	}{
		{Platform{"linux", "amd64"}, "agent-gauntlet-go-linux-x64", "agent-gauntlet"},
		{Platform{"darwin", "arm64"}, "agent-gauntlet-go-darwin-arm64", "agent-gauntlet"},
		{Platform{"windows", "amd64"}, "agent-gauntlet-go-win32-x64", "agent-gauntlet.exe"},
	} {
		if tt.p.Package() != tt.pkg || tt.p.Exe() != tt.exe {
			t.Errorf("%v: %s %s, want %s %s", tt.p, tt.p.Package(), tt.p.Exe(), tt.pkg, tt.exe)
		}
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "built")
	if err := os.WriteFile(bin, []byte("binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	bins := []Binary{{Platform{"linux", "amd64"}, bin}, {Platform{"windows", "arm64"}, bin}}
	dirs, err := Write(filepath.Join(dir, "out"), "1.2.3", bins)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 3 || filepath.Base(dirs[2]) != Name {
		t.Fatalf("dirs = %v, want two platform packages then %s", dirs, Name)
	}

	var main manifest
	readJSON(t, filepath.Join(dirs[2], "package.json"), &main)
	if main.Name != Name || main.Version != "1.2.3" {
		t.Errorf("main package %s@%s", main.Name, main.Version)
	}
	wantDeps := map[string]string{"agent-gauntlet-go-linux-x64": "1.2.3", "agent-gauntlet-go-win32-arm64": "1.2.3"}
	if !maps.Equal(main.OptionalDependencies, wantDeps) {
		t.Errorf("optionalDependencies = %v, want %v", main.OptionalDependencies, wantDeps)
	}
	for _, b := range Bins {
		if main.Bin[b] != launcherPath {
			t.Errorf("bin %s = %q, want %s", b, main.Bin[b], launcherPath)
		}
	}
	if main.Scripts["postinstall"] != "node lib/postinstall.js || exit 0" || len(main.Scripts) != 1 {
		t.Errorf("scripts = %v, want only the postinstall, which never fails", main.Scripts)
	}
	if want := []string{"bin/agent-gauntlet", "lib/binary.js", "lib/postinstall.js"}; !slices.Equal(main.Files, want) {
		t.Errorf("files = %v, want %v", main.Files, want)
	}
	for _, f := range main.Files {
		if _, err := os.Stat(filepath.Join(dirs[2], filepath.FromSlash(f))); err != nil {
			t.Errorf("a file of the package is missing: %v", err)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dirs[2], "package.json"))
	if !strings.Contains(string(raw), `">=18"`) {
		t.Errorf("package.json escapes its text:\n%s", raw)
	}
	info, err := os.Stat(filepath.Join(dirs[2], filepath.FromSlash(launcherPath)))
	if err != nil || info.Mode().Perm()&0o111 == 0 {
		t.Errorf("launcher: %v, mode %v; want an executable file", err, info)
	}

	var win manifest
	readJSON(t, filepath.Join(dirs[1], "package.json"), &win)
	if win.Name != "agent-gauntlet-go-win32-arm64" || !slices.Equal(win.OS, []string{"win32"}) || !slices.Equal(win.CPU, []string{"arm64"}) ||
		!slices.Equal(win.Files, []string{"bin/agent-gauntlet.exe"}) || win.Bin != nil {
		t.Errorf("windows package manifest = %+v", win)
	}
	exe := filepath.Join(dirs[1], "bin", "agent-gauntlet.exe")
	if data, err := os.ReadFile(exe); err != nil || string(data) != "binary" {
		t.Errorf("%s: %q, %v", exe, data, err)
	}
	if info, err := os.Stat(exe); err != nil || info.Mode().Perm()&0o111 == 0 {
		t.Errorf("%s is not executable: %v", exe, info)
	}

	if _, err := Write(t.TempDir(), "1.2.3", []Binary{{Platform{"plan9", "386"}, bin}}); err == nil {
		t.Error("Write accepted a platform npm cannot name")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
