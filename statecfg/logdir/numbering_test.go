package logdir

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// runNumberWords are the number parts a person or the agent may give a
// name in the log directory: numbers near every bound a run number could
// overflow at, past int64, negative, with leading zeros, in other scripts'
// digits, empty.
var runNumberWords = []string{
	"0", "1", "2", "9", "10", "007",
	strconv.Itoa(math.MaxInt32), strconv.Itoa(math.MaxInt32 + 1),
	strconv.Itoa(maxCountedRun - 1), strconv.Itoa(maxCountedRun), strconv.Itoa(maxCountedRun + 1),
	strconv.Itoa(math.MaxInt - 1), strconv.Itoa(math.MaxInt),
	"9223372036854775808", "99999999999999999999999999",
	"-1", "-9223372036854775808", "+5", "1e9", "٣", "１２", "",
}

// runNumberStems are the parts before the number: the gauntlet's own
// formats and names that only look like them.
var runNumberStems = []string{
	"console", "check_src_lint", "review_src_qa_claude@1", "review_src_qa_claude@01",
	"console.", "notes", "con sole",
}

// Whatever names a person or the agent gives files in the log directory,
// the next run can be numbered: NextRunNumber answers with no error a
// number from 1 on, far from overflowing (the run after it can be numbered
// too), whose names (console, check and review logs, review JSON) are all
// free, so no existing file is ever opened as the run's own. And the run
// after it, its files written, numbers past them.
func TestNextRunNumberAnyNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir := filepath.Join(os.TempDir(), "gauntlet-numbering-"+strconv.Itoa(os.Getpid()))
		_ = os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		names := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string {
			stem := rapid.SampledFrom(runNumberStems).Draw(t, "stem")
			num := rapid.OneOf(rapid.SampledFrom(runNumberWords),
				rapid.Map(rapid.Int64(), func(n int64) string { return strconv.FormatInt(n, 10) })).Draw(t, "number")
			ext := rapid.SampledFrom([]string{".log", ".json", ".log.log", ""}).Draw(t, "ext")
			return stem + "." + num + ext
		}), 0, 12).Draw(t, "names")
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Lstat(p); err == nil {
				continue // a name drawn twice
			}
			var err error
			if rapid.Bool().Draw(t, "directory") {
				err = os.MkdirAll(p, 0o755)
			} else {
				err = os.WriteFile(p, []byte("mine"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		last := 0
		for round := range 3 {
			n, err := NextRunNumber(dir)
			if err != nil {
				t.Fatalf("round %d: NextRunNumber: %v", round, err)
			}
			if n < 1 || n > math.MaxInt/2+len(names)+round+1 {
				t.Fatalf("round %d: NextRunNumber = %d with %q", round, n, names)
			}
			if n <= last {
				t.Fatalf("round %d: NextRunNumber = %d, not past the run before's %d", round, n, last)
			}
			own := []Name{ConsoleName(n), {Kind: KindJobLog, Stem: "check_src_lint", Run: n},
				{Kind: KindSlotLog, Stem: "review_src_qa", Adapter: "claude", Slot: 1, Run: n},
				{Kind: KindSlotJSON, Stem: "review_src_qa", Adapter: "claude", Slot: 1, Run: n}}
			for _, name := range own {
				if _, err := os.Lstat(name.Path(dir)); err == nil {
					t.Fatalf("round %d: NextRunNumber = %d: %s is taken (names %q)", round, n, name, names)
				}
			}
			// The run writes its console log and a check log.
			for _, name := range own[:2] {
				if err := os.WriteFile(name.Path(dir), []byte("run"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			last = n
		}
	})
}
