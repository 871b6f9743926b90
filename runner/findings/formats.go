package findings

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
)

// The formats this package reads besides errorformat's named ones.
const (
	// FormatAuto recognises the format from the command (Recognize).
	FormatAuto = ""
	// FormatGoTestJSON is `go test -json`.
	FormatGoTestJSON = "go-test-json"
	// FormatGoTest is the text `go test` prints.
	FormatGoTest = "go-test"
	// FormatPytest is pytest's text output.
	FormatPytest = "pytest"
	// FormatCargoTest is `cargo test`'s text output.
	FormatCargoTest = "cargo-test"
	// FormatJest is jest's default reporter.
	FormatJest = "jest"
	// FormatJUnit reads the tests from the check's JUnit files only.
	FormatJUnit = "junit"
	// FormatText reads the output of a command no parser reads: the
	// formats sniffed in it (Sniff) by their parsers, every other line as a
	// finding of its own (parseText).
	FormatText = "text"
)

// ownParsers read the formats that are not errorformat's.
var ownParsers = map[string]func(lines []string, n *Normalizer, dir string, r *Result){
	FormatGoTestJSON: parseGoTestJSON,
	FormatGoTest:     parseGoTest,
	FormatPytest:     parsePytest,
	FormatCargoTest:  parseCargoTest,
	FormatJest:       parseJest,
	FormatJUnit:      func([]string, *Normalizer, string, *Result) {},
	FormatText:       parseSniffed, // as Parse reads it, streamed (streamSniffed)
}

// Formats lists every format name a check may give, sorted: this
// package's own and errorformat's (go vet is "govet", golangci-lint's
// text output "golangci-lint", eslint's stylish output "eslint", ...).
var Formats = sync.OnceValue(func() []string {
	var out []string
	for name := range ownParsers {
		out = append(out, name)
	}
	for name := range efmFormats() {
		if _, own := ownParsers[name]; !own {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
})

// Known reports whether name is a format (FormatAuto included).
func Known(name string) bool {
	if name == FormatAuto {
		return true
	}
	_, own := ownParsers[name]
	_, efm := efmFormats()[name]
	return own || efm
}

// Spec says how to read one run of a check.
type Spec struct {
	// Format is the check's format; FormatAuto recognises it from Command.
	Format string
	// Command is the command that ran (for recognition and the stops of
	// build tools).
	Command string
	// Dir is the directory it ran in, relative to the project root.
	Dir string
	// Roots are the absolute directories paths are made relative to: the
	// root of the tree the check ran in (a base worktree's for a base
	// run).
	Roots []string
	// JUnit are the JUnit files the run wrote (JUnitFiles); their tests
	// replace any the output shows.
	JUnit []string
	// Failed is true when the check failed: output whose format finds
	// nothing failing is then read as text too, so that the failure is
	// still told by its lines.
	Failed bool
}

// Parse reads a run's output (and JUnit files) as spec says. It never
// fails: what cannot be read is told in the result (Truncated, Problem),
// and output in a format that finds nothing failing in a failed run is
// read as text too.
func Parse(spec Spec, output io.Reader) Result {
	format := spec.Format
	words, _ := commandWords(spec.Command)
	if format == FormatAuto {
		format = Recognize(spec.Command)
	}
	if !Known(format) {
		format = FormatText
	}
	n := NewNormalizer(spec.Roots...)
	r := Result{Format: format}
	var stops buildStops
	switch p, own := ownParsers[format]; {
	case format == FormatText:
		streamSniffed(output, n, spec.Dir, &stops, &r)
	case own:
		parseWhole(p, format, words, output, n, spec, &stops, &r)
	default:
		streamDiagnostics(format, output, n, spec, &stops, &r)
	}
	if len(spec.JUnit) > 0 {
		kept := r.Findings[:0]
		for _, f := range r.Findings {
			if f.Kind != KindTest {
				kept = append(kept, f)
			}
		}
		r.Findings = kept
		parseJUnit(spec.JUnit, n, spec.Dir, &r)
	}
	stops.add(words, &r)
	r.dedupDiagnostics()
	return r
}

// parseWhole reads the output of a format whose parser needs all of it
// (a test runner's), held whole within the bounds.
func parseWhole(p func([]string, *Normalizer, string, *Result), format string, words []string, output io.Reader, n *Normalizer, spec Spec, stops *buildStops, r *Result) {
	lines, cut, err := readLines(output)
	for _, l := range lines {
		stops.line(l)
	}
	p(lines, n, spec.Dir, r)
	if spec.Failed && !r.anyFailing() {
		parseText(lines, n, spec.Dir, r)
	}
	if t := toolOf(words); t.name == "go test" && (format == FormatGoTest || format == FormatGoTestJSON) {
		goFailFast(t.args, r)
	}
	r.readEnd(cut, err)
}

// readEnd notes in r how the reading of the output ended: cut short by a
// bound (cut), or by an error.
func (r *Result) readEnd(cut string, err error) {
	if cut != "" {
		r.cut(cut)
	}
	if err != nil {
		r.Problem = "read the output: " + err.Error()
	}
}

// streamDiagnostics reads a diagnostic format chunk by chunk, never
// holding more than a chunk of the output; in a failed run it keeps the
// error lines aside, for when the format finds nothing failing. Once the
// result is full it parses no more: the rest of the output is only looked
// through for the stops of build tools.
func streamDiagnostics(format string, output io.Reader, n *Normalizer, spec Spec, stops *buildStops, r *Result) {
	l := newLineReader(output)
	var batch, chunk, aside []string
	size, asideSize, asideCut, found, full := 0, 0, false, false, false
	flush := func() {
		full = !scanChunk(efmFormats()[format], format, chunk, n, spec.Dir, r)
		chunk, size = chunk[:0], 0
		if !found && len(r.Findings) > 0 {
			found, aside = true, nil // the error lines will not be needed
		}
	}
	for {
		if batch = l.batch(batch[:0]); len(batch) == 0 {
			break
		}
		for _, line := range batch {
			stops.line(line)
			if full {
				continue
			}
			if spec.Failed && !found && maybeErrorRE().MatchString(line) {
				if asideSize += len(line); asideSize > maxAsideBytes {
					asideCut = true
				} else {
					aside = append(aside, line)
				}
			}
			chunk = append(chunk, line)
			if size += len(line) + 1; len(chunk) >= chunkLines || size >= chunkBytes {
				flush()
			}
		}
	}
	if len(chunk) > 0 && !full {
		flush()
	}
	r.readEnd(l.cut, l.failure())
	if spec.Failed && len(r.Findings) == 0 {
		// The tool failed and said nothing in its format: its lines
		// tell. (Diagnostics that fail nothing, pylint's conventions, are
		// what it failed for.)
		parseText(aside, n, spec.Dir, r)
		if asideCut {
			r.cut(fmt.Sprintf("more than %d MB of error lines, none in the format: the rest were not read", maxAsideBytes>>20))
		}
	}
}

// maxAsideBytes bounds the lines a diagnostic format keeps aside to read
// as text in the end.
const maxAsideBytes = 8 << 20

// tool is the program a command runs, past launchers (npx, uv run, python
// -m, env, ...), with its subcommand for go and cargo, and its arguments.
type tool struct {
	name string
	args []string
}

// launchers run another program named by a later word: how many words
// (after their own flags) to skip.
var launchers = map[string]bool{"npx": true, "bunx": true, "env": true, "nice": true, "time": true, "command": true, "exec": true}

// subLaunchers are launchers with a subcommand: `npm exec`, `uv run`.
var subLaunchers = map[string]map[string]bool{
	"npm": {"exec": true, "x": true}, "pnpm": {"exec": true, "dlx": true}, "yarn": {"exec": true, "dlx": true},
	"bun": {"x": true}, "uv": {"run": true}, "poetry": {"run": true}, "pipenv": {"run": true}, "hatch": {"run": true}, "pdm": {"run": true},
}

// subcommanded tools are named with their subcommand.
var subcommanded = map[string]bool{"go": true, "cargo": true}

// toolOf finds the tool of a command's words.
func toolOf(words []string) tool {
	i := 0
	for i < len(words) {
		w := path.Base(words[i])
		switch {
		case strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-"):
			i++ // VAR=value
		case launchers[w]:
			i++
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				i++
			}
		case subLaunchers[w] != nil && i+1 < len(words) && subLaunchers[w][words[i+1]]:
			i += 2
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				if words[i] == "--" {
					i++
					break
				}
				i++
			}
		case (w == "python" || w == "python3") && i+2 < len(words) && words[i+1] == "-m":
			return named(words[i+2], words[i+3:])
		case w == "yarn" && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && words[i+1] != "run":
			i++ // yarn <bin>
		default:
			return named(w, words[i+1:])
		}
	}
	return tool{}
}

