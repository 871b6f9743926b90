package findings

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one directory of testdata/corpus: a check's real outputs
// on a base tree and a work tree (captured by capture.sh), and what the
// comparison must say.
type corpusCase struct {
	dir     string
	command string
	junit   string
	want    string   // "new", "pre-existing", "unverified" or "nothing" (to compare)
	stopped []string // units that stop before the rerun
	rerun   string   // the rerun command PlanRerun must make
	norerun string   // or what PlanRerun's error must say
	news    []string // each must be in the Title of one new finding
	roots   [2]string
}

func loadCase(t *testing.T, dir string) corpusCase {
	t.Helper()
	c := corpusCase{dir: dir}
	f, err := os.Open(filepath.Join(dir, "case.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, _ := strings.Cut(s.Text(), ": ")
		switch k {
		case "command":
			c.command = v
		case "junit":
			c.junit = v
		case "want":
			c.want = v
		case "stopped":
			c.stopped = append(c.stopped, v)
		case "rerun":
			c.rerun = v
		case "norerun":
			c.norerun = v
		case "new":
			c.news = append(c.news, v)
		}
	}
	roots := strings.Fields(read(t, filepath.Join(dir, "out", "roots.txt")))
	copy(c.roots[:], roots)
	return c
}

// ident is how case.txt names a new finding: "test <suite> <name>", or
// "<file>:<line> [<rule> ]<message>".
func ident(f Finding) string {
	if f.Kind == KindTest {
		return "test " + f.Suite + " " + f.Test
	}
	r := ""
	if f.Rule != "" {
		r = f.Rule + " "
	}
	return fmt.Sprintf("%s:%d %s%s", f.File, f.Line, r, f.Message)
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseSide parses one captured run: side is "base" or "work", run "" or
// ".rerun".
func (c corpusCase) parseSide(t *testing.T, side, run, command string) Result {
	t.Helper()
	out := filepath.Join(c.dir, "out", side+run+".txt")
	code, _ := strconv.Atoi(strings.TrimSpace(read(t, filepath.Join(c.dir, "out", side+run+".exit"))))
	root := c.roots[0]
	if side == "work" {
		root = c.roots[1]
	}
	spec := Spec{Command: command, Dir: ".", Roots: []string{root}, Failed: code != 0}
	if c.junit != "" && run == "" {
		spec.JUnit = []string{filepath.Join(c.dir, "out", side+".junit.xml")}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(spec, f)
}

// caseFile reads the files of one side of a case (the project a capture
// ran in).
func caseFile(dir string) func(string) []string {
	return func(p string) []string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil
		}
		return strings.Split(string(b), "\n")
	}
}

// TestCorpus judges every captured pair of real outputs: the verdict, the
// new findings by identity, and for a run that stopped, the rerun command
// and the verdict once the rerun's results are merged in.
func TestCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "corpus", "*", "case.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	tools := map[string]bool{}
	for _, p := range dirs {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c := loadCase(t, dir)
			tools[Recognize(c.command)] = true
			base := c.parseSide(t, "base", "", c.command)
			work := c.parseSide(t, "work", "", c.command)
			diff := ParseDiff(read(t, filepath.Join(dir, "out", "diff.txt")))
			src := &Sources{Base: caseFile(filepath.Join(dir, "base")), Work: caseFile(filepath.Join(dir, "work"))}
			v := CompareWith(base, work, diff, src)
			if len(c.stopped) > 0 {
				if v.PreExisting || len(v.Unverified) == 0 {
					t.Fatalf("stopped run judged without its stops: %+v", v)
				}
				units := map[string]bool{}
				for _, s := range v.Unverified {
					units[s.Unit] = true
				}
				for _, u := range c.stopped {
					if !units[u] {
						t.Errorf("stop of %s not seen; stops %+v", u, v.Unverified)
					}
				}
				plan, err := PlanRerun(c.command, ".", base, work)
				if c.norerun != "" {
					if err == nil || !strings.Contains(err.Error(), c.norerun) {
						t.Fatalf("PlanRerun = %q, %v; want an error saying %q", plan.Command, err, c.norerun)
					}
					if c.want != "unverified" {
						t.Fatalf("a case without a rerun is unverified")
					}
					return
				}
				if err != nil {
					t.Fatalf("PlanRerun: %v", err)
				}
				if plan.Command != c.rerun {
					t.Fatalf("rerun command\n got %q\nwant %q", plan.Command, c.rerun)
				}
				base = plan.Merge(base, c.parseSide(t, "base", ".rerun", plan.Command))
				work = plan.Merge(work, c.parseSide(t, "work", ".rerun", plan.Command))
				v = CompareWith(base, work, diff, src)
			}
			got := "new"
			switch {
			case v.PreExisting:
				got = "pre-existing"
			case len(v.Unverified) > 0:
				got = "unverified"
			case len(v.New) == 0:
				got = "nothing"
			}
			if got != c.want {
				t.Fatalf("verdict %s (%s), want %s\nbase: %+v\nwork: %+v", got, v.Reason, c.want, base, v.Work)
			}
			for _, w := range c.news {
				found := false
				for _, f := range v.New {
					if strings.HasPrefix(ident(f), w) {
						found = true
					}
				}
				if !found {
					t.Errorf("no new finding %q among %+v", w, v.New)
				}
			}
			if c.want == "new" && len(v.New) == 0 {
				t.Errorf("new without a new finding: %s", v.Reason)
			}
		})
	}
}
