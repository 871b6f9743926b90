package targets

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// modulePrefix is left out of the package paths progress lines name.
const modulePrefix = "github.com/agent-gauntlet/agent-gauntlet/"

// testEvent is one event of `go test -json` (cmd/test2json), with the
// build events of Go 1.24 and later (ImportPath, build-output, FailedBuild).
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// progress turns the `go test -json` streams of one or more go test
// processes into short lines as they go: one per package that finishes
// (ok, FAIL, or no test files), one per script of the testscript suites
// (the subtests of the test functions named in scripts), the whole output
// of every test and package that fails, and when nothing was printed for a
// while, a line naming what is still running. It counts what passed,
// failed and was skipped for the summary.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	scripts []string
	now     func() time.Time
	// last is when a line was last printed; running maps what runs (a
	// package, or a script) to when it started.
	last    time.Time
	running map[string]time.Time
	counts  map[string]int
	failed  []string
}

// newProgress returns a progress printing to w; scripts names the test
// functions whose subtests are scripts.
func newProgress(w io.Writer, now func() time.Time, scripts ...string) *progress {
	return &progress{w: w, scripts: scripts, now: now, last: now(), running: map[string]time.Time{}, counts: map[string]int{}}
}

// stream is the state of one go test process's event stream: the output
// of each test and package, kept until it ends.
type stream struct {
	p      *progress
	label  string
	output map[string][]string
}

// consume reads one go test process's stdout (label tells apart two
// processes testing the same package) until EOF. Lines that are not JSON
// events (go's own errors) are printed as they are.
func (p *progress) consume(r io.Reader, label string) {
	s := &stream{p: p, label: label, output: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var ev testEvent
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &ev) != nil {
			p.print(line)
			continue
		}
		s.event(ev)
	}
	if err := sc.Err(); err != nil {
		p.print(fmt.Sprintf("%s: reading go test's output: %v", label, err))
	}
}

// event handles one event of the stream.
func (s *stream) event(ev testEvent) {
	p := s.p
	pkg := strings.TrimPrefix(ev.Package, modulePrefix)
	key := pkg + " " + ev.Test
	switch ev.Action {
	case "build-output":
		k := strings.TrimPrefix(ev.ImportPath, modulePrefix) + " (build)"
		s.output[k] = append(s.output[k], ev.Output)
	case "output":
		if !noise(ev.Output) {
			s.output[key] = append(s.output[key], ev.Output)
		}
	case "start":
		p.start(pkg + s.label)
	case "run":
		if s.isScript(ev.Test) {
			p.start(ev.Test)
		}
	case "pass", "fail", "skip":
		if ev.Test == "" {
			s.packageEnd(ev, pkg)
			return
		}
		if ev.Action == "fail" {
			p.fail(key, s.output[key])
		}
		if s.isScript(ev.Test) {
			line := fmt.Sprintf("%-4s %s (%.1fs)", strings.ToUpper(ev.Action), ev.Test, ev.Elapsed)
			if ev.Action == "skip" {
				line += ": " + skipReason(s.output[key])
			}
			p.end(ev.Test, "script", ev.Action, line)
		}
		delete(s.output, key)
	}
}

// packageEnd prints the line of a package that finished, with its own
// output (and its build's) when it failed.
func (s *stream) packageEnd(ev testEvent, pkg string) {
	p := s.p
	out := s.output[pkg+" "]
	if ev.FailedBuild != "" {
		out = append(s.output[strings.TrimPrefix(ev.FailedBuild, modulePrefix)+" (build)"], out...)
	}
	if ev.Action == "fail" {
		p.fail(pkg, out)
	}
	name := pkg + s.label
	line := fmt.Sprintf("ok   %s (%.1fs)", name, ev.Elapsed)
	switch {
	case ev.Action == "fail":
		line = fmt.Sprintf("FAIL %s (%.1fs)", name, ev.Elapsed)
	case ev.Action == "skip":
		line = fmt.Sprintf("?    %s [no test files]", name)
	}
	p.end(name, "package", ev.Action, line)
	delete(s.output, pkg+" ")
}

// isScript reports whether test is a script: a direct subtest of one of
// the script test functions.
func (s *stream) isScript(test string) bool {
	parent, name, ok := strings.Cut(test, "/")
	return ok && !strings.Contains(name, "/") && slices.Contains(s.p.scripts, parent)
}

// skipReason is the last line a skipped test printed before go test's
// own SKIP line: the reason given to Skip.
func skipReason(output []string) string {
	for i := len(output) - 1; i >= 0; i-- {
		l := strings.TrimSpace(output[i])
		if l != "" && !strings.HasPrefix(l, "--- SKIP") {
			return l
		}
	}
	return "no reason given"
}

// noise reports whether an output line only says that a test started,
// paused or continued.
func noise(line string) bool {
	for _, prefix := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// start records that name started running.
func (p *progress) start(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[name] = p.now()
}

// end records that name ended (a package or a script, with the action
// pass, fail or skip) and prints its line.
func (p *progress) end(name, kind, action, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, name)
	p.counts[kind+" "+action]++
	p.printLocked(line)
}

// fail prints the output of a test or package that failed.
func (p *progress) fail(name string, output []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed = append(p.failed, name)
	p.printLocked(fmt.Sprintf("--- output of %s:", name))
	for _, l := range output {
		p.printLocked("    " + strings.TrimRight(l, "\n"))
	}
}

// print prints one line.
func (p *progress) print(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printLocked(line)
}

func (p *progress) printLocked(line string) {
	fmt.Fprintln(p.w, line)
	p.last = p.now()
}

// heartbeat prints, when nothing was printed for quiet, what is running
// and for how long (the longest first, at most five); it reports whether
// it printed.
func (p *progress) heartbeat(quiet time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.last) < quiet || len(p.running) == 0 {
		return false
	}
	names := make([]string, 0, len(p.running))
	for n := range p.running {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := p.running[names[i]], p.running[names[j]]; !a.Equal(b) {
			return a.Before(b)
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names[:min(5, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %s", n, now.Sub(p.running[n]).Round(time.Second)))
	}
	line := "...  still running: " + strings.Join(parts, ", ")
	if len(names) > 5 {
		line += fmt.Sprintf(" (and %d more)", len(names)-5)
	}
	p.printLocked(line)
	return true
}

// summary is one line counting the packages and scripts that passed,
// failed and were skipped.
func (p *progress) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	return fmt.Sprintf("packages: %d ok, %d failed, %d without tests; scripts: %d passed, %d failed, %d skipped",
		c["package pass"], c["package fail"], c["package skip"], c["script pass"], c["script fail"], c["script skip"])
}

// beat calls heartbeat(quiet) every interval until the returned function
// is called (any number of times).
func (p *progress) beat(every, quiet time.Duration) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.heartbeat(quiet)
			}
		}
	}()
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
