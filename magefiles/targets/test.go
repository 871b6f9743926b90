package targets

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// scriptTest is the test function that runs the testscript suite.
const scriptTest = "TestScript"

// Test runs every module's unit tests (with -race) and the testscript suite.
// The unit tests run first, then the testscript suite that drives the real
// binary.
func Test(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	race := raceFlags(ctx, root)
	var failed []string
	for _, m := range mods {
		args := append([]string{"test", "-count=1"}, race...)
		args = append(args, "-skip", "^"+scriptTest+"$", "./...")
		if err := run(ctx, filepath.Join(root, m), nil, "go", args...); err != nil {
			failed = append(failed, m)
		}
	}
	args := append([]string{"test", "-count=1"}, race...)
	args = append(args, "-run", "^"+scriptTest+"$", ".")
	if err := run(ctx, filepath.Join(root, cliModule), nil, "go", args...); err != nil {
		failed = append(failed, "testscript suite")
	}
	if len(failed) > 0 {
		return fmt.Errorf("tests failed in: %s", strings.Join(failed, ", "))
	}
	return nil
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
