package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
)

// need marks p as needing the executable name, unless tools has it or p
// already misses something.
func (p Proposal) need(tools Tools, name, hint string) Proposal {
	if p.Missing == "" && !tools.Has(name) {
		p.Missing, p.Hint = name, hint
	}
	return p
}

// Go ------------------------------------------------------------------------

// GofmtChanged is the gofmt check's command: gofmt -l on the changed Go
// files of the run (${CHANGED_FILES}, narrowed by GofmtGlob), so that files
// nobody touched never fail it, in every diff mode of a run. With no file
// (init's trial) gofmt reads an empty input and passes.
const GofmtChanged = `out=$(gofmt -l ${CHANGED_FILES}) || exit 2
test -z "$out" || { echo "Not formatted with gofmt (run gofmt -w on them):"; echo "$out"; exit 1; }
`

// GofmtGlob narrows the gofmt check's changed files to Go files: with none
// changed, it does not apply.
var GofmtGlob = []string{"*.go"}

// golangciConfigs are the file names of a golangci-lint configuration.
var golangciConfigs = []string{".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"}

func detectGo(_ context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	if !t.has(dir, "go.mod") {
		return Project{}, false
	}
	const goHint = "install Go: https://go.dev/dl/"
	p := Project{Dir: dir, Kind: Go, Label: "Go module (go.mod)"}
	p.Proposals = []Proposal{
		Proposal{Name: "go-vet", Command: "go vet ./...", Parallel: true, Timeout: LintTimeout, Format: "govet"}.need(tools, "go", goHint),
		Proposal{Name: "go-test", Command: "go test ./...", Timeout: TestTimeout, Format: findings.FormatGoTest}.need(tools, "go", goHint),
		Proposal{Name: "gofmt", Command: GofmtChanged, Glob: GofmtGlob, Shown: "gofmt -l on the changed .go files", Parallel: true,
			Timeout: FormatTimeout}.need(tools, "gofmt", "put $(go env GOROOT)/bin on PATH"),
	}
	// golangci-lint looks for its configuration here and in every parent.
	for _, d := range append([]string{dir}, ancestors(dir)...) {
		if _, ok := t.hasAny(d, golangciConfigs...); ok {
			p.Proposals = append(p.Proposals, Proposal{Name: "golangci-lint", Command: "golangci-lint run", Parallel: true,
				Timeout: LintTimeout, Format: "golangci-lint"}.need(tools, "golangci-lint", "install it: https://golangci-lint.run"))
			break
		}
	}
	return p, true
}

// scriptFormat is the format of what a package.json script prints: that
// of the tool it runs when it is one plain command of a known tool, else
// "" (plain text).
func scriptFormat(script string) string {
	return toolFormat(script)
}

// toolFormat is the format runner/findings recognises for command, ""
// for plain text.
func toolFormat(command string) string {
	if f := findings.Recognize(command); f != findings.FormatText {
		return f
	}
	return ""
}

// Node ----------------------------------------------------------------------

