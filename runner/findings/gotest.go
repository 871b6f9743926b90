package findings

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// goEvent is one line of `go test -json` (cmd/test2json).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// goPackage gathers one package's test results.
type goPackage struct {
	name  string
	tests []*goTest
	// byKey maps a test's name to its latest run: a package's internal
	// and external test files may hold tests of the same name, which run
	// one after the other, each reported on its own.
	byKey map[string]*goTest
	// output is the package's own output (not a test's).
	output []string
	failed bool
	// done: the test binary printed its closing PASS or FAIL line.
	done bool
	// stop says why its tests did not all run ("" when they did), and
	// stopKind how.
	stop     string
	stopKind StopKind
	// timedOut: its binary printed "panic: test timed out"; running:
	// the lines that follow name the tests it was running.
	timedOut, running bool
	timeout           string
}

// goTest is one test of a package.
type goTest struct {
	name   string
	status Status // "" while running
	output []string
}

// goRun gathers the packages of one `go test` run, in order.
type goRun struct {
	pkgs  []*goPackage
	byKey map[string]*goPackage
}

func newGoRun() *goRun { return &goRun{byKey: map[string]*goPackage{}} }

func (g *goRun) pkg(name string) *goPackage {
	if p, ok := g.byKey[name]; ok {
		return p
	}
	p := &goPackage{name: name, byKey: map[string]*goTest{}}
	g.pkgs = append(g.pkgs, p)
	g.byKey[name] = p
	return p
}

// test is the latest run of the test name, a new one when there is none.
func (p *goPackage) test(name string) *goTest {
	if t, ok := p.byKey[name]; ok {
		return t
	}
	return p.start(name)
}

// start is the run of the test name that starts now: its latest run if
// that has not ended yet, else a new one.
func (p *goPackage) start(name string) *goTest {
	if t, ok := p.byKey[name]; ok && t.status == "" {
		return t
	}
	t := &goTest{name: name}
	p.tests = append(p.tests, t)
	p.byKey[name] = t
	return t
}

// Lines of a test binary's own output (cmd/go and package testing).
var (
	goTestLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*)--- (FAIL|PASS|SKIP): (\S+)(?: \(.*\))?$`)
	})
	goPkgLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(FAIL|ok|\?)\s+(\S+)(?:\s+(.*))?$`)
	})
	goLocationRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*((?:/|[\w.-]+/)?[^\s:]*\.go):(\d+)`)
	})
)

// goStatus maps an action or --- word to a status.
var goStatus = map[string]Status{"pass": StatusPassed, "fail": StatusFailed, "skip": StatusSkipped,
	"PASS": StatusPassed, "FAIL": StatusFailed, "SKIP": StatusSkipped}

// parseGoTestJSON reads `go test -json` output: events, and the lines
// that are not events (compiler errors on stderr) as go vet diagnostics.
func parseGoTestJSON(lines []string, n *Normalizer, dir string, r *Result) {
	g := newGoRun()
	var stray []string
	for _, l := range lines {
		var e goEvent
		if !strings.HasPrefix(l, "{") || json.Unmarshal([]byte(l), &e) != nil || e.Action == "" {
			stray = append(stray, l)
			continue
		}
		p := g.pkg(e.Package)
		out := strings.TrimSuffix(e.Output, "\n")
		switch {
		case e.Action == "output" && e.Test != "":
			t := p.test(e.Test)
			t.output = append(t.output, out)
			p.noteBinaryLine(out)
		case e.Action == "output" || e.Action == "build-output":
			p.output = append(p.output, out)
			p.noteBinaryLine(out)
		case e.Action == "run" && e.Test != "":
			p.start(e.Test)
		case goStatus[e.Action] != "" && e.Test != "":
			p.test(e.Test).status = goStatus[e.Action]
		case e.Action == "fail" || e.Action == "build-fail":
			p.failed = true
		}
	}
	parseDiagnostics("govet", stray, n, dir, r)
	g.report(n, dir, r)
}

// goRunningRE matches a test a timed-out binary names as running
// ("\t\tTestSlow (2s)").
var goRunningRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\S+) \([^)]*\)$`) })

// noteBinaryLine notes what a line of output says about the test binary:
// its closing PASS or FAIL, a panic, a timeout and the tests it was
// running then, a build failure.
func (p *goPackage) noteBinaryLine(l string) {
	if p.running {
		if m := goRunningRE().FindStringSubmatch(l); m != nil {
			t := p.test(m[1])
			t.status = StatusFailed
			t.output = append(t.output, p.timeout)
			return
		}
		if strings.TrimSpace(l) != "running tests:" {
			p.running = false
		}
	}
	switch {
	case l == "PASS" || l == "FAIL":
		p.done = true
	case strings.HasPrefix(l, "panic: test timed out"):
		p.setStop("its test binary timed out", StopCrash)
		p.timedOut, p.running, p.timeout = true, true, strings.TrimSpace(l)
	case strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: "):
		p.setStop("a panic ended its test binary", StopCrash)
	case strings.HasSuffix(l, "[build failed]") || strings.HasSuffix(l, "[setup failed]"):
		p.setStop("it did not build", StopUnbuilt)
	}
}

func (p *goPackage) setStop(why string, kind StopKind) {
	if p.stop == "" {
		p.stop, p.stopKind = why, kind
	}
}

