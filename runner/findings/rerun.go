package findings

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Rerun is how to run a stopped check again so that the tests its
// failures kept from running do run: the same command without the known
// failures (go test -skip, pytest --deselect) or told to go on past them
// (cargo test --no-fail-fast, make -k, mvn -fae, gradle --continue).
type Rerun struct {
	// Command is the command to run, on the base and on the work tree.
	Command string
	// Suites limits what the rerun runs to these suites (the Go packages
	// that stopped); nil: all of it.
	Suites []string
	// Skipped are the tests it leaves out: their results of the first
	// run stand.
	Skipped []testKey
	// Append: the rerun runs what the first run never reached (the later
	// parts of a chain); every finding of the first run stands, the
	// rerun's are added.
	Append bool
}

// rerunTools are the formats whose stops a rerun of each tool can run
// past (Stop.Tool).
var rerunTools = map[string][]string{
	"go test": {FormatGoTest, FormatGoTestJSON}, "pytest": {FormatPytest}, "py.test": {FormatPytest},
	"cargo test": {FormatCargoTest}, "jest": {FormatJest}, "make": {"make"}, "mvn": {"maven"}, "gradle": {"gradle"},
}

// unaddressed is the first stop that a rerun of the tool cannot run past:
// another tool's (go test inside `make test`: make cannot be told to skip
// a test), or one nothing can (it did not build; a crash whose test is
// unknown).
func unaddressed(tool string, stops []Stop) (Stop, bool) {
	for _, s := range stops {
		ok := false
		for _, t := range rerunTools[tool] {
			ok = ok || s.Tool == t
		}
		switch {
		case !ok, s.Kind == StopUnbuilt:
			return s, true
		case s.Kind == StopCrash && (tool == "cargo test" || tool == "jest" || tool == "make" || tool == "mvn" || tool == "gradle"):
			return s, true
		}
	}
	return Stop{}, false
}

// goValueFlags are the go test flags that take a value as the next word.
var goValueFlags = map[string]bool{
	"-run": true, "-skip": true, "-count": true, "-timeout": true, "-p": true, "-parallel": true, "-tags": true,
	"-coverprofile": true, "-bench": true, "-benchtime": true, "-cpu": true, "-covermode": true, "-coverpkg": true,
	"-exec": true, "-o": true, "-vet": true, "-shuffle": true, "-mod": true, "-C": true, "-ldflags": true,
	"-gcflags": true, "-asmflags": true, "-blockprofile": true, "-cpuprofile": true, "-memprofile": true,
	"-mutexprofile": true, "-outputdir": true, "-trace": true, "-fuzz": true, "-fuzztime": true, "-list": true,
	"-pkgdir": true, "-toolexec": true, "-overlay": true, "-modfile": true, "-pgo": true,
}

// PlanRerun plans the rerun of a check whose runs (base and work) stopped;
// dir is the check's working directory relative to the project root. It
// fails, saying why, when the command is not one it knows how to run
// again.
func PlanRerun(command, dir string, base, work Result) (Rerun, error) {
	all := append(append([]Stop(nil), work.Stops...), base.Stops...)
	stops := map[string]bool{}
	for _, s := range all {
		stops[s.Unit] = true
	}
	if len(stops) == 0 {
		return Rerun{}, fmt.Errorf("nothing stopped")
	}
	if rest, ok := chainRest(all); ok {
		return Rerun{Command: rest, Append: true}, nil
	}
	words, ok := commandWords(command)
	if !ok {
		return Rerun{}, fmt.Errorf("its command is not one plain command that can be told to skip what stopped it")
	}
	t := toolOf(words)
	if s, ok := unaddressed(t.name, all); ok {
		if s.Kind == StopUnbuilt {
			return Rerun{}, fmt.Errorf("nothing runs past %s until it builds", s.Unit)
		}
		return Rerun{}, fmt.Errorf("`%s` cannot be told to skip what stopped %s", command, s.Unit)
	}
	pre := words[:len(words)-len(t.args)]
	switch t.name {
	case "go test":
		return goRerun(pre, t.args, stops, base, work)
	case "pytest", "py.test":
		return pytestRerun(words, dir, base, work)
	case "cargo test":
		return addFlag(pre, t.args, "--no-fail-fast", "cargo test")
	case "jest":
		return dropFlags(words, "jest", "--bail", "-b")
	case "make":
		return addFlag(pre, t.args, "-k", "make")
	case "mvn":
		return addFlag(pre, t.args, "-fae", "mvn")
	case "gradle":
		return addFlag(pre, t.args, "--continue", "gradle")
	}
	return Rerun{}, fmt.Errorf("%s cannot be told to skip the tests that stopped it", t.name)
}