// packageJSON is what detection reads from a package.json.
type packageJSON struct {
	Scripts         map[string]string `json:"scripts"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	Workspaces      json.RawMessage   `json:"workspaces"`
	PackageManager  string            `json:"packageManager"`
}

// hasWorkspaces reports whether the package is a workspace root.
func (p packageJSON) hasWorkspaces() bool {
	w := strings.TrimSpace(string(p.Workspaces))
	return w != "" && w != "null" && w != "[]" && w != "{}"
}

// nodeManager is a package manager and how it runs a script and a binary.
type nodeManager struct {
	name  string
	locks []string
	exec  string // prefix running a package's binary
}

// nodeManagers in the order their lock files are looked for.
var nodeManagers = []nodeManager{
	{name: "pnpm", locks: []string{"pnpm-lock.yaml"}, exec: "pnpm exec"},
	{name: "yarn", locks: []string{"yarn.lock"}, exec: "yarn exec"},
	{name: "bun", locks: []string{"bun.lock", "bun.lockb"}, exec: "bun x --no-install"},
	{name: "npm", locks: []string{"package-lock.json", "npm-shrinkwrap.json"}, exec: "npm exec --no --"},
}

// npmDefaultTest is the test script `npm init` writes, which always fails.
const npmDefaultTest = "no test specified"

// typecheckScripts are the script names that type-check a package.
var typecheckScripts = []string{"typecheck", "type-check", "check-types", "types"}

func detectNode(_ context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	if !t.has(dir, "package.json") || nodeWorkspaceMember(t, dir) {
		return Project{}, false
	}
	var pkg packageJSON
	if err := json.Unmarshal([]byte(t.read(dir, "package.json")), &pkg); err != nil {
		return Project{Dir: dir, Kind: Node, Label: "Node package (package.json, not valid JSON: nothing proposed)"}, true
	}
	pm := managerFor(t, dir, pkg)
	p := Project{Dir: dir, Kind: Node, Label: fmt.Sprintf("Node package (package.json, %s)", pm.name)}
	run := func(name, script string, parallel bool) Proposal {
		return Proposal{Name: pm.name + "-" + name, Command: pm.name + " run " + script, Parallel: parallel, Timeout: TestTimeout,
			Format: scriptFormat(pkg.Scripts[script])}
	}
	if s, ok := pkg.Scripts["test"]; ok && !strings.Contains(s, npmDefaultTest) {
		p.Proposals = append(p.Proposals, run("test", "test", false))
	}
	if _, ok := pkg.Scripts["lint"]; ok {
		p.Proposals = append(p.Proposals, run("lint", "lint", true))
	}
	typecheck := false
	for _, s := range typecheckScripts {
		if _, ok := pkg.Scripts[s]; ok {
			p.Proposals = append(p.Proposals, run("typecheck", s, true))
			typecheck = true
			break
		}
	}
	if !typecheck && t.has(dir, "tsconfig.json") && pkg.dependsOn("typescript") {
		p.Proposals = append(p.Proposals, Proposal{Name: pm.name + "-tsc", Command: pm.exec + " tsc --noEmit",
			Parallel: true, Timeout: LintTimeout, Format: "tsc"})
	}
	installed := len(pkg.Dependencies)+len(pkg.DevDependencies) == 0 || nodeModulesFor(t, dir)
	for i := range p.Proposals {
		p.Proposals[i] = p.Proposals[i].need(tools, "node", "install Node.js: https://nodejs.org").
			need(tools, pm.name, "install it, or run `corepack enable`")
		if !installed && p.Proposals[i].Missing == "" {
			p.Proposals[i].Missing = "node_modules"
			p.Proposals[i].Hint = fmt.Sprintf("run `%s install` in %s", pm.name, dir)
		}
	}
	return p, true
}

// dependsOn reports whether the package lists name as a dependency.
func (p packageJSON) dependsOn(name string) bool {
	_, a := p.Dependencies[name]
	_, b := p.DevDependencies[name]
	return a || b
}

// nodeWorkspaceMember reports whether a package.json above dir declares
// workspaces (or a pnpm-workspace.yaml is there): the workspace root's
// scripts cover its members.
func nodeWorkspaceMember(t *tree, dir string) bool {
	for _, d := range ancestors(dir) {
		if t.has(d, "pnpm-workspace.yaml") {
			return true
		}
		if t.has(d, "package.json") {
			var pkg packageJSON
			if json.Unmarshal([]byte(t.read(d, "package.json")), &pkg) == nil && pkg.hasWorkspaces() {
				return true
			}
		}
	}
	return false
}

// managerFor finds the package manager of the package in dir: the one
// whose lock file is there or in a parent, else the packageManager field,
// else npm.
func managerFor(t *tree, dir string, pkg packageJSON) nodeManager {
	for _, d := range append([]string{dir}, ancestors(dir)...) {
		for _, m := range nodeManagers {
			if _, ok := t.hasAny(d, m.locks...); ok {
				return m
			}
		}
	}
	name, _, _ := strings.Cut(pkg.PackageManager, "@")
	for _, m := range nodeManagers {
		if m.name == name {
			return m
		}
	}
	return nodeManagers[len(nodeManagers)-1]
}

// nodeModulesFor reports whether dependencies are installed for dir: a
// node_modules directory there or in a parent (hoisted workspaces).
func nodeModulesFor(t *tree, dir string) bool {
	for _, d := range append([]string{dir}, ancestors(dir)...) {
		if t.exists(join(d, "node_modules")) {
			return true
		}
	}
	return false
}

// Python --------------------------------------------------------------------

// pythonMarkers make a directory a Python project.
var pythonMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg"}

// pythonConfig is the text of a Python project's configuration files.
type pythonConfig struct {
	t   *tree
	dir string
	// text is pyproject.toml, setup.cfg and tox.ini together.
	text string
}

// section reports whether a configuration section header starts with
// prefix ("[tool.ruff" matches [tool.ruff] and [tool.ruff.lint]).
func (c pythonConfig) section(prefix string) bool {
	for _, line := range strings.Split(c.text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			return true
		}
	}
	return false
}

// mentions reports whether the configuration names a package (a
// dependency list entry such as "pytest>=8" or pytest = "^8").
func (c pythonConfig) mentions(pkg string) bool {
	return regexp.MustCompile(`(?m)(["'\s]|^)` + regexp.QuoteMeta(pkg) + `\b`).MatchString(c.text)
}

// configured reports whether a tool is set up: its own file, its section, or
// it is a dependency.
func (c pythonConfig) configured(files []string, sections []string, pkg string) bool {
	if _, ok := c.t.hasAny(c.dir, files...); ok {
		return true
	}
	for _, s := range sections {
		if c.section(s) {
			return true
		}
	}
	return c.mentions(pkg)
}

func detectPython(ctx context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	marker, ok := t.hasAny(dir, pythonMarkers...)
	if !ok {
		return Project{}, false
	}
	c := pythonConfig{t: t, dir: dir, text: t.read(dir, "pyproject.toml") + "\n" + t.read(dir, "setup.cfg") + "\n" + t.read(dir, "tox.ini")}
	env := newPythonEnv(ctx, t, dir, tools)
	p := Project{Dir: dir, Kind: Python, Label: fmt.Sprintf("Python project (%s)", marker)}

	testFiles := pythonTestFiles(t, dir)
	if len(testFiles) > 0 || c.configured([]string{"pytest.ini"}, []string{"[tool.pytest", "[tool:pytest]", "[pytest]"}, "pytest") {
		switch {
		case env.available("pytest", "pytest"):
			p.Proposals = append(p.Proposals, env.proposal("pytest", "pytest", "pytest", "", TestTimeout, false))
		case usesUnittest(t, testFiles) && env.python != "":
			p.Proposals = append(p.Proposals, Proposal{Name: "python-unittest", Command: env.python + " -m unittest " + unittestArgs(t, dir),
				Timeout: TestTimeout})
		default:
			p.Proposals = append(p.Proposals, env.proposal("pytest", "pytest", "pytest", "", TestTimeout, false))
		}
	}
	if c.configured([]string{"ruff.toml", ".ruff.toml"}, []string{"[tool.ruff"}, "ruff") {
		p.Proposals = append(p.Proposals, env.proposal("ruff", "ruff", "ruff", " check .", LintTimeout, true))
	}
	if c.configured([]string{"mypy.ini", ".mypy.ini"}, []string{"[tool.mypy", "[mypy"}, "mypy") {
		args := " ."
		if mypyFilesRE().MatchString(c.text) {
			args = "" // the configuration names what to check
		}
		p.Proposals = append(p.Proposals, env.proposal("mypy", "mypy", "mypy", args, LintTimeout, true))
	}
	return p, true
}

// mypyFilesRE matches a `files =` setting, with which mypy needs no argument.
var mypyFilesRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*files\s*=`) })

// pythonEnv is how a Python project runs its tools: from its virtual
// environment, through uv or poetry, from PATH, or as `python3 -m`.
type pythonEnv struct {
	ctx    context.Context
	t      *tree
	dir    string
	tools  Tools
	venv   string // ".venv" or "venv" when the project has one
	runner string // "uv run " or "poetry run " when the project uses one
	python string // the interpreter: the venv's, python3 or python ("" for none)
}

func newPythonEnv(ctx context.Context, t *tree, dir string, tools Tools) *pythonEnv {
	e := &pythonEnv{ctx: ctx, t: t, dir: dir, tools: tools}
	for _, v := range []string{".venv", "venv"} {
		if t.exists(join(dir, v+"/bin/python")) {
			e.venv, e.python = v, v+"/bin/python"
			return e
		}
	}
	switch {
	case t.has(dir, "uv.lock") && tools.Has("uv"):
		e.runner = "uv run "
	case t.has(dir, "poetry.lock") && tools.Has("poetry"):
		e.runner = "poetry run "
	}
	for _, py := range []string{"python3", "python"} {
		if tools.Has(py) {
			e.python = py
			break
		}
	}
	return e
}

// available reports whether the tool can run: in the venv, through the
// project's runner (which installs what the lock file names), on PATH, or as
// a module of the interpreter.
func (e *pythonEnv) available(tool, module string) bool {
	_, ok := e.command(tool, module)
	return ok
}

// command is how the tool is run, and whether it can be.
func (e *pythonEnv) command(tool, module string) (string, bool) {
	switch {
	case e.venv != "":
		if e.t.exists(join(e.dir, e.venv+"/bin/"+tool)) {
			return e.venv + "/bin/" + tool, true
		}
		return "", false
	case e.runner != "":
		return e.runner + tool, true
	case e.tools.Has(tool):
		return tool, true
	case e.python != "" && e.tools.Probe(e.ctx, e.t.abs(e.dir), e.python+" -c 'import "+module+"'"):
		return e.python + " -m " + module, true
	}
	return "", false
}

// proposal proposes tool (with args after it), or says it is missing.
func (e *pythonEnv) proposal(name, tool, module, args string, timeout time.Duration, parallel bool) Proposal {
	p := Proposal{Name: name, Parallel: parallel, Timeout: timeout, Format: toolFormat(tool)}
	cmd, ok := e.command(tool, module)
	if !ok {
		p.Command, p.Missing = tool+args, tool
		p.Hint = "install it: pip install " + tool
		if e.venv != "" {
			p.Hint = "install it into " + e.venv + ": " + e.venv + "/bin/pip install " + tool
		}
		return p
	}
	p.Command = cmd + args
	return p
}

// pythonTestFiles lists the test files of the project in dir: test_*.py and
// *_test.py in it, and *.py in its tests/ or test/ directory.
func pythonTestFiles(t *tree, dir string) []string {
	var out []string
	for _, name := range t.byDir[dir] {
		if strings.HasSuffix(name, ".py") && (strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py")) {
			out = append(out, join(dir, name))
		}
	}
	for _, sub := range []string{"tests", "test"} {
		for _, name := range t.byDir[join(dir, sub)] {
			if strings.HasSuffix(name, ".py") && name != "__init__.py" && name != "conftest.py" {
				out = append(out, join(join(dir, sub), name))
			}
		}
	}
	return out
}

// maxScannedTests bounds the test files read to see whether they use unittest.
const maxScannedTests = 20

// usesUnittest reports whether the test files are unittest test cases (then
// `python -m unittest` runs them without pytest).
func usesUnittest(t *tree, files []string) bool {
	if len(files) == 0 {
		return false
	}
	for i, f := range files {
		if i == maxScannedTests {
			break
		}
		text := t.read(path.Dir(f), path.Base(f))
		if strings.Contains(text, "import unittest") || strings.Contains(text, "from unittest") {
			return true
		}
	}
	return false
}

// unittestArgs are the arguments of `python -m unittest` for dir: discovery
// in tests/ (or test/), with the project directory as the top level so that
// the tests import the project's own packages.
func unittestArgs(t *tree, dir string) string {
	for _, sub := range []string{"tests", "test"} {
		if len(t.byDir[join(dir, sub)]) > 0 {
			return "discover -s " + sub + " -t ."
		}
	}
	return "discover"
}

// Rust ----------------------------------------------------------------------

func detectRust(ctx context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	if !t.has(dir, "Cargo.toml") {
		return Project{}, false
	}
	for _, d := range ancestors(dir) {
		if t.has(d, "Cargo.toml") {
			return Project{}, false // a member of the crate or workspace above
		}
	}
	const cargoHint = "install Rust: https://rustup.rs"
	p := Project{Dir: dir, Kind: Rust, Label: "Rust crate (Cargo.toml)"}
	clippy := Proposal{Name: "cargo-clippy", Command: "cargo clippy --workspace --all-targets -- -D warnings", Timeout: LintTimeout,
		Format: "rustc"}.
		need(tools, "cargo", cargoHint)
	if clippy.Missing == "" && !tools.Probe(ctx, t.abs(dir), "cargo clippy --version") {
		clippy.Missing, clippy.Hint = "clippy", "rustup component add clippy"
	}
	p.Proposals = []Proposal{
		clippy,
		Proposal{Name: "cargo-test", Command: "cargo test --workspace --no-fail-fast", Timeout: TestTimeout,
			Format: findings.FormatCargoTest}.need(tools, "cargo", cargoHint),
	}
	return p, true
}

// Java and Kotlin -----------------------------------------------------------

var gradleFiles = []string{"build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle"}

func detectJava(_ context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	if t.has(dir, "pom.xml") {
		for _, d := range ancestors(dir) {
			if t.has(d, "pom.xml") {
				return Project{}, false // a module of the build above
			}
		}
		p := Project{Dir: dir, Kind: Java, Label: "Maven build (pom.xml)"}
		prop := Proposal{Name: "maven-verify", Command: "./mvnw -B -q -fae verify", Timeout: TestTimeout}
		if !t.has(dir, "mvnw") {
			prop.Command = "mvn -B -q -fae verify"
			prop = prop.need(tools, "mvn", "install Maven, or add the Maven wrapper mvnw")
		}
		p.Proposals = []Proposal{prop}
		return p, true
	}
	marker, ok := t.hasAny(dir, gradleFiles...)
	if !ok {
		return Project{}, false
	}
	for _, d := range ancestors(dir) {
		if _, ok := t.hasAny(d, gradleFiles...); ok {
			return Project{}, false // a subproject of the build above
		}
	}
	p := Project{Dir: dir, Kind: Java, Label: fmt.Sprintf("Gradle build (%s)", marker)}
	prop := Proposal{Name: "gradle-check", Command: "./gradlew check --continue --console=plain -q", Timeout: TestTimeout}
	if !t.has(dir, "gradlew") {
		prop.Command = "gradle check --continue --console=plain -q"
		prop = prop.need(tools, "gradle", "install Gradle, or add the Gradle wrapper gradlew")
	}
	p.Proposals = []Proposal{prop}
	return p, true
}

// Make ----------------------------------------------------------------------

// makeTargets are the Makefile targets proposed as checks, in order.
var makeTargets = []struct {
	name     string
	parallel bool
	timeout  time.Duration
}{{"test", false, TestTimeout}, {"lint", true, LintTimeout}, {"check", false, TestTimeout}}

// makeRuleRE matches a rule line: targets, then ':' that is not ':='.
var makeRuleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_.\- ]+?)\s*::?(?:[^=]|$)`)
})

func detectMake(_ context.Context, t *tree, dir string, tools Tools) (Project, bool) {
	file, ok := t.hasAny(dir, "GNUmakefile", "makefile", "Makefile")
	if !ok {
		return Project{}, false
	}
	targets := map[string]bool{}
	for _, line := range strings.Split(t.read(dir, file), "\n") {
		if m := makeRuleRE().FindStringSubmatch(line); m != nil {
			for _, name := range strings.Fields(m[1]) {
				targets[name] = true
			}
		}
	}
	p := Project{Dir: dir, Kind: Make, Label: fmt.Sprintf("Makefile (%s)", file)}
	for _, mt := range makeTargets {
		if !targets[mt.name] || (mt.name == "check" && targets["test"]) {
			continue // `make check` usually runs the tests again
		}
		p.Proposals = append(p.Proposals, Proposal{Name: "make-" + mt.name, Command: "make -k " + mt.name,
			Parallel: mt.parallel, Timeout: mt.timeout}.need(tools, "make", "install it"))
	}
	if len(p.Proposals) == 0 {
		return Project{}, false
	}
	return p, true
}
