// Package npmpkg writes the npm packages of agent-gauntlet the way Go tools
// such as esbuild and lefthook ship there: a main package, Name, whose
// command is a small Node.js launcher, and one package per platform that
// holds the binary and declares its "os" and "cpu", listed in the main
// package's optionalDependencies so that npm installs only the one that
// fits. The main package's install script (postinstall.js) puts, on Linux
// and macOS under npm, the binary in the launcher's place, so that a
// command (every stop hook) starts no Node; where it does not, the launcher
// runs the binary. Nothing downloads anything: the packages install offline
// from their tarballs.
package npmpkg

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Name is the main package's name. `agent-gauntlet` on npm is the
// TypeScript tool; this is the Go one.
const Name = "agent-gauntlet-go"

// Bins are the commands the main package installs: agent-gauntlet, the
// name every hook calls, and Name, so that `npx agent-gauntlet-go` runs it
// without an install.
var Bins = []string{"agent-gauntlet", Name}

// The main package's files: the launcher its commands name (where the
// install script puts the binary), the module that finds the binary, and
// the install script.
const (
	launcherPath    = "bin/agent-gauntlet"
	binaryJSPath    = "lib/binary.js"
	postinstallPath = "lib/postinstall.js"
)

// postinstallCommand is the main package's install script. The script
// never fails; "|| exit 0" (in sh and in cmd.exe alike) keeps even a Node
// that cannot run it from failing the install.
const postinstallCommand = "node " + postinstallPath + " || exit 0"

var (
	//go:embed launcher.js
	launcher []byte
	//go:embed binary.js
	binaryJS []byte
	//go:embed postinstall.js
	postinstall []byte
)

//go:embed README.md
var readme []byte

// Platform is one GOOS/GOARCH pair the binaries are built for.
type Platform struct{ GOOS, GOARCH string }

// npmOS and npmCPU map Go's names to Node's process.platform and
// process.arch, which npm matches against "os" and "cpu".
var (
	npmOS  = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}
	npmCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}
)

// OS returns the platform's npm "os" value.
func (p Platform) OS() string { return npmOS[p.GOOS] }

// CPU returns the platform's npm "cpu" value.
func (p Platform) CPU() string { return npmCPU[p.GOARCH] }

// Package returns the name of the platform's package.
func (p Platform) Package() string { return Name + "-" + p.OS() + "-" + p.CPU() }

// Exe returns the binary's file name on the platform.
func (p Platform) Exe() string {
	if p.GOOS == "windows" {
		return "agent-gauntlet.exe"
	}
	return "agent-gauntlet"
}

// Binary is a built agent-gauntlet binary.
type Binary struct {
	Platform
	// Path is the binary's path on disk.
	Path string
}

// manifest is the part of package.json these packages use.
type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Keywords             []string          `json:"keywords,omitempty"`
	Homepage             string            `json:"homepage"`
	Repository           repository        `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Scripts              map[string]string `json:"scripts,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Files                []string          `json:"files"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
}

type repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// homepage and repo say where the project lives.
var (
	homepage = "https://github.com/agent-gauntlet/agent-gauntlet"
	repo     = repository{Type: "git", URL: "git+https://github.com/agent-gauntlet/agent-gauntlet.git"}
)

// Write writes, under dir, one directory per package: the platform
// packages of bins and the main package, all at version (semver without a
// leading v), and returns the directories, the main package's last.
func Write(dir, version string, bins []Binary) ([]string, error) {
	if len(bins) == 0 {
		return nil, fmt.Errorf("no binaries to package")
	}
	main := manifest{
		Name:                 Name,
		Version:              version,
		Description:          "Quality gates for AI coding agents: checks and AI reviews that must pass before the agent may stop (the Go agent-gauntlet).",
		Keywords:             []string{"ai", "agents", "claude-code", "codex", "gemini", "quality-gates", "hooks"},
		Homepage:             homepage,
		Repository:           repo,
		Bin:                  map[string]string{},
		Scripts:              map[string]string{"postinstall": postinstallCommand},
		Files:                []string{launcherPath, binaryJSPath, postinstallPath},
		OptionalDependencies: map[string]string{},
		Engines:              map[string]string{"node": ">=18"},
	}
	for _, b := range Bins {
		main.Bin[b] = launcherPath
	}
	var dirs []string
	for _, b := range bins {
		if b.OS() == "" || b.CPU() == "" {
			return nil, fmt.Errorf("%s/%s: no npm os/cpu for this platform", b.GOOS, b.GOARCH)
		}
		m := manifest{
			Name:            b.Package(),
			Version:         version,
			Description:     fmt.Sprintf("The agent-gauntlet binary for %s-%s, installed by %s.", b.OS(), b.CPU(), Name),
			Homepage:        homepage,
			Repository:      repo,
			OS:              []string{b.OS()},
			CPU:             []string{b.CPU()},
			Files:           []string{"bin/" + b.Exe()},
			PreferUnplugged: true,
		}
		pkgDir := filepath.Join(dir, b.Package())
		if err := writePackage(pkgDir, m, map[string]fileSource{"bin/" + b.Exe(): {path: b.Path, mode: 0o755}}); err != nil {
			return nil, err
		}
		main.OptionalDependencies[b.Package()] = version
		dirs = append(dirs, pkgDir)
	}
	mainDir := filepath.Join(dir, Name)
	err := writePackage(mainDir, main, map[string]fileSource{
		launcherPath:    {data: launcher, mode: 0o755},
		binaryJSPath:    {data: binaryJS, mode: 0o644},
		postinstallPath: {data: postinstall, mode: 0o644},
		"README.md":     {data: readme, mode: 0o644},
	})
	if err != nil {
		return nil, err
	}
	return append(dirs, mainDir), nil
}

// fileSource is a file of a package: a copy of path, or data.
type fileSource struct {
	path string
	data []byte
	mode os.FileMode
}

// writePackage writes package.json and files into dir.
func writePackage(dir string, m manifest, files map[string]fileSource) error {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // ">=18", not "\u003e=18"
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	files["package.json"] = fileSource{data: data.Bytes(), mode: 0o644}
	for name, src := range files {
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
		}
		content := src.data
		if src.path != "" {
			var err error
			if content, err = os.ReadFile(src.path); err != nil {
				return fmt.Errorf("read %s: %w", src.path, err)
			}
		}
		if err := os.WriteFile(dst, content, src.mode); err != nil {
			return fmt.Errorf("write %s: %w", dst, err)
		}
		if err := os.Chmod(dst, src.mode); err != nil {
			return err
		}
	}
	return nil
}

// Pack runs `npm pack` in each package directory, writing the tarballs
// into dest, and returns their paths in the same order.
func Pack(ctx context.Context, dirs []string, dest string, log io.Writer) ([]string, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dest, err)
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, err
	}
	var tarballs []string
	for _, d := range dirs {
		fmt.Fprintf(log, "+ (cd %s && npm pack --pack-destination %s)\n", d, dest)
		cmd := exec.CommandContext(ctx, "npm", "pack", "--pack-destination", abs, "--json")
		cmd.Dir = d
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("npm pack in %s: %w: %s", d, err, strings.TrimSpace(stderr.String()))
		}
		var packed []struct{ Filename string }
		if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil || len(packed) != 1 {
			return nil, fmt.Errorf("npm pack in %s: unexpected output %q", d, stdout.String())
		}
		tarballs = append(tarballs, filepath.Join(abs, packed[0].Filename))
	}
	return tarballs, nil
}