// named is the tool w with its arguments (and subcommand).
func named(w string, args []string) tool {
	w = strings.TrimSuffix(strings.TrimSuffix(w, ".cmd"), ".exe")
	switch w {
	case "mvnw":
		w = "mvn"
	case "gradlew":
		w = "gradle"
	}
	if subcommanded[w] && len(args) > 0 {
		return tool{name: w + " " + args[0], args: args[1:]}
	}
	return tool{name: w, args: args}
}

// Recognize names the format of a command's output from the tool it runs
// (FormatText when it is none this package knows, or the command is more
// than one plain command).
func Recognize(command string) string {
	words, ok := commandWords(command)
	if !ok {
		return FormatText
	}
	t := toolOf(words)
	switch t.name {
	case "go test":
		if hasAnyWord(t.args, "-json", "--json") {
			return FormatGoTestJSON
		}
		return FormatGoTest
	case "go vet":
		return "govet"
	case "golangci-lint", "staticcheck", "mypy", "flake8", "pylint", "tsc":
		if hasFlagPrefix(t.args, "--output", "--out-format", "-f", "--format", "--output-format", "--pretty") {
			return FormatText
		}
		return t.name
	case "dmypy":
		return "mypy"
	case "ruff":
		if hasFlagPrefix(t.args, "--output-format") {
			return FormatText
		}
		return "ruff"
	case "eslint":
		if hasFlagPrefix(t.args, "-f", "--format") {
			return FormatText
		}
		return "eslint"
	case "pytest", "py.test":
		return FormatPytest
	case "cargo test":
		return FormatCargoTest
	case "cargo clippy", "cargo check", "cargo build":
		return "rustc"
	case "jest":
		return FormatJest
	}
	return FormatText
}

// hasFlagPrefix reports whether args set one of these flags (-f x,
// --format=x).
func hasFlagPrefix(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// placeholders are the words the gauntlet replaces in a check's command
// before the shell reads it (${CHANGED_FILES} by the files, each quoted;
// ${BASE_BRANCH} by the branch): a command holding them is as plain as
// one without.
var placeholders = []string{"${CHANGED_FILES}", "${BASE_BRANCH}"}

// commandWords splits a plain command (one simple command: letters,
// digits, blanks and _ . / : , @ % + = - only, and the placeholders) at
// blanks; ok is false for anything else.
func commandWords(command string) ([]string, bool) {
	plain := command
	for _, p := range placeholders {
		plain = strings.ReplaceAll(plain, p, "x")
	}
	for _, c := range plain {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune(" \t_./:,@%+=-", c):
		default:
			return nil, false
		}
	}
	w := strings.Fields(command)
	return w, len(w) > 0
}
