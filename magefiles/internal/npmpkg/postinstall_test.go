//go:build unix

package npmpkg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// postinstallVersion is the version of the packages these tests lay out.
const postinstallVersion = "1.2.3"

// fakeBinaries are stand-ins for the platform package's binary: shell
// scripts that answer --version as the test needs.
var fakeBinaries = map[string]string{
	"right":  "#!/bin/sh\necho v1.2.3\n",
	"wrong":  "#!/bin/sh\necho v9.9.9\n",
	"fails":  "#!/bin/sh\necho 'cannot start' >&2\nexit 3\n",
	"hangs":  "#!/bin/sh\nexec sleep 60\n",
	"prints": "#!/bin/sh\nprintf 'v1.2.3 and more\\n'\n",
}

// installed is a node_modules tree laid out as npm lays out an install of
// the main package and this machine's platform package, with the command
// linked into node_modules/.bin as npm links it.
type installed struct {
	root    string // the project: node_modules is in it
	main    string // node_modules/agent-gauntlet-go
	command string // main/bin/agent-gauntlet: the file npm links the commands to
	binary  string // the platform package's binary
}

// layOut writes the packages (Write) into a fresh node_modules, the platform
// package's binary being fakeBinaries[fake]; without the platform package
// when fake is "".
func layOut(t *testing.T, fake string) installed {
	t.Helper()
	host := Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if host.OS() == "" || host.CPU() == "" {
		t.Skipf("no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	src := filepath.Join(t.TempDir(), "binary")
	if err := os.WriteFile(src, []byte(fakeBinaries[fake]), 0o755); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	nm := filepath.Join(root, "node_modules")
	dirs, err := Write(nm, postinstallVersion, []Binary{{host, src}})
	if err != nil {
		t.Fatal(err)
	}
	in := installed{root: root, main: dirs[1], command: filepath.Join(dirs[1], filepath.FromSlash(launcherPath)),
		binary: filepath.Join(dirs[0], "bin", host.Exe())}
	if fake == "" {
		if err := os.RemoveAll(dirs[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(nm, ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range Bins {
		if err := os.Symlink(filepath.Join("..", Name, filepath.FromSlash(launcherPath)), filepath.Join(nm, ".bin", b)); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// node runs node with args in dir, with the test's environment less npm's
// variables, plus env.
func node(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the install script is proven by `go tool mage installtest`")
	}
	return runIn(t, dir, append(withoutNpm(), env...), "", "node", args...)
}

// withoutNpm is the test's environment less npm's variables.
func withoutNpm() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToLower(kv), "npm_") {
			env = append(env, kv)
		}
	}
	return env
}

// npmAgent is the user agent npm gives its scripts.
const npmAgent = "npm_config_user_agent=npm/11.6.0 node/v22.0.0 linux x64 workspaces/false"

// TestPostinstallReplaces runs the install script as npm runs it, in the
// main package with npm's user agent: the commands become the platform
// package's binary (a hard link), through npm's symlinks too, silently,
// with no temporary file left; a second run changes nothing.
func TestPostinstallReplaces(t *testing.T) {
	in := layOut(t, "right")
	for run := 1; run <= 2; run++ {
		if r := node(t, in.main, []string{npmAgent}, filepath.FromSlash(postinstallPath)); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("run %d: %s; want a silent success", run, r)
		}
		assertBinary(t, in, true)
	}
	for _, b := range Bins {
		if r := runIn(t, in.root, withoutNpm(), "", filepath.Join(in.root, "node_modules", ".bin", b), "--version"); r.code != 0 || r.stdout != "v1.2.3\n" {
			t.Errorf(".bin/%s --version: %s", b, r)
		}
	}
}

// TestPostinstallCopies: where the file system refuses the hard link, the
// binary is copied, executable, in the launcher's place.
func TestPostinstallCopies(t *testing.T) {
	in := layOut(t, "right")
	got := optimize(t, in, `{"link": "refuse"}`)
	if got != "binary" {
		t.Fatalf("optimize = %q, want binary", got)
	}
	assertBinary(t, in, false)
	info, err := os.Stat(in.command)
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("the copy: %v, %v; want mode 0755", info, err)
	}
}

// TestPostinstallKeepsLauncher: where the script cannot, or must not, put
// the binary in place, the install still succeeds (exit 0), the launcher
// stays, and the script prints at most one line on stderr: one that says
// why when something went wrong, nothing when the launcher is the right
// command (another package manager).
func TestPostinstallKeepsLauncher(t *testing.T) {
	for _, tt := range []struct {
		name, fake string
		env        []string
		// why is in the one stderr line; "" for a silent run. not is not.
		why, not []string
	}{
		{name: "the binary prints another version", fake: "wrong", env: []string{npmAgent}, why: []string{`"v9.9.9"`, `"v1.2.3"`}},
		{name: "the binary prints more than its version", fake: "prints", env: []string{npmAgent}, why: []string{"and more"}},
		{name: "the binary fails", fake: "fails", env: []string{npmAgent}, why: []string{"--version failed (exit 3: cannot start)"}},
		// npm goes on without an optional dependency it cannot fetch or
		// install: the line says so, and blames no option nobody passed
		{name: "the platform package is missing", env: []string{npmAgent}, why: []string{Platform{runtime.GOOS, runtime.GOARCH}.Package(), "is not installed",
			"npm did not install it", "offline"}, not: []string{"without --omit=optional"}},
		{name: "the platform package is left out with --omit=optional", env: []string{npmAgent, "npm_config_omit=optional"},
			why: []string{"is not installed", "--omit=optional left it out"}},
		{name: "the platform package is left out with --no-optional", env: []string{npmAgent, "npm_config_optional="},
			why: []string{"is not installed", "--omit=optional left it out"}},
		{name: "the platform package is missing, dev dependencies omitted", env: []string{npmAgent, "npm_config_omit=dev"},
			why: []string{"is not installed", "npm did not install it"}, not: []string{"left it out"}},
		{name: "pnpm links commands with shims that run node", fake: "right", env: []string{"npm_config_user_agent=pnpm/9.15.0 npm/? node/v22.0.0 linux x64"}},
		{name: "yarn runs commands with node", fake: "right", env: []string{"npm_config_user_agent=yarn/4.5.0 npm/? node/v22.0.0 linux x64"}},
		{name: "bun", fake: "right", env: []string{"npm_config_user_agent=bun/1.1.0 npm/? node/v22.0.0 linux x64"}},
		{name: "no package manager", fake: "right"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := layOut(t, tt.fake)
			r := node(t, in.main, tt.env, filepath.FromSlash(postinstallPath))
			if r.code != 0 || r.stdout != "" {
				t.Errorf("%s: want exit 0 and no output", r)
			}
			stderr := r.stderr
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			switch {
			case len(tt.why) == 0 && stderr != "":
				t.Errorf("stderr %q, want none", stderr)
			case len(tt.why) > 0 && (len(lines) != 1 || !strings.HasPrefix(lines[0], Name+": ")):
				t.Errorf("stderr %q, want one line naming %s", stderr, Name)
			}
			for _, w := range tt.why {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr %q says %q", stderr, w)
				}
			}
			assertLauncher(t, in)
		})
	}
}

