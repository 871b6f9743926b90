package gitcmd

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// A kernel that names the FIFO wait otherwise in wchan, or shows none,
// still has the wait found: from the open call the task is in.
func TestFIFOWaitFoundWithoutWchan(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	saved := fifoWaits
	fifoWaits = nil
	t.Cleanup(func() { fifoWaits = saved })
	for _, c := range fifoCases[:2] {
		top, home := fifoRepo(t)
		p := plant(t, c, top, home)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		ctx, _ = WithWaits(ctx)
		cmd := exec.CommandContext(ctx, Program, append([]string{"-C", top}, c.args...)...)
		procgroup.Set(cmd)
		var we *WaitError
		if err := Exec(ctx, cmd); !errors.As(err, &we) || we.Path != p {
			t.Errorf("with no wchan name known, a FIFO at %s: %v, want a wait naming it", p, err)
		}
		if ctx.Err() != nil {
			t.Errorf("with no wchan name known, the FIFO at %s was found only at the deadline", p)
		}
		cancel()
	}
}