// report adds the packages' tests to r, and their stops.
func (g *goRun) report(n *Normalizer, dir string, r *Result) {
	for _, p := range g.pkgs {
		if p.name == "" {
			continue
		}
		anyFailed := false
		for _, t := range p.tests {
			st := t.status
			if st == "" {
				// Never finished: it was running when the binary ended.
				st = StatusFailed
				p.setStop("its test binary ended while tests ran", StopCrash)
			}
			f := Finding{Kind: KindTest, Suite: p.name, Test: t.name, Status: st, Severity: SeverityNote}
			if st == StatusFailed {
				anyFailed = true
				f.Severity = SeverityError
				f.Message = n.relative(testMessage(t.output))
				f.File, f.Line = goLocation(t.output, n, dir)
			}
			r.add(f)
		}
		if p.failed && !p.done {
			// No closing FAIL: the binary did not end by itself (os.Exit,
			// log.Fatal, a signal), whatever tests it ran or not.
			p.setStop("its test binary exited before its end (os.Exit, log.Fatal, a crash): its later tests never ran", StopCrash)
		}
		if p.failed && !anyFailed {
			// The package failed with no failing test: it did not
			// build, or TestMain or an init failed.
			r.add(Finding{Kind: KindTest, Suite: p.name, Status: StatusFailed, Severity: SeverityError,
				Message: n.relative(testMessage(p.output))})
		}
		if p.stop != "" {
			r.Stops = append(r.Stops, Stop{Unit: p.name, Reason: p.stop, Tool: FormatGoTest, Kind: p.stopKind})
		}
	}
}

// testMessage is a failed test's output without the lines the testing
// package adds around it (=== RUN, --- FAIL, the package's summary).
func testMessage(out []string) string {
	var keep []string
	for _, l := range out {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "=== ") || goTestLineRE().MatchString(l) || t == "FAIL" || t == "PASS" ||
			goPkgLineRE().MatchString(l) || strings.HasPrefix(t, "exit status ") {
			continue
		}
		keep = append(keep, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(dedent(keep), "\n"))
}

// dedent removes the indentation every non-blank line shares.
func dedent(lines []string) []string {
	pfx := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if pfx < 0 || n < pfx {
			pfx = n
		}
	}
	if pfx <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= pfx {
			out[i] = l[pfx:]
		}
	}
	return out
}

// goLocation is where a failed test's output first points into a Go file
// of the project: a t.Error line ("calc_test.go:18: ...") or a panic's
// stack frame below a root.
func goLocation(out []string, n *Normalizer, dir string) (string, int) {
	for _, l := range out {
		m := goLocationRE().FindStringSubmatch(l)
		if m == nil || strings.Contains(m[1], "/go/src/") || strings.HasPrefix(strings.TrimSpace(l), "/usr/") {
			continue
		}
		line := atoi(m[2])
		if strings.HasPrefix(m[1], "/") {
			p := n.Path(dir, m[1])
			if strings.HasPrefix(p, "/") {
				continue // outside the project: the runtime, a dependency
			}
			return p, line
		}
		return m[1], line
	}
	return "", 0
}

// parseGoTest reads the text `go test` prints: per package, the output of
// its failing tests (--- FAIL: Name) and its closing line (FAIL pkg,
// ok pkg); compiler errors as go vet diagnostics.
func parseGoTest(lines []string, n *Normalizer, dir string, r *Result) {
	g := newGoRun()
	start := 0 // of the block of lines before the next package line
	for i, l := range lines {
		m := goPkgLineRE().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		block := lines[start:i:i]
		start = i + 1
		p := g.pkg(m[2])
		p.failed = m[1] == "FAIL"
		p.readBlock(block)
		if strings.Contains(m[3], "[build failed]") || strings.Contains(m[3], "[setup failed]") {
			if slices.Contains(block, "# ["+m[2]+"]") {
				// It built; go test's vet step failed before its tests.
				p.setStop("go test's vet step failed, so its tests never ran", StopVet)
			}
			p.setStop("it did not build", StopUnbuilt)
			parseDiagnostics("govet", block, n, dir, r)
		}
	}
	g.report(n, dir, r)
}

// readBlock reads the output of one package's test binary (plain or -v).
func (p *goPackage) readBlock(block []string) {
	var cur *goTest
	for _, l := range block {
		if m := goTestLineRE().FindStringSubmatch(l); m != nil {
			cur = p.start(m[3])
			cur.status = goStatus[m[2]]
			continue
		}
		if strings.HasPrefix(l, "=== RUN") {
			cur = p.start(strings.TrimSpace(strings.TrimPrefix(l, "=== RUN")))
			continue
		}
		if strings.HasPrefix(l, "=== ") {
			continue
		}
		p.noteBinaryLine(l)
		if cur != nil {
			cur.output = append(cur.output, l)
		} else {
			p.output = append(p.output, l)
		}
	}
}

// atoi parses a decimal number of a regexp match (0 when too big).
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if n > 1<<30 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// goFailFast adds a stop for every package with a failed test when go
// test ran with -failfast: it ran none of the package's tests after its
// first failure, and its output does not say so.
func goFailFast(args []string, r *Result) {
	if !hasAnyWord(args, "-failfast", "--failfast", "-failfast=true", "-test.failfast", "-test.failfast=true") {
		return
	}
	stopped := map[string]bool{}
	for _, s := range r.Stops {
		stopped[s.Unit] = true
	}
	for _, f := range r.Findings {
		if f.Kind == KindTest && f.Status == StatusFailed && f.Suite != "" && !stopped[f.Suite] {
			stopped[f.Suite] = true
			r.Stops = append(r.Stops, Stop{Unit: f.Suite, Reason: "go test -failfast ran none of its tests after the first failure",
				Tool: FormatGoTest, Kind: StopFailFast})
		}
	}
}