// TestPostinstallKeepsLauncherOn: the cases a real run cannot reach on this
// machine, through the script's options: Windows, a binary that does not
// answer, a command file that cannot be replaced (no temporary file is left).
func TestPostinstallKeepsLauncherOn(t *testing.T) {
	in := layOut(t, "right")
	if got := optimize(t, in, `{"platform": "win32"}`); got != "launcher: on win32, not Linux or macOS" {
		t.Errorf("win32: %q", got)
	}
	assertLauncher(t, in)

	in = layOut(t, "hangs")
	if got := optimize(t, in, `{"timeoutMs": 300}`); !strings.Contains(got, "--version did not end within 300 ms") {
		t.Errorf("a binary that hangs: %q", got)
	}
	assertLauncher(t, in)

	in = layOut(t, "right")
	if err := os.Remove(in.command); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(in.command, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := optimize(t, in, `{}`); !strings.HasPrefix(got, "error: ") {
		t.Errorf("a command file that cannot be replaced: %q, want an error", got)
	}
	assertNoTemporary(t, in)
}

// optimize calls the script's optimize with opts (JSON; "link": "refuse"
// makes the hard link fail as across file systems) under npm's user agent
// and returns its result, or "error: " and the message it threw.
func optimize(t *testing.T, in installed, opts string) string {
	t.Helper()
	const script = `const { optimize } = require(process.argv[1]);
const opts = JSON.parse(process.argv[2]);
if (opts.link === "refuse") {
  opts.link = () => { throw Object.assign(new Error("EXDEV: cross-device link not permitted"), { code: "EXDEV" }); };
}
try { console.log(optimize(opts)); } catch (err) { console.log("error: " + err.message); }`
	r := node(t, in.main, []string{npmAgent}, "-e", script, filepath.Join(in.main, filepath.FromSlash(postinstallPath)), opts)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("optimize(%s): %s", opts, r)
	}
	return strings.TrimSpace(r.stdout)
}

// assertBinary checks that the command file is the platform package's
// binary (hard-linked to it, or a copy), and nothing else is left.
func assertBinary(t *testing.T, in installed, linked bool) {
	t.Helper()
	got, err := os.ReadFile(in.command)
	want, _ := os.ReadFile(in.binary)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s = %q (%v), want the binary %q", in.command, got, err, want)
	}
	a, errA := os.Stat(in.command)
	b, errB := os.Stat(in.binary)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if os.SameFile(a, b) != linked {
		t.Errorf("hard link: %v, want %v", os.SameFile(a, b), linked)
	}
	assertNoTemporary(t, in)
	for _, b := range Bins {
		if data, err := os.ReadFile(filepath.Join(in.root, "node_modules", ".bin", b)); err != nil || !bytes.Equal(data, want) {
			t.Errorf(".bin/%s is not the binary: %v", b, err)
		}
	}
}

// assertLauncher checks that the command file is still the launcher, and
// that it runs the binary when there is one.
func assertLauncher(t *testing.T, in installed) {
	t.Helper()
	if got, err := os.ReadFile(in.command); err != nil || !bytes.Equal(got, launcher) {
		t.Fatalf("%s is no longer the launcher: %v", in.command, err)
	}
	assertNoTemporary(t, in)
	data, err := os.ReadFile(in.binary)
	if err == nil && bytes.Contains(data, []byte("sleep")) {
		return // a binary that does not answer
	}
	want := result{code: 1} // the launcher's answer when there is no binary
	if err == nil {
		want = runIn(t, in.root, withoutNpm(), "", in.binary, "--version")
	}
	r := node(t, in.root, nil, filepath.Join(in.root, "node_modules", ".bin", "agent-gauntlet"), "--version")
	if r.stdout != want.stdout || r.code != want.code {
		t.Errorf("the launcher's --version: %s; want the binary's exit %d, %q", r, want.code, want.stdout)
	}
}

// assertNoTemporary checks that the command's directory holds nothing but
// the command.
func assertNoTemporary(t *testing.T, in installed) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(in.command))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(in.command) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only %s", filepath.Dir(in.command), names, filepath.Base(in.command))
	}
}
