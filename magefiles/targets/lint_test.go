package targets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCrossProblems pins that lint vets every module of the workspace,
// tests included, for each release OS and build tag set, in one go command
// over the modules: a test file using a Unix-only syscall (as ten did
// before Windows was fixed) is reported for Windows, once per tag set,
// though the module builds everywhere, and whichever module of the
// workspace holds it.
func TestCrossProblems(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Unix-only test file is this system's own")
	}
	var out, errOut bytes.Buffer
	oldOut, oldErr := Out, Err
	Out, Err = &out, &errOut
	defer func() { Out, Err = oldOut, oldErr }()
	root := t.TempDir()
	mods := []string{"a", "m"}
	t.Setenv("GOWORK", filepath.Join(root, "go.work"))
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.work", "go 1.25\n\nuse (\n\t./a\n\t./m\n)\n")
	for _, m := range mods {
		write(m+"/go.mod", "module example.com/"+m+"\n\ngo 1.25\n")
		write(m+"/"+m+".go", "// Package "+m+" is portable.\npackage "+m+"\n")
	}
	ctx := context.Background()
	if got := crossProblems(ctx, root, mods); len(got) != 0 {
		t.Fatalf("portable modules: %q\n%s", got, errOut.String())
	}

	for _, m := range mods {
		write(m+"/"+m+"_test.go", "package "+m+"\n\nimport (\n\t\"syscall\"\n\t\"testing\"\n)\n\nfunc TestFIFO(t *testing.T) { _ = syscall.Mkfifo }\n")
		var want []string
		for _, tags := range lintTags {
			want = append(want, "go "+strings.Join(withTags([]string{"vet"}, tags, mods), " ")+" failed for windows")
		}
		if got := crossProblems(ctx, root, mods); !slices.Equal(got, want) {
			t.Errorf("a Unix-only test file in %s: %q, want %q\n%s", m, got, want, errOut.String())
		}
		if err := os.Remove(filepath.Join(root, m, m+"_test.go")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommentCitations pins the outside-citation check on each form a
// citation of an outside document takes, on one line or across the lines
// of a comment, in line and block comments, and on the words that only
// look alike; code and string literals are not comments.
func TestCommentCitations(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string // "LINE WORDS" of each problem
	}{
		{"design notes with a section", "// Statuses (DESIGN.md §2).\n", []string{"3 DESIGN.md §2"}},
		{"design notes, short form", "// The project root (DESIGN §4.3).\n", []string{"3 DESIGN §4.3"}},
		{"upstream description", "// Defaults (reference/UPSTREAM.md).\n", []string{"3 UPSTREAM.md"}},
		{"a section sign alone", "// per §6.6 of the upstream sheet\n", []string{"3 §6.6"}},
		{"an issue number", "// The result cache (issue 16) plugs in here.\n", []string{"3 issue 16"}},
		{"an issue number with #", "// fixed in Issue #7\n", []string{"3 Issue #7"}},
		{"issues", "// see issues 12 and 18\n", []string{"3 issues 12"}},
		{"the seeds", "// do not block it (seeds: infrastructure errors)\n", []string{"3 seeds"}},
		{"a seed by number", "// as seed 001 says\n", []string{"3 seed 001"}},
		{"a seed by quoted number", "// overruled by seed `000`\n", []string{"3 seed `000"}},
		{"a seed scenario", "// the seed scenario holds\n", []string{"3 seed scenario"}},
		{"the seed's", "// the seed's loop guard\n", []string{"3 the seed's"}},
		{"the seeds folder", "// read seeds/002 first\n", []string{"3 seeds/"}},
		{"across two lines", "// The result cache (issue\n// 16) plugs in here.\n", []string{"3 issue 16"}},
		{"split before the section", "// below the top level (DESIGN\n// §4.3) sees\n", []string{"3 DESIGN §4.3"}},
		{"in a block comment", "/* Statuses, DESIGN.md */\n", []string{"3 DESIGN.md"}},
		{"two in one group", "// issue 12 and\n// UPSTREAM.md\n", []string{"3 issue 12", "4 UPSTREAM.md"}},
		{"a fuzz seed corpus", "// The seed corpus is in testdata/fuzz.\n", nil},
		{"an index seeded", "// an index is only ever used with the seed it was made from,\n// seeded again when it changes\n", nil},
		{"an identifier", "// removeOtherSeeds removes the others.\n", nil},
		{"an issue of a review", "// the violation's issue text, and issues without numbers\n", nil},
		{"this repository's files", "// docs/design.md, The stop hook's decision order.\n", nil},
		{"the TypeScript tool", "// as the TypeScript tool does, without upstream's bugs\n", nil},
		{"a string literal", "var s = \"DESIGN.md §2, issue 16\"\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := commentCitations("x.go", []byte("package x\n\n"+tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d problem(s) citing %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				line, words, _ := strings.Cut(w, " ")
				if !strings.HasPrefix(got[i], "x.go:"+line+": ") || !strings.Contains(got[i], "("+strconv.Quote(words)+")") {
					t.Errorf("problem %d: %q, want x.go:%s citing %q", i, got[i], line, words)
				}
			}
		})
	}
}

// TestCitationProblems pins which files the check reads: every Go file of
// the directories, tests included, with the line of the citation; not
// those in testdata or hidden directories, nor other files.
func TestCitationProblems(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"m/a.go":                "package m\n\n// As DESIGN.md says.\nfunc A() {}\n",
		"m/a_test.go":           "package m\n\nimport \"testing\"\n\n// TestA pins issue 3.\nfunc TestA(t *testing.T) {}\n",
		"m/sub/b.go":            "// Package sub is fine.\npackage sub\n",
		"m/testdata/fixture.go": "package fixture // issue 9\n",
		"m/.hidden/c.go":        "package c // issue 9\n",
		"m/notes.md":            "issue 9\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := citationProblems(root, []string{"m"})
	want := []string{
		`m/a.go:3: comment cites a document outside the repository ("DESIGN.md"): cite a file of the repository or state the fact`,
		`m/a_test.go:5: comment cites a document outside the repository ("issue 3"): cite a file of the repository or state the fact`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