// chainRest is the command of the parts of a chain that never ran, when
// that is the only stop (the rest of the run is compared as it is).
func chainRest(stops []Stop) (string, bool) {
	rest := ""
	for _, s := range stops {
		if s.Tool != ToolChain {
			return "", false
		}
		if rest == "" || len(s.Rest) > len(rest) {
			rest = s.Rest // the longer rest of the two sides: it ran less
		}
	}
	return rest, rest != ""
}

// dropFlags reruns words without the flags (and their =value forms):
// jest without --bail runs every suite.
func dropFlags(words []string, name string, flags ...string) (Rerun, error) {
	var out []string
	dropped := false
	for _, w := range words {
		drop := false
		for _, f := range flags {
			drop = drop || w == f || strings.HasPrefix(w, f+"=")
		}
		if drop {
			dropped = true
			continue
		}
		out = append(out, w)
	}
	if !dropped {
		return Rerun{}, fmt.Errorf("%s stopped without %s", name, strings.Join(flags, " or "))
	}
	return Rerun{Command: strings.Join(out, " ")}, nil
}

// addFlag reruns the command with flag added at the end of the tool's
// own arguments (before a "--").
func addFlag(pre, args []string, flag, name string) (Rerun, error) {
	if hasAnyWord(args, flag) {
		return Rerun{}, fmt.Errorf("%s stopped although it has %s", name, flag)
	}
	own, rest := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			own, rest = args[:i], args[i:]
			break
		}
	}
	out := append(append(append(append([]string(nil), pre...), own...), flag), rest...)
	return Rerun{Command: strings.Join(out, " ")}, nil
}

// goRerun runs the stopped packages again with their failed tests
// skipped (-skip), every other flag kept.
func goRerun(pre, args []string, stops map[string]bool, base, work Result) (Rerun, error) {
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-args" || a == "--args":
			return Rerun{}, fmt.Errorf("go test with -args cannot be run again for its stopped packages")
		case a == "-skip" || strings.HasPrefix(a, "-skip="):
			return Rerun{}, fmt.Errorf("go test already has -skip")
		case a == "-failfast" || a == "--failfast" || strings.HasPrefix(a, "-failfast=") || strings.HasPrefix(a, "-test.failfast"):
			// It stopped each package at its first failure: the rerun
			// runs the rest.
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if goValueFlags[strings.TrimPrefix(a, "-")] || goValueFlags[a] {
				if i+1 < len(args) {
					i++
					flags = append(flags, args[i])
				}
			}
		}
	}
	var skip []testKey
	seen := map[testKey]bool{}
	for _, r := range []Result{work, base} {
		for _, f := range r.Findings {
			k := testKey{f.Suite, f.Test}
			if f.Kind == KindTest && f.Status == StatusFailed && stops[f.Suite] && f.Test != "" && !seen[k] {
				seen[k] = true
				skip = append(skip, k)
			}
		}
	}
	pattern, err := goSkipPattern(skip)
	if err != nil {
		return Rerun{}, err
	}
	vet := false
	for _, r := range []Result{work, base} {
		for _, s := range r.Stops {
			vet = vet || s.Kind == StopVet
		}
	}
	if vet {
		if hasFlagPrefix(flags, "-vet") {
			return Rerun{}, fmt.Errorf("go test's vet step failed although it has its own -vet")
		}
		flags = append(flags, "-vet=off")
	}
	if pattern == "" && !vet {
		return Rerun{}, fmt.Errorf("which test ended go test is unknown")
	}
	var pkgs []string
	for p := range stops {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	out := append(append([]string(nil), pre...), flags...)
	if pattern != "" {
		out = append(out, "-skip", "'"+pattern+"'")
	}
	out = append(out, pkgs...)
	return Rerun{Command: strings.Join(out, " "), Suites: pkgs, Skipped: skip}, nil
}

