// Package stack finds the projects in a directory tree (Go modules, Node
// packages, Python projects, Rust crates, Maven and Gradle builds, Makefiles)
// and proposes, for each, the checks its own tools already define: the
// commands `agent-gauntlet init` proves on the tree before it writes them.
//
// Detection reads only files; whether a tool is installed is asked of a
// Tools value, so that the proposals say which tool would enable a check
// that cannot run here.
package stack

import (
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Kind is a kind of project.
type Kind string

// The kinds of project Detect knows, in the order their checks are listed.
const (
	Go     Kind = "go"
	Node   Kind = "node"
	Python Kind = "python"
	Rust   Kind = "rust"
	Java   Kind = "java"
	Make   Kind = "make"
)

// kindOrder is the order of kinds within one directory.
var kindOrder = []Kind{Go, Node, Python, Rust, Java, Make}

// Timeouts of the proposed checks, by what they do. They bound the trial at
// init and are written as the check's timeout: below the stop hook's own
// deadline (540 s for the default 600 s hook timeout), so that a check that
// hangs fails as a timeout the agent can see.
const (
	TestTimeout   = 300 * time.Second
	LintTimeout   = 300 * time.Second
	FormatTimeout = 120 * time.Second
)

// Project is one detected project: a directory and the kind of project the
// files in it make.
type Project struct {
	// Dir is the project directory, slash-separated and relative to the
	// root ("." for the root itself).
	Dir string
	// Kind is what kind of project it is.
	Kind Kind
	// Label describes it for people: "Go module (go.mod)".
	Label string
	// Proposals are the checks proposed for it, in order.
	Proposals []Proposal
}

// Proposal is one proposed check.
type Proposal struct {
	// Name is the check gate's name (its file name without .yml).
	Name string
	// Command is the check's command, run in the project directory.
	Command string
	// Glob is the check's glob: the changed files it receives
	// (${CHANGED_FILES}) are narrowed to those matching one pattern.
	Glob []string
	// Shown describes a long command in one line for progress and
	// questions ("" when Command is short enough to show).
	Shown string
	// Parallel places the check in the parallel lane (linters and other
	// read-only checks); tests run in the sequential lane, one at a time.
	Parallel bool
	// Timeout is the check's timeout.
	Timeout time.Duration
	// Missing, when not empty, names what is not installed and would enable
	// the check ("golangci-lint", "pnpm"); such a proposal cannot be tried.
	Missing string
	// Hint says how to get what is missing, as an imperative phrase
	// ("install it: https://golangci-lint.run"); "" when nothing is missing.
	Hint string
	// Format is the format of the command's output, written as the
	// check's format so that its findings are read by name and place
	// (a runner/findings format); "" when it is plain text.
	Format string
}

// Tools tells detection what the machine has.
type Tools interface {
	// Has reports whether an executable is on PATH.
	Has(name string) bool
	// Probe runs a shell command in dir (absolute), bounded, and reports
	// whether it exited 0.
	Probe(ctx context.Context, dir, command string) bool
}

// MaxDepth is how many directory levels below the root Detect looks into
// for projects ("a/b/c" is depth 3).
const MaxDepth = 3

// MaxProjects bounds the projects Detect returns: beyond it, a monorepo's
// projects are better listed by hand (or with a wildcard entry point).
const MaxProjects = 24

// skippedDirs are directories that never hold a project of their own: tool
// output, dependencies and test fixtures.
var skippedDirs = map[string]bool{
	"node_modules": true, "vendor": true, "testdata": true, "target": true, "build": true,
	"dist": true, "out": true, "__pycache__": true, "venv": true, "env": true, "site-packages": true,
}

// Skipped reports whether a directory named name is never looked into:
// hidden directories, names starting with "_" (ignored by the go tool too)
// and the skippedDirs.
func Skipped(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || skippedDirs[name]
}

// Walk lists the files below root (slash-separated, relative to root) as
// Detect wants them, for a tree that is not a git work tree: directories
// that Skipped names and those deeper than MaxDepth are not entered.
func Walk(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: not a project
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (Skipped(d.Name()) || strings.Count(rel, "/") >= MaxDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files, err
}

// Detect finds the projects among files (slash-separated paths relative to
// root, as git ls-files prints them) and proposes their checks. Files in
// directories that Skipped names, or deeper than MaxDepth, are ignored.
// Projects come sorted by directory ("." first), then by kind.
func Detect(ctx context.Context, root string, files []string, tools Tools) []Project {
	t := newTree(root, files)
	var out []Project
	for _, dir := range t.dirs() {
		if ctx.Err() != nil {
			break
		}
		var here []Project
		for _, k := range kindOrder {
			if k == Make && len(here) > 0 {
				continue // the stack's own commands, not a Makefile's wrappers
			}
			if p, ok := detectors[k](ctx, t, dir, tools); ok {
				here = append(here, p)
			}
		}
		out = append(out, here...)
		if len(out) >= MaxProjects {
			out = out[:MaxProjects]
			break
		}
	}
	return out
}

// detectors find one kind of project in a directory.
var detectors = map[Kind]func(ctx context.Context, t *tree, dir string, tools Tools) (Project, bool){
	Go: detectGo, Node: detectNode, Python: detectPython, Rust: detectRust, Java: detectJava, Make: detectMake,
}

// tree is the file list Detect works on.
type tree struct {
	root  string
	files map[string]bool
	// byDir lists the file names in each directory.
	byDir map[string][]string
}

func newTree(root string, files []string) *tree {
	t := &tree{root: root, files: map[string]bool{}, byDir: map[string][]string{}}
	for _, f := range files {
		f = path.Clean(filepath.ToSlash(f))
		dir := path.Dir(f)
		if !t.visible(dir) {
			continue
		}
		t.files[f] = true
		t.byDir[dir] = append(t.byDir[dir], path.Base(f))
	}
	return t
}

// visible reports whether dir is looked into: within MaxDepth, and no
// element of it skipped.
func (t *tree) visible(dir string) bool {
	if dir == "." {
		return true
	}
	parts := strings.Split(dir, "/")
	if len(parts) > MaxDepth {
		return false
	}
	return !slices.ContainsFunc(parts, Skipped)
}

// dirs returns the directories holding files, sorted with "." first.
func (t *tree) dirs() []string {
	var ds []string
	for d := range t.byDir {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i] == "." || ds[j] == "." {
			return ds[i] == "."
		}
		return ds[i] < ds[j]
	})
	return ds
}

// has reports whether dir holds the file name.
func (t *tree) has(dir, name string) bool { return t.files[join(dir, name)] }

// hasAny reports whether dir holds one of names, and returns the first.
func (t *tree) hasAny(dir string, names ...string) (string, bool) {
	for _, n := range names {
		if t.has(dir, n) {
			return n, true
		}
	}
	return "", false
}

// read returns the content of dir/name ("" when unreadable), at most 1 MiB.
func (t *tree) read(dir, name string) string {
	f, err := os.Open(t.abs(join(dir, name)))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// abs is the absolute path of a slash path relative to the root.
func (t *tree) abs(rel string) string { return filepath.Join(t.root, filepath.FromSlash(rel)) }

// exists reports whether the slash path rel exists on disk (tracked or not).
func (t *tree) exists(rel string) bool {
	_, err := os.Stat(t.abs(rel))
	return err == nil
}

// ancestors returns dir's proper ancestors, nearest first, "." last.
func ancestors(dir string) []string {
	var out []string
	for dir != "." {
		dir = path.Dir(dir)
		out = append(out, dir)
	}
	return out
}

// join joins a directory and a name into a slash path.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
