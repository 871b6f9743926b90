package baseline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizerLine(t *testing.T) {
	n := NewNormalizer("/home/me/proj", "/tmp/agent-gauntlet-base-123/tree")
	tmp := filepath.Clean(os.TempDir())
	for _, tc := range []struct{ in, want string }{
		{"help_test.go:26:2: struct field tag `required` not compatible", "help_test.go:N:N: struct field tag `required` not compatible"},
		{"./help_test.go:26:2: bad", "help_test.go:N:N: bad"},
		{"/home/me/proj/pkg/a.go:12:5: undefined: x", "pkg/a.go:N:N: undefined: x"},
		{"/tmp/agent-gauntlet-base-123/tree/pkg/a.go:99:1: undefined: x", "pkg/a.go:N:N: undefined: x"},
		{"in /home/me/proj", "in ."},
		{"\x1b[31merror\x1b[0m: boom\r\n", "error: boom"},
		{"--- FAIL: TestX (0.03s)", "--- FAIL: TestX (<dur>)"},
		{"FAIL\tgithub.com/x/y\t1.234s", "FAIL github.com/x/y <dur>"},
		{"took 1m30.5s and 250ms", "took <dur> and <dur>"},
		{"panic: boom [recovered] goroutine 17 [running]:", "panic: boom [recovered] goroutine N [running]:"},
		{"main.f(0xc000012345, 0x1f)", "main.f(0x<addr>, 0x<addr>)"},
		{"2024-05-01T12:30:45.123Z ERROR x", "<time> ERROR x"},
		{"at 12:30:45 error", "at <time> error"},
		{"/tmp/go-build123456/b001/x.go:3: error", "<tmp>/b001/x.go:N: error"},
		{tmp + "/TestFoo987/001/out.txt: error", "<tmp>/001/out.txt: error"},
		{`File "x.py", line 12, in f`, `File "x.py", line N, in f`},
		{"src/a.ts(12,5): error TS2322", "src/a.ts(N,N): error TS2322"},
		{"  lots   of\t\tblanks  ", "lots of blanks"},
	} {
		if got := n.Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsErrorLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"help_test.go:N:N: struct field tag `required` not compatible", true},
		{"--- FAIL: TestX (<dur>)", true},
		{"FAIL", true},
		{"Error: something", true},
		{"x.py, line N, in f", true},
		{"✗ 3 problems", true},
		{"ok github.com/x/y <dur>", false},
		{"# github.com/x/y", false},
		{"PASS", false},
		{"", false},
		{"Downloading dependencies...", false},
	} {
		if got := IsErrorLine(tc.line); got != tc.want {
			t.Errorf("IsErrorLine(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// fp fingerprints output as a check run in root would print it.
func fp(t *testing.T, root string, code int, out string) Fingerprint {
	t.Helper()
	f, err := Scan(strings.NewReader(out), code, NewNormalizer(root))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCompare(t *testing.T) {
	const base = "a.go:10:2: old problem\nb.go:3:1: another old one\nok pkg 0.1s\n"
	for _, tc := range []struct {
		name string
		code int
		out  string
		pre  bool
		why  string
		new  []string
	}{
		{"the same failure", 1, base, true, "prints every one of its 2 error lines", nil},
		{"moved lines, other durations, absolute paths", 1, "/w/a.go:14:2: old problem\nok pkg 3.5s\nok newpkg 0.2s\n./b.go:9:1: another old one\n", true, "", nil},
		{"one old error fixed", 1, "a.go:10:2: old problem\n", true, "", nil},
		{"a new error", 1, base + "c.go:1:1: new problem\n", false, "1 of its 3 error lines is new", []string{"c.go:N:N: new problem"}},
		{"a changed error", 1, "a.go:10:2: old problem, worse\n", false, "1 of its 1 error lines is new", []string{"a.go:N:N: old problem, worse"}},
		{"another exit code", 2, base, false, "exits with code 2, and with code 1 on the base", nil},
		{"no error line", 1, "nothing to see\n", false, "no error line", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(fp(t, "/w", tc.code, tc.out), fp(t, "/base/tree", 1, base))
			if c.PreExisting != tc.pre || !strings.Contains(c.Reason, tc.why) || fmt.Sprint(c.New) != fmt.Sprint(tc.new) {
				t.Errorf("Compare = %+v, want pre-existing %v, reason with %q, new %q", c, tc.pre, tc.why, tc.new)
			}
		})
	}
}

func TestScanBounds(t *testing.T) {
	var b strings.Builder
	for i := range MaxLines + 5 {
		fmt.Fprintf(&b, "error number %d\n", i) // digits not after ':' stay
	}
	many := fp(t, "/w", 1, b.String())
	if !many.Overflow || many.Lines() != 0 {
		t.Errorf("overflow %v with %d lines", many.Overflow, many.Lines())
	}
	if c := Compare(many, many); c.PreExisting || !strings.Contains(c.Reason, "too many") {
		t.Errorf("an overflowing fingerprint compares: %+v", c)
	}
	long := "error: " + strings.Repeat("x", 100_000) + "\nerror: after\n"
	f := fp(t, "/w", 1, long)
	if f.Lines() != 2 {
		t.Errorf("long line: %d lines %q", f.Lines(), f.Texts())
	}
	for _, s := range f.Texts() {
		if len([]rune(s)) > shownRunes {
			t.Errorf("a kept text has %d runes", len([]rune(s)))
		}
	}
}
