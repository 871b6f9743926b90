package targets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// scriptTests are the test functions of the cli module that run testscript
// suites: the behaviour scenarios, and the same scenarios that probe the
// machine's tools run again with hostile tools first on PATH.
var scriptTests = []string{"TestScript", "TestScriptHostileHost"}

// scriptParallel is how many scripts run at a time. A script spends most of
// its time waiting for the processes it starts (git, the binary, stand-ins,
// checks that sleep), not on a CPU: on 2 shared cores the suite took 6.4
// minutes at go test's default of 2 and 3.1 at 8, for the same 80 s of CPU
// time (docs/development.md).
const scriptParallel = 8

// testTimeout bounds each go test binary. go test's default of 10 minutes
// ended the cli package, whose generated tables drive the real binary
// through hundreds of git repositories, on a loaded 2-core machine; CI's
// own budget (.ci/run) is the bound that matters.
const testTimeout = "40m"

// Heartbeat timing: how often progress looks, and how long a silence it
// breaks by naming what still runs.
const (
	heartbeatEvery = 10 * time.Second
	heartbeatQuiet = 30 * time.Second
)

// Test runs every module's unit tests (with -race) and the testscript
// suites, printing a line per package and per script as they finish. The
// modules' unit tests and the testscript suites, which drive the real
// binary, all run at once.
func Test(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	race := raceFlags(ctx, root)
	p := newProgress(Out, time.Now, scriptTests...)
	stop := p.beat(heartbeatEvery, heartbeatQuiet)
	defer stop()

	start := time.Now()
	var units, scripts phase
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		units = unitTests(ctx, p, root, mods, race)
	}()
	go func() {
		defer wg.Done()
		scripts = scriptSuites(ctx, p, root, race)
	}()
	wg.Wait()
	stop()

	fmt.Fprintln(Out, p.summary())
	fmt.Fprintf(Out, "unit tests: %s; testscript suites: %s; all: %s wall\n", units, scripts, time.Since(start).Round(time.Second))
	if err := errors.Join(units.err, scripts.err); err != nil {
		return fmt.Errorf("tests failed: %w", err)
	}
	return nil
}

// phase is what one phase of Test took, and how it ended.
type phase struct {
	wall, cpu time.Duration
	err       error
}

func (ph phase) String() string {
	return fmt.Sprintf("%s wall, %s CPU", ph.wall.Round(time.Second), ph.cpu.Round(time.Second))
}

// unitTests runs the unit tests of every module, the testscript suites
// excepted, one go test per module, all at once: the longest package (the
// model-based lifecycle test) mostly waits for the processes it starts.
func unitTests(ctx context.Context, p *progress, root string, mods []string, race []string) phase {
	start := time.Now()
	results := make([]phase, len(mods))
	var wg sync.WaitGroup
	for i, m := range mods {
		args := append([]string{"test", "-json", "-count=1", "-timeout", testTimeout}, race...)
		args = append(args, "-skip", "^("+strings.Join(scriptTests, "|")+")$", "./...")
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = goTest(ctx, p, filepath.Join(root, m), "", args)
		}()
	}
	wg.Wait()
	ph := phase{wall: time.Since(start)}
	for _, r := range results {
		ph.cpu += r.cpu
		ph.err = errors.Join(ph.err, r.err)
	}
	return ph
}

// scriptSuites runs the testscript suites of the cli module.
func scriptSuites(ctx context.Context, p *progress, root string, race []string) phase {
	args := append([]string{"test", "-json", "-count=1", "-timeout", testTimeout}, race...)
	args = append(args, "-parallel", fmt.Sprint(scriptParallel), "-run", "^("+strings.Join(scriptTests, "|")+")$", ".")
	return goTest(ctx, p, filepath.Join(root, cliModule), " (testscript)", args)
}

// goTest runs go with args (a `go test -json`) in dir, its events read by
// p (label tells its packages apart from another run's), and returns what
// it took: the wall time, and the CPU time of the go command and every
// process it waited for.
func goTest(ctx context.Context, p *progress, dir, label string, args []string) phase {
	p.print("+ (cd " + dir + " && go " + strings.Join(args, " ") + ")")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	// A test that starts its own race-built binary outside the hermetic
	// environment (which sets the same) inherits it.
	cmd.Env = append(os.Environ(), "GORACE="+testenv.RaceOptions(os.Getenv("GORACE")))
	cmd.Stderr = Err
	out, err := cmd.StdoutPipe()
	if err != nil {
		return phase{err: err}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return phase{err: fmt.Errorf("go test in %s: %w", dir, err)}
	}
	p.consume(out, label)
	err = cmd.Wait()
	ph := phase{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		ph.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		ph.err = fmt.Errorf("go test in %s: %w", dir, err)
	}
	return ph
}

// raceFlags returns -race when cgo can build it (the race detector needs a C
// toolchain); otherwise it says so and returns nothing.
func raceFlags(ctx context.Context, root string) []string {
	cgo, err := output(ctx, root, "go", "env", "CGO_ENABLED")
	if err == nil && cgo == "1" {
		cc, _ := output(ctx, root, "go", "env", "CC")
		if cc == "" {
			cc = "gcc"
		}
		if _, err := exec.LookPath(strings.Fields(cc)[0]); err == nil {
			return []string{"-race"}
		}
	}
	fmt.Fprintln(Err, "warning: no C toolchain for cgo: running tests without -race")
	return nil
}
