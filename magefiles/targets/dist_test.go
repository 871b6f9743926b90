package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/magefiles/internal/release"
)

func TestSnapshotVersionParts(t *testing.T) {
	for _, tt := range []struct {
		tags []string
		last string
		next string
	}{
		{nil, "v0.0.0", "0.0.1"},
		{[]string{"v0.1.0", "v0.2.0", "v0.10.0", "cli/v9.0.0", "nightly"}, "v0.10.0", "0.10.1"},
		{[]string{"v1.2.3-rc.1"}, "v1.2.3-rc.1", "1.2.4"},
	} {
		last := lastRelease(tt.tags)
		if last != tt.last || nextPatch(last) != tt.next {
			t.Errorf("tags %v: last %s next %s, want %s %s", tt.tags, last, nextPatch(last), tt.last, tt.next)
		}
	}
}

// TestOneSourceForTheCommand checks that the facts the build, the release
// and .goreleaser.yaml each state about the command agree.
func TestOneSourceForTheCommand(t *testing.T) {
	if got := release.RepoPath + "/" + cliModule + "/" + strings.TrimPrefix(mainPackage, "./"); got != release.Command {
		t.Errorf("mage builds %s, the release installs %s", got, release.Command)
	}
	if !strings.HasPrefix(versionVar, release.RepoPath+"/"+cliModule+".") {
		t.Errorf("version variable %s is not in the cli module", versionVar)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"dir: " + cliModule + "\n",
		"main: " + mainPackage + "\n",
		"-X " + versionVar + "=v{{ .Version }}",
		"CGO_ENABLED=0",
		"{{ .Env." + snapshotVersionEnv + " }}",
		"name_template: checksums.txt",
	} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf(".goreleaser.yaml lacks %q", want)
		}
	}
	for _, goos := range crossOS {
		if !strings.Contains(string(cfg), goos) {
			t.Errorf(".goreleaser.yaml does not build for %s", goos)
		}
	}
}
