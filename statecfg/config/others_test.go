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
	for _, tc := range []struct {
		name   string
		files  map[string]string
		logDir string
		want   []string
	}{
		{"a helper script and nested data", map[string]string{".gauntlet/checks/lint.sh": "exit 1", ".gauntlet/a/b/c.txt": "c"}, "gauntlet_logs",
			[]string{".gauntlet/a/b/c.txt", ".gauntlet/checks/lint.sh"}},
		{"a log directory under .gauntlet/ is left out", map[string]string{".gauntlet/logs/console.1.log": "l", ".gauntlet/run.sh": "r"}, ".gauntlet/logs",
			[]string{".gauntlet/run.sh"}},
		{"past the count, the rest in name order is left out", many, "gauntlet_logs", nil},
		{"past the bytes", map[string]string{".gauntlet/a.bin": big, ".gauntlet/b.bin": big, ".gauntlet/c.txt": "c"}, "gauntlet_logs",
			[]string{".gauntlet/a.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := Files{}
			for p, c := range tc.files {
				all[p] = []byte(c)
			}
			for _, src := range []source{filesSource{files: all}, diskSource{root: writeTree(t, tc.files)}} {
				got := Files{}
				addOthers(src, got, tc.logDir)
				var names []string
				for p := range got {
					names = append(names, p)
				}
				slices.Sort(names)
				want := tc.want
				if want == nil {
					for i := range maxOtherFiles {
						want = append(want, fmt.Sprintf(".gauntlet/data/f%03d.txt", i))
					}
				}
				if !slices.Equal(names, want) {
					t.Errorf("%T: got %d files %v, want %d", src, len(names), names[:min(len(names), 5)], len(want))
				}
			}
		})
	}
}
