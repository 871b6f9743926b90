package gitcmd

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunFast is one short git call (rev-parse HEAD), as the steady
// stop makes them: what the watch of a running git (watch) adds to a call
// that ends before watchAfter is one timer and one goroutine.
func BenchmarkRunFast(b *testing.B) {
	if _, err := exec.LookPath(Program); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command(Program, append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := Run(ctx, Call{Dir: dir, Args: []string{"rev-parse", "HEAD"}}); err != nil {
			b.Fatal(err)
		}
	}
}
