package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestLoadScopeProblems(t *testing.T) {
	const lint = ".gauntlet/checks/lint.yml"
	check := func(s string) map[string]string { return map[string]string{lint: s} }
	runProblemCases(t, []problemCase{
		{"glob reversed range", check("command: x\nglob: '[z-a].go'\n"), []string{
			lint + `: glob: invalid glob "[z-a].go": the range "z-a" in the class "[z-a]" is reversed`,
		}},
		{"glob list item", check("command: x\nglob: ['*.go', '[!]x']\n"), []string{
			lint + `: glob[1]: invalid glob "[!]x": the class "[!]" is empty`,
		}},
		{"glob empty list", check("command: x\nglob: []\n"), []string{
			lint + ": glob: must name at least one pattern (leave it out to take every changed file)",
		}},
		{"glob empty string", check("command: x\nglob: ' '\n"), []string{lint + ": glob: must not be empty"}},
		{"glob type", check("command: x\nglob: 3\n"), []string{lint + ": glob: must be a string or a list of strings"}},
		{"glob item type", check("command: x\nglob: ['*.go', 3]\n"), []string{lint + ": glob[1]: must be a non-empty string"}},
		{"baseline type", check("command: x\nbaseline: yes please\n"), []string{lint + ": baseline: must be true or false"}},
		{"placeholder quoted", check("command: 'gofmt -l \"${CHANGED_FILES}\"'\n"), []string{
			lint + ": command: ${CHANGED_FILES} must not stand inside quotes or ${...}: it becomes one quoted word per file",
		}},
		{"placeholder glued", check("command: 'gofmt -l x${CHANGED_FILES}'\n"), []string{
			lint + ": command: ${CHANGED_FILES} must be a word of its own (blanks around it): it becomes one quoted word per file",
		}},
		{"project baseline type", map[string]string{".gauntlet/config.yml": minimalConfig + "baseline: 1\n"}, []string{
			".gauntlet/config.yml: baseline: must be true or false",
		}},
	})
}

func TestLoadScope(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":       minimalConfig + "baseline: true\n",
		".gauntlet/checks/fmt.yml":   "command: gofmt -l ${CHANGED_FILES}\nglob: '*.go'\n",
		".gauntlet/checks/lint.yml":  "command: lint\nglob: ['*.ts', 'web/**/*.tsx']\nbaseline: false\n",
		".gauntlet/checks/test.yml":  "command: go test ./...\n",
		".gauntlet/checks/list.yml":  "command: xargs -0 wc -l < \"$GAUNTLET_CHANGED_FILES_FILE\"\n",
		".gauntlet/checks/typo.yml":  "command: echo $CHANGED_FILES\n",
		".gauntlet/checks/typo2.yml": "command: echo ${CHANGED_FILES:-none}\n",
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		glob             []string
		baseline, scoped bool
	}{
		"fmt":  {[]string{"*.go"}, true, true},
		"lint": {[]string{"*.ts", "web/**/*.tsx"}, false, true},
		"test": {nil, true, false},
		"list": {nil, true, true},
	} {
		c := cfg.Checks[name]
		if !reflect.DeepEqual(c.Glob, want.glob) || c.Baseline != want.baseline || c.Scoped() != want.scoped {
			t.Errorf("%s: glob %q baseline %v scoped %v, want %+v", name, c.Glob, c.Baseline, c.Scoped(), want)
		}
	}
	if !cfg.Checks["fmt"].UsesChangedFiles() || cfg.Checks["list"].UsesChangedFiles() {
		t.Error("UsesChangedFiles")
	}
	var lookalikes int
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "only the exact ${CHANGED_FILES} is replaced") {
			lookalikes++
		}
	}
	if lookalikes != 2 {
		t.Errorf("want a warning for each $CHANGED_FILES look-alike: %q", cfg.Warnings)
	}
}

func TestMatchesGlob(t *testing.T) {
	for _, tc := range []struct {
		globs []string
		rel   string
		want  bool
	}{
		{nil, "anything", true},
		{[]string{"*.go"}, "main.go", true},
		{[]string{"*.go"}, "cmd/x/main.go", true},
		{[]string{"*.go"}, "main.go.txt", false},
		{[]string{"*.{ts,tsx}"}, "web/app.tsx", true},
		{[]string{"./*.go"}, "main.go", true},
		{[]string{"./*.go"}, "cmd/main.go", false},
		{[]string{"cmd/**/*.go"}, "cmd/a/b/main.go", true},
		{[]string{"cmd/**/*.go"}, "pkg/main.go", false},
		{[]string{"*.md", "*.go"}, "x/y.go", true},
		{[]string{"Makefile"}, "sub/Makefile", true},
		{[]string{"*.go"}, "../shared/x.go", true},
	} {
		for _, loaded := range []bool{true, false} {
			c := &Check{Glob: tc.globs}
			if loaded {
				f := (&collector{}).file("x")
				o := f.top(map[string]any{})
				parseGlobs(o, c, tc.globs)
				c.Glob = tc.globs
			}
			if got := c.MatchesGlob(tc.rel); got != tc.want {
				t.Errorf("globs %q (loaded %v) match %q = %v, want %v", tc.globs, loaded, tc.rel, got, tc.want)
			}
		}
	}
}

func TestPlaceholderProblem(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want string // a part of the problem, "" for none
	}{
		{"gofmt -l ${CHANGED_FILES}", ""},
		{"${CHANGED_FILES}", ""},
		{"eslint ${CHANGED_FILES} | tee out;", ""},
		{"x=$(gofmt -l ${CHANGED_FILES}) && test -z \"$x\"", ""},
		{"test -z \"$(gofmt -l ${CHANGED_FILES})\"", ""},
		{"for f in ${CHANGED_FILES}; do wc -l \"$f\"; done", ""},
		{"(cd sub && lint ${CHANGED_FILES})", ""},
		{"echo `ls ${CHANGED_FILES}`", ""},
		{"a ${CHANGED_FILES} && b ${CHANGED_FILES}", ""},
		{"echo 'it''s' ${CHANGED_FILES} \"a\\\"b\"", ""},
		{"echo \\' ${CHANGED_FILES}", ""},
		{"gofmt -l \"${CHANGED_FILES}\"", "inside quotes"},
		{"gofmt -l '${CHANGED_FILES}'", "inside quotes"},
		{"echo \"files: $(echo \"${CHANGED_FILES}\")\"", "inside quotes"},
		{"echo ${X:-${CHANGED_FILES}}", "inside quotes or ${...}"},
		{"gofmt -l --files=${CHANGED_FILES}", "word of its own"},
		{"gofmt -l ${CHANGED_FILES}x", "word of its own"},
		{"f=${CHANGED_FILES}", "word of its own"},
		{"lint # ${CHANGED_FILES}", "comment"},
		{"lint\n# check ${CHANGED_FILES}\nlint ${CHANGED_FILES}", "comment"},
		{"cat <<EOF\n${CHANGED_FILES}\nEOF", "here-document"},
		{"echo a#${CHANGED_FILES}", "word of its own"},
	} {
		got := placeholderProblem(tc.cmd)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("placeholderProblem(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func FuzzPlaceholderProblem(f *testing.F) {
	for _, s := range []string{"a ${CHANGED_FILES}", "\"$(\\", "'", "${", "`${CHANGED_FILES}`", "# x\n<<", "$((1<<2)) ${CHANGED_FILES}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if msg := placeholderProblem(cmd); strings.ContainsAny(msg, "\n\r") {
			t.Errorf("problem is not one line: %q", msg)
		}
	})
}
