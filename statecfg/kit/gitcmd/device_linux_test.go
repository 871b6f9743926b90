package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endlessDevices are character devices a read of never ends on.
var endlessDevices = []string{"/dev/zero", "/dev/urandom"}

// deviceCases are git files a symbolic link to a device can be put at,
// with a command that reads each (fifoCases' shape).
var deviceCases = []fifoCase{
	{name: "loose ref", put: inGit("refs/heads/main"), args: []string{"rev-parse", "HEAD"}},
	{name: "core.attributesFile", prep: [][]string{{"config", "core.attributesFile", "attr.dev"}},
		put:  func(top, _ string) string { return filepath.Join(top, "attr.dev") },
		args: []string{"check-attr", "-a", "--", "a.txt"}},
	{name: "info/exclude", put: inGit("info/exclude"), args: []string{"status", "--porcelain"}},
	{name: "packed-refs", put: inGit("packed-refs"), args: []string{"rev-parse", "--verify", "-q", "refs/tags/none"}},
	{name: "HEAD", put: inGit("HEAD"), args: []string{"rev-parse", "HEAD"}},
}

// Invariant: no git call reads for longer than the watch's first look
// (watchAfter) from a file that is not a regular file where git expects
// one: a git process holding open a character or block device other than
// /dev/null and the terminal (or a named FIFO) is killed with its group
// and the call ends with a *WaitError naming the file (the link in the
// repository, or the device when no link is found), recorded in the
// context's Waits; a git that refuses the file at once ends with its own
// error. The table is every endless device linked at each git file of
// deviceCases, all well before the call's deadline.
func TestRunEndsOnADeviceAtAnyGitFile(t *testing.T) {
	old := defaultTimeout
	defaultTimeout = 60 * time.Second
	t.Cleanup(func() { defaultTimeout = old })
	for _, dev := range endlessDevices {
		if _, err := os.Stat(dev); err != nil {
			t.Skipf("no %s: %v", dev, err)
		}
		for _, c := range deviceCases {
			t.Run(dev+"/"+c.name, func(t *testing.T) {
				top, home := fifoRepo(t)
				for _, args := range c.prep {
					gitT(t, top, args...)
				}
				p := c.put(top, home)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
				if err := os.Symlink(dev, p); err != nil {
					t.Fatal(err)
				}
				ctx, waits := WithWaits(context.Background())
				_, err := Run(ctx, Call{Dir: top, Args: c.args})
				var we *WaitError
				if !errors.As(err, &we) {
					if err != nil && strings.Contains(err.Error(), "deadline") {
						t.Fatalf("git %v with %s at %s ran to its deadline: %v", c.args, dev, p, err)
					}
					return // git refused the file itself, at once
				}
				if we.Path != p {
					t.Fatalf("the stop names %q, want the link %s", we.Path, p)
				}
				if !strings.Contains(err.Error(), p) || !strings.Contains(we.Named(), dev) ||
					!strings.Contains(we.Named(), "character device") {
					t.Errorf("message %q (named %q) does not name the link and its device", err, we.Named())
				}
				if f := waits.Found(); len(f) != 1 || f[0] != we {
					t.Errorf("Waits recorded %v, want the one", f)
				}
			})
		}
	}
}

// A program git starts (a filter, a hook) may hold a device open as long
// as it runs: only git's own processes are stopped for one.
func TestRunLetsAFilterHoldADevice(t *testing.T) {
	top, _ := fifoRepo(t)
	if err := os.WriteFile(filepath.Join(top, ".gitattributes"), []byte("a.txt filter=slow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clean := "filter.slow.clean=sh -c 'exec 3</dev/zero; sleep 1; cat'"
	ctx, _ := WithWaits(context.Background())
	res, err := Run(ctx, Call{Dir: top, Args: []string{"-c", clean, "hash-object", "--path=a.txt", "a.txt"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("git hash-object through a filter holding /dev/zero: %v (exit %d, %s)", err, res.ExitCode, res.Stderr)
	}
}

// A FIFO at a loose ref whose writer holds it open and writes nothing:
// git's open returns and its read waits without end (no wait in open for
// the watch to see), so it is the FIFO held open that stops git.
func TestRunEndsOnAFIFOHeldOpenByAWriter(t *testing.T) {
	old := defaultTimeout
	defaultTimeout = 60 * time.Second
	t.Cleanup(func() { defaultTimeout = old })
	top, home := fifoRepo(t)
	p := plant(t, fifoCase{put: inGit("refs/heads/main")}, top, home)
	writer := exec.Command("sh", "-c", `exec 3>"$1"; sleep 60`, "sh", p)
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = writer.Process.Kill(); _ = writer.Wait() })
	ctx, _ := WithWaits(context.Background())
	_, err := Run(ctx, Call{Dir: top, Args: []string{"rev-parse", "HEAD"}})
	var we *WaitError
	if !errors.As(err, &we) || we.Path != p || !strings.Contains(we.Named(), "FIFO") {
		t.Fatalf("git reading a FIFO held open: %v, want a *WaitError naming %s", err, p)
	}
}
