//go:build unix

package npmpkg

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchVersion is the version of the packages the benchmark installs.
const benchVersion = "0.0.0-bench"

// BenchmarkStopHookFromNpm measures the stop hook's fast path
// (stop_hook_active: no gate runs) as a project that installed
// agent-gauntlet from npm runs it, through node_modules/.bin/agent-gauntlet:
// installed normally, the command is the binary (the install script put
// it there); installed with --ignore-scripts, it is the Node launcher. Both
// installs come from packages written and packed here (Write, Pack) around
// a binary built as GoReleaser builds it, and run alternately, next to each
// other, under the same load. med-ns is the median of the binary's runs,
// base-med-ns that of the launcher's; ns/op the mean of the binary's.
func BenchmarkStopHookFromNpm(b *testing.B) {
	for _, tool := range []string{"npm", "node", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not on PATH", tool)
		}
	}
	native, launched, project, env := benchInstalls(b)
	input := `{"session_id":"bench","hook_event_name":"Stop","stop_hook_active":true,"cwd":` + quote(project) + "}\n"
	hook := func(command string) time.Duration {
		cmd := exec.Command(command, "stop-hook", "--agent", "claude")
		cmd.Dir, cmd.Env, cmd.Stdin = project, env, strings.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		begin := time.Now()
		err := cmd.Run()
		took := time.Since(begin)
		if err != nil || !strings.Contains(out.String(), `"status":"stop_hook_active"`) {
			b.Fatalf("%s stop-hook: %v: %s", command, err, out.String())
		}
		return took
	}
	hook(native)
	hook(launched)
	var nativeTimes, launcherTimes []time.Duration
	runLauncher := func() {
		b.StopTimer()
		launcherTimes = append(launcherTimes, hook(launched))
		b.StartTimer()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			runLauncher()
		}
		nativeTimes = append(nativeTimes, hook(native))
		if i%2 == 1 {
			runLauncher()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(nativeTimes)), "med-ns")
	b.ReportMetric(float64(median(launcherTimes)), "base-med-ns")
}

// benchInstalls builds the binary, writes and packs the packages, installs
// them into two projects, one with --ignore-scripts, and returns their
// commands (the binary, the launcher), a gauntlet project to run the hook
// in and the environment to run it with.
func benchInstalls(b *testing.B) (native, launched, project string, env []string) {
	b.Helper()
	work := b.TempDir()
	host := Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if host.OS() == "" || host.CPU() == "" {
		b.Skipf("no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bin := filepath.Join(work, host.Exe())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin,
		"-ldflags", "-s -w -X github.com/agent-gauntlet/agent-gauntlet/cli.Version=v"+benchVersion,
		"github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build agent-gauntlet: %v\n%s", err, out)
	}
	env = hermeticEnv(filepath.Join(work, "home"), filepath.Join(work, "npm-cache"))
	if err := os.MkdirAll(filepath.Join(work, "home"), 0o755); err != nil {
		b.Fatal(err)
	}
	dirs, err := Write(filepath.Join(work, "packages"), benchVersion, []Binary{{host, bin}})
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("npm_config_cache", filepath.Join(work, "npm-cache"))
	tarballs, err := Pack(ctx, dirs, filepath.Join(work, "tarballs"), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	command := func(name string, flags ...string) string {
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		npm(b, dir, env, slices.Concat([]string{"install", "--offline", "--no-audit", "--no-fund"}, flags, tarballs)...)
		return filepath.Join(dir, "node_modules", ".bin", "agent-gauntlet")
	}
	native, launched = command("with-scripts"), command("ignore-scripts", "--ignore-scripts")
	for cmd, wantLauncher := range map[string]bool{native: false, launched: true} {
		data, err := os.ReadFile(cmd)
		if err != nil || bytes.Equal(data, launcher) != wantLauncher {
			b.Fatalf("%s: the launcher: %v, want %v (%v)", cmd, bytes.Equal(data, launcher), wantLauncher, err)
		}
	}
	return native, launched, gauntletProject(b, work, "project", "true", env), env
}

// median of ds (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
