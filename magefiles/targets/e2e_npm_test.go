package targets

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMissingNpmPackages(t *testing.T) {
	want := []NpmPackage{{Name: "@scope/a", Version: "1.2.3"}, {Name: "b", Version: "4.5.6"}}
	tests := []struct {
		name      string
		installed map[string]string // package name -> package.json content
		missing   []NpmPackage
		wantErr   bool
	}{
		{name: "empty prefix", missing: want},
		{
			name: "all pinned versions",
			installed: map[string]string{
				"@scope/a": `{"name":"@scope/a","version":"1.2.3"}`,
				"b":        `{"name":"b","version":"4.5.6"}`,
			},
		},
		{
			name: "one at another version",
			installed: map[string]string{
				"@scope/a": `{"name":"@scope/a","version":"1.2.4"}`,
				"b":        `{"name":"b","version":"4.5.6"}`,
			},
			missing: want[:1],
		},
		{
			name:      "unreadable package.json",
			installed: map[string]string{"b": `{`},
			wantErr:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := t.TempDir()
			for name, content := range tt.installed {
				dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := MissingNpmPackages(prefix, want)
			if (err != nil) != tt.wantErr {
				t.Fatalf("MissingNpmPackages() error = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.missing) {
				t.Errorf("MissingNpmPackages() = %v, want %v", got, tt.missing)
			}
		})
	}
}

func TestE2EClientsArePinned(t *testing.T) {
	for _, p := range E2EClients {
		if p.Name == "" || p.Version == "" || p.Version[0] < '0' || p.Version[0] > '9' {
			t.Errorf("%q is not pinned to an exact version", p.Spec())
		}
	}
}

func TestNodeMajor(t *testing.T) {
	for v, want := range map[string]int{"v20.20.2\n": 20, "22.23.3": 22, "v26.0.0-pre": 26, "": 0, "vx": 0} {
		if got := nodeMajor(v); got != want {
			t.Errorf("nodeMajor(%q) = %d, want %d", v, got, want)
		}
	}
	if p := E2ENode; p.Name != "node" || nodeMajor(p.Version) < 22 {
		t.Errorf("E2ENode = %s, want node 22 or newer (Qwen Code needs it)", p.Spec())
	}
}
