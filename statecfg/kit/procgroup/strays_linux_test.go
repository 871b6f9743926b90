package procgroup

import (
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"pgregory.net/rapid"
)

// TestHasChildrenAgreesWithProc holds KillStrays's shortcut to the /proc
// listing it skips: after every step of a random sequence (a child that
// runs, one that exits and stays a zombie, a zombie reaped, a running
// child killed and reaped, a child whose own child is orphaned onto this
// subreaper), hasChildren is true exactly when children lists a pid, and
// children, read from the threads' children files, lists the pids whose
// stat names this process as their parent.
func TestHasChildrenAgreesWithProc(t *testing.T) {
	if err := AdoptStrays(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	// The other tests expect what they leave to go to init.
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	rapid.Check(t, func(t *rapid.T) {
		var running, zombies []*os.Process
		defer func() {
			for _, p := range append(running, zombies...) {
				_ = p.Kill()
				_, _ = p.Wait()
			}
			KillStrays("", 0)
		}()
		start := func(script string) *os.Process {
			p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", script}, &os.ProcAttr{})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		exitOf := func(p *os.Process) {
			// Wait until p has exited, without reaping it.
			var info unix.Siginfo
			if err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
				t.Fatal(err)
			}
		}
		check := func(step string) {
			listed := children()
			want := len(listed) > 0
			if got := hasChildren(); got != want {
				t.Fatalf("after %s: hasChildren %v, /proc lists children: %v (%v)", step, got, want, listed)
			}
			byStat := childrenByStat()
			slices.Sort(listed)
			slices.Sort(byStat)
			if !slices.Equal(listed, byStat) {
				t.Fatalf("after %s: the threads' children files list %v, the processes' stat %v", step, listed, byStat)
			}
		}
		check("start")
		steps := rapid.SliceOfN(rapid.SampledFrom([]string{"run", "zombie", "reap", "kill", "orphan"}), 1, 8).Draw(t, "steps")
		for _, st := range steps {
			switch st {
			case "run":
				running = append(running, start("exec sleep 30"))
			case "zombie":
				p := start("exit 0")
				exitOf(p)
				zombies = append(zombies, p)
			case "reap":
				if len(zombies) > 0 {
					_, _ = zombies[0].Wait()
					zombies = zombies[1:]
				}
			case "kill":
				if len(running) > 0 {
					_ = running[0].Kill()
					_, _ = running[0].Wait()
					running = running[1:]
				}
			case "orphan":
				// The shell exits at once; its sleep is reparented here.
				p := start("sleep 30 & exit 0")
				_, _ = p.Wait()
				time.Sleep(20 * time.Millisecond)
			}
			check(st)
		}
		KillStrays("", 0)
		for _, p := range append(running, zombies...) {
			_, _ = p.Wait()
		}
		running, zombies = nil, nil
		check("KillStrays")
	})
}
