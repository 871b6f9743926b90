package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAddOthers(t *testing.T) {
	many := map[string]string{}
	for i := range maxOtherFiles + 5 {
		many[fmt.Sprintf(".gauntlet/data/f%03d.txt", i)] = "x"
	}
	big := strings.Repeat("b", maxOtherBytes/2+1)
	huge := strings.Repeat("h", maxOtherBytes+1)
	tooBig := strings.Repeat("t", maxFileSize+1)
	firstN := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf(".gauntlet/data/f%03d.txt", i))
		}
		return out
	}
	// Every file of .gauntlet/ is in the copy: whole within the bounds,
	// as a digest past them (never left out unseen, so that an edit of it
	// still differs from the trusted copy).
	for _, tc := range []struct {
		name         string
		files        map[string]string
		logDir       string
		whole, other []string
	}{
		{"a helper script and nested data", map[string]string{".gauntlet/checks/lint.sh": "exit 1", ".gauntlet/a/b/c.txt": "c"}, "gauntlet_logs",
			[]string{".gauntlet/a/b/c.txt", ".gauntlet/checks/lint.sh"}, nil},
		{"a log directory under .gauntlet/ is left out", map[string]string{".gauntlet/logs/console.1.log": "l", ".gauntlet/run.sh": "r"}, ".gauntlet/logs",
			[]string{".gauntlet/run.sh"}, nil},
		{"past the count, the rest in name order is a digest", many, "gauntlet_logs",
			firstN(maxOtherFiles), []string{".gauntlet/data/f256.txt", ".gauntlet/data/f257.txt", ".gauntlet/data/f258.txt", ".gauntlet/data/f259.txt", ".gauntlet/data/f260.txt"}},
		{"past the bytes", map[string]string{".gauntlet/a.bin": big, ".gauntlet/b.bin": big, ".gauntlet/c.txt": "c"}, "gauntlet_logs",
			[]string{".gauntlet/a.bin"}, []string{".gauntlet/b.bin", ".gauntlet/c.txt"}},
		{"a script sorting after a data file over the bytes", map[string]string{".gauntlet/a-fixture.dat": huge, ".gauntlet/lint.sh": "! grep -r BAD ."}, "gauntlet_logs",
			nil, []string{".gauntlet/a-fixture.dat", ".gauntlet/lint.sh"}},
		{"a file larger than a file is read", map[string]string{".gauntlet/a.bin": tooBig, ".gauntlet/b.sh": "b"}, "gauntlet_logs",
			[]string{".gauntlet/b.sh"}, []string{".gauntlet/a.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := Files{}
			for p, c := range tc.files {
				all[p] = []byte(c)
			}
			for _, src := range []source{filesSource{files: all}, diskSource{root: writeTree(t, tc.files)}} {
				got := Files{}
				addOthers(src, got, tc.logDir)
				var whole, other []string
				for p, c := range got {
					if strings.HasPrefix(string(c), LeftOutPrefix) {
						other = append(other, p)
					} else {
						whole = append(whole, p)
						if string(c) != tc.files[p] {
							t.Errorf("%T: %s holds %.20q, not the file", src, p, c)
						}
					}
				}
				slices.Sort(whole)
				slices.Sort(other)
				if !slices.Equal(whole, tc.whole) || !slices.Equal(other, tc.other) {
					t.Errorf("%T: whole %d %v, digests %v; want whole %d, digests %v", src, len(whole), whole[:min(len(whole), 5)], other, len(tc.whole), tc.other)
				}
			}
		})
	}
	// An edit of a file held as a digest changes the copy.
	a, b := Files{}, Files{}
	addOthers(filesSource{files: Files{".gauntlet/a.dat": []byte(huge), ".gauntlet/lint.sh": []byte("! grep -r BAD .")}}, a, "")
	addOthers(filesSource{files: Files{".gauntlet/a.dat": []byte(huge), ".gauntlet/lint.sh": []byte("exit 0")}}, b, "")
	if string(a[".gauntlet/lint.sh"]) == string(b[".gauntlet/lint.sh"]) {
		t.Errorf("a script past the bounds, gutted, reads the same in the copy: %q", a[".gauntlet/lint.sh"])
	}
}
