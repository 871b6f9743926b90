package targets

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// lintTags are the build tag sets go vet and staticcheck check every module
// with: none, the end-to-end tests, the install tests, and the tagged
// magefile.
var lintTags = []string{"", "e2e", "installtest", "mage"}

// crossOS are the systems the release archives are built for: every module
// must build there, and go vet (tests included) must pass there with each
// of lintTags.
var crossOS = []string{"linux", "darwin", "windows"}

// Lint checks gofmt, go vet, staticcheck, a build and a go vet of every
// module for each release OS, that go.mod, go.sum and go.work are tidy
// without replace directives (see modProblems), and that no Go comment
// cites a document outside the repository (see citationProblems). go vet
// and staticcheck also run with the e2e, installtest and mage build tags;
// staticcheck is a tool of magefiles/go.mod.
func Lint(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	var problems []string
	unformatted, err := output(ctx, root, "gofmt", append(append([]string{"-l"}, mods...), toolsModule)...)
	if err != nil {
		return err
	}
	if unformatted != "" {
		problems = append(problems, "not gofmt-formatted:\n"+unformatted)
	}
	problems = append(problems, checkProblems(ctx, root, mods)...)
	problems = append(problems, crossProblems(ctx, root, mods)...)
	problems = append(problems, modProblems(ctx, root)...)
	problems = append(problems, citationProblems(root, append(mods, toolsModule))...)
	if len(problems) > 0 {
		return fmt.Errorf("lint:\n%s", strings.Join(problems, "\n"))
	}
	return nil
}

// checkProblems runs go vet and staticcheck on the modules mods with each
// of lintTags, for this system: one go command over every module (from
// root, the workspace) for each tool and tag set. A go command per module
// loaded the shared dependencies again each time: 43 s against 7 s for a
// go vet of the workspace's five modules with a warm cache.
func checkProblems(ctx context.Context, root string, mods []string) []string {
	var problems []string
	for _, tags := range lintTags {
		for _, tool := range [][]string{{"vet"}, {"tool", "staticcheck"}} {
			args := withTags(tool, tags, mods)
			if err := run(ctx, root, nil, "go", args...); err != nil {
				problems = append(problems, fmt.Sprintf("go %s failed", strings.Join(args, " ")))
			}
		}
	}
	return problems
}

// crossProblems builds the modules mods for each of crossOS and, for each
// one but this system (which checkProblems covers), runs go vet with each
// of lintTags, one go command over every module each time:
// platform-specific code and tests must type-check everywhere a release
// runs.
func crossProblems(ctx context.Context, root string, mods []string) []string {
	var problems []string
	for _, goos := range crossOS {
		env := []string{"GOOS=" + goos, "GOARCH=amd64"}
		if err := run(ctx, root, env, "go", append([]string{"build"}, patterns(mods)...)...); err != nil {
			problems = append(problems, fmt.Sprintf("%s do not build for %s", strings.Join(mods, ", "), goos))
		}
		if goos == runtime.GOOS {
			continue
		}
		for _, tags := range lintTags {
			args := withTags([]string{"vet"}, tags, mods)
			if err := run(ctx, root, env, "go", args...); err != nil {
				problems = append(problems, fmt.Sprintf("go %s failed for %s", strings.Join(args, " "), goos))
			}
		}
	}
	return problems
}

// withTags is the go command tool followed by -tags tags (when tags is not
// empty) and the patterns of every package of the modules mods.
func withTags(tool []string, tags string, mods []string) []string {
	args := append([]string{}, tool...)
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	return append(args, patterns(mods)...)
}

// patterns are the package patterns of every package of the modules mods
// (directories of the workspace root): ./m/... each.
func patterns(mods []string) []string {
	out := make([]string, len(mods))
	for i, m := range mods {
		out[i] = "./" + filepath.ToSlash(m) + "/..."
	}
	return out
}

// outsideCitation matches what a comment must not cite: the documents the
// project was specified from, which are not in the repository (the design
// notes and the description of the TypeScript tool, by file name or with a
// section sign; the specification documents, by their name or folder), and
// issue numbers. TestCommentCitations lists every form. A comment cites a
// file of this repository (docs/design.md, a testscript) or states the fact
// itself; words that only look alike pass (a fuzz seed corpus, an index
// seeded from another, an issue without a number).
var outsideCitation = regexp.MustCompile(strings.Join([]string{
	`\b(DESIGN|UPSTREAM)(\.md\b(\s*` + sectionSign + `)?|\s*` + sectionSign + `)`,
	sectionSign,
	`(?i:\bseeds?/|\bseeds\b|\bseed\s+` + "`?" + `\d{3}|\bseed\s+scenarios?\b|\bthe\s+seed's)`,
	`(?i:\bissues?\s+#?\d+)`,
}, "|"))

// sectionSign is a section sign with the section's number, if any.
const sectionSign = `§(\d+(\.\d+)*)?`

// citationProblems reports every comment of the Go files below the
// directories dirs of root (test files included; testdata and hidden
// directories skipped) that matches outsideCitation, one line each naming
// the file, the line and the words.
func citationProblems(root string, dirs []string) []string {
	var problems []string
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if name := e.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && path != filepath.Join(root, d)) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			found, err := commentCitations(filepath.ToSlash(rel), src)
			problems = append(problems, found...)
			return err
		})
		if err != nil {
			problems = append(problems, fmt.Sprintf("look for outside citations in %s: %v", d, err))
		}
	}
	return problems
}

// commentCitations reports the comments of the Go source src (named name)
// that match outsideCitation. A citation may run across the lines of a
// comment group: the group is matched as one text, the markers that open
// its lines left out and its line breaks kept.
func commentCitations(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, g := range f.Comments {
		texts := make([]string, len(g.List))
		for i, c := range g.List {
			texts[i] = commentMarker.ReplaceAllString(c.Text, "")
		}
		text := strings.Join(texts, "\n")
		for _, loc := range outsideCitation.FindAllStringIndex(text, -1) {
			line := fset.Position(g.Pos()).Line + strings.Count(text[:loc[0]], "\n")
			problems = append(problems, fmt.Sprintf("%s:%d: comment cites a document outside the repository (%q): cite a file of the repository or state the fact",
				name, line, strings.Join(strings.Fields(text[loc[0]:loc[1]]), " ")))
		}
	}
	return problems, nil
}

// commentMarker matches what opens a comment (// or /*) and what closes a
// block comment.
var commentMarker = regexp.MustCompile(`^//|^/\*|\*/$`)

// lineDiff returns the lines of want missing from have ("+") and the lines
// of have missing from want ("-"), indented, for a tidy report.
func lineDiff(have, want []byte) string {
	in := func(b []byte) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			m[l] = true
		}
		return m
	}
	h, w := in(have), in(want)
	var b bytes.Buffer
	for _, l := range strings.Split(string(have), "\n") {
		if !w[l] {
			fmt.Fprintf(&b, "\t-%s\n", l)
		}
	}
	for _, l := range strings.Split(string(want), "\n") {
		if !h[l] {
			fmt.Fprintf(&b, "\t+%s\n", l)
		}
	}
	return b.String()
}