// goSkipPattern is the -skip pattern of the tests: ^(A|B)$ for top-level
// tests, ^A$/^b$ for a single subtest. Tests in several packages share
// it, which is fine: the rerun runs only the stopped packages, and a
// test skipped keeps its first result.
func goSkipPattern(tests []testKey) (string, error) {
	names := map[string]bool{}
	var subs []string
	for _, t := range tests {
		if strings.Contains(t.test, "/") {
			subs = append(subs, t.test)
			continue
		}
		names[regexp.QuoteMeta(t.test)] = true
	}
	// A parent that failed because its subtest did is skipped through
	// the subtest alone.
	for _, s := range subs {
		parent, _, _ := strings.Cut(s, "/")
		delete(names, regexp.QuoteMeta(parent))
	}
	switch {
	case len(subs) == 1 && len(names) == 0:
		parts := strings.Split(subs[0], "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		return strings.Join(parts, "/"), nil
	case len(subs) > 0:
		return "", fmt.Errorf("the failed subtests %s cannot be skipped together in one go test run", strings.Join(subs, ", "))
	case len(names) == 0:
		return "", nil
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	if len(list) == 1 {
		return "^" + list[0] + "$", nil
	}
	return "^(" + strings.Join(list, "|") + ")$", nil
}

// pytestRerun deselects every failed test of both runs.
func pytestRerun(words []string, dir string, base, work Result) (Rerun, error) {
	out := append([]string(nil), words...)
	var skip []testKey
	seen := map[testKey]bool{}
	for _, r := range []Result{work, base} {
		for _, f := range r.Findings {
			k := testKey{f.Suite, f.Test}
			if f.Kind != KindTest || f.Status != StatusFailed || f.Test == "" || seen[k] {
				continue
			}
			seen[k] = true
			suite := f.Suite
			if dir != "" && dir != "." {
				rel, ok := strings.CutPrefix(suite, path.Clean(dir)+"/")
				if !ok {
					return Rerun{}, fmt.Errorf("the test %s is outside the check's directory", suite)
				}
				suite = rel
			}
			id := suite + "::" + f.Test
			if _, ok := commandWords(id); !ok {
				return Rerun{}, fmt.Errorf("the test id %q cannot be passed to --deselect safely", id)
			}
			skip = append(skip, k)
			out = append(out, "--deselect", id)
		}
	}
	if len(skip) == 0 {
		return Rerun{}, fmt.Errorf("pytest stopped with no failed test to leave out")
	}
	return Rerun{Command: strings.Join(out, " "), Skipped: skip}, nil
}

// Merge is the result of the first run (first) completed by the rerun's
// (again): the rerun's findings, the first run's for what the rerun did
// not run (other suites, skipped tests), and the rerun's stops with the
// first's outside its suites.
func (p Rerun) Merge(first, again Result) Result {
	out := Result{Format: again.Format, Truncated: first.Truncated || again.Truncated, Cut: again.Cut, Problem: again.Problem}
	if out.Cut == "" {
		out.Cut = first.Cut
	}
	if out.Problem == "" {
		out.Problem = first.Problem
	}
	if p.Append {
		if first.Format != again.Format && first.Format != "" {
			out.Format = first.Format + ", then " + again.Format
		}
		for _, f := range append(append([]Finding(nil), first.Findings...), again.Findings...) {
			out.add(f)
		}
		for _, s := range first.Stops {
			if s.Tool != ToolChain {
				out.Stops = append(out.Stops, s)
			}
		}
		out.Stops = append(out.Stops, again.Stops...)
		return out
	}
	inScope := map[string]bool{}
	for _, s := range p.Suites {
		inScope[s] = true
	}
	scoped := len(p.Suites) > 0
	skipped := map[testKey]bool{}
	for _, k := range p.Skipped {
		skipped[k] = true
	}
	for _, f := range first.Findings {
		outside := scoped && !inScope[f.Suite]
		if outside || (f.Kind == KindTest && skipped[testKey{f.Suite, f.Test}]) {
			out.add(f)
		}
	}
	for _, f := range again.Findings {
		if f.Kind == KindTest && skipped[testKey{f.Suite, f.Test}] {
			continue
		}
		out.add(f)
	}
	for _, s := range first.Stops {
		if scoped && !inScope[s.Unit] {
			out.Stops = append(out.Stops, s)
		}
	}
	out.Stops = append(out.Stops, again.Stops...)
	return out
}
