package findings

import (
	"os"
	"path/filepath"
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
		{"main.f(0xc000012345, 0x1f)", "main.f(0x<addr>, 0x1f)"},
		{"2024-05-01T12:30:45.123Z ERROR x", "2024-05-01T12:N:N.123Z ERROR x"}, // not the clock: see TestNormalizerValues
		{"at 12:30:45 error", "at <time> error"},
		{"/tmp/go-build123456/b001/x.go:3: error", "<tmp>/b001/x.go:N: error"},
		{tmp + "/TestFoo987/001/out.txt: error", "<tmp>/001/out.txt: error"},
		{`File "x.py", line 12, in f`, `File "x.py", line N, in f`},
		{"src/a.ts(12,5): error TS2322", "src/a.ts(N,N): error TS2322"},
		{"  lots   of\t\tblanks  ", "lots of blanks"},
		{"FAIL test_worker: worker pid 15399 crashed", "FAIL test_worker: worker pid N crashed"},
		{"request e093e723-1f2f-43fc-a570-4da89d08f896 failed", "request e093e723-1f2f-43fc-a570-4da89d08f896 failed"},
		{"random seed 305180176 produced a mismatch", "random seed N produced a mismatch"},
		{"listen on port=45678: refused", "listen on port=N: refused"},
		{"blob 9f8e7d6c5b4a39281706 missing", "blob 9f8e7d6c5b4a39281706 missing"},
		{"wrote /var/tmp/x and tmpab12cd9z.json", "wrote <tmp> and <tmp>.json"},
		{"expected 3, got 4", "expected 3, got 4"},
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
		{"FAIL", false},
		{"== 1 failed, 2 passed in <dur> ==", false},
		{"test result: FAILED. 1 passed; 1 failed; 0 ignored", false},
		{"Tests: 1 failed, 2 passed, 3 total", false},
		{"Tests run: 3, Failures: 1, Errors: 0, Skipped: 0", false},
		{"Found 2 errors in 1 file (checked 2 source files)", false},
		{"Your code has been rated at 8.75/10 (previous run: 8.00/10, +0.75)", false},
		{"FAIL example.com/mask <dur>", false},
		{"make: *** [Makefile:N: test-a] Error 1", true},
		{"a.go:N:N: 2 errors in this call", true},
		{"Error: something", true},
		{"x.py, line N, in f", true},
		{"✗ 3 problems", false},
		{"✗ boom", true},
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
