package doctor

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		dir, folder string
		want        bool
	}{
		{"/home/dev/p", "/home/dev/p", true},
		{"/home/dev/p", "/home/dev/p/", true},
		{"/home/dev/p", "/home/dev", true},
		{"/home/dev/p", "/", true},
		{"/home/dev/p", "/home/dev/p/sub", false},
		{"/home/dev/p", "/home/dev/pp", false},
		{"/home/dev/pp", "/home/dev/p", false},
		{"/home/dev/p", "", false},
	} {
		if got := within(tc.dir, tc.folder); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.dir, tc.folder, got, tc.want)
		}
	}
}

// TestTimeoutProblem: for any longest run and any installed timeout, every
// client gets a timeout problem exactly when the hook's deadline is below
// the run, and the timeout its fix asks for is one whose deadline the run
// fits in.
func TestTimeoutProblem(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SampledFrom(hookproto.Dialects).Draw(t, "client")
		longest := time.Duration(rapid.Int64Range(1, int64(7*24*time.Hour/time.Second)).Draw(t, "longest")) * time.Second
		seconds := rapid.IntRange(1, 100000).Draw(t, "installed")
		installed := time.Duration(seconds) * time.Second
		e := env{root: "/p", longest: longest}
		st := install.Status{Installed: true, Path: "/p/x.json", Command: "agent-gauntlet stop-hook --timeout " +
			strconv.Itoa(seconds), Timeout: installed}
		var short bool
		for _, p := range e.timeout(d, st, hookcmd.StopArgs{Timeout: installed}) {
			short = short || p.Kind == KindTimeoutShort
		}
		if want := longest > stophook.DeadlineFor(installed); short != want {
			t.Fatalf("%s: installed %s, longest %s: problem %v, want %v", d.Agent, installed, longest, short, want)
		}
		need := time.Duration(neededTimeout(longest)) * time.Second
		if stophook.DeadlineFor(need) < longest {
			t.Fatalf("longest %s: the fix's %s gives a deadline of %s", longest, need, stophook.DeadlineFor(need))
		}
	})
}
