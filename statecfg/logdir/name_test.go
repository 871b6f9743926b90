package logdir

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Simple ids keep the names the TypeScript tool gave them; every other id
// gets a name of its own.
func TestJobStem(t *testing.T) {
	tests := []struct{ id, want string }{
		{"check:src:lint", "check_src_lint"},
		{"review:.:code-quality", "review_._code-quality"},
		{"check:packages/api:lint", "check_packages_api_lint"},
		{"check:pkg/a:lint", "check_pkg_a_lint"},
		{"check:pkg_a:lint", "check_pkg%5Fa_lint"},
		{"check:src:type_check", "check_src_type%5Fcheck"},
		{"check:docs dir:listing", "check_docs%20dir_listing"},
		{"review:openspec/changes/*/tasks.md:task-review", "review_openspec_changes_%2A_tasks.md_task-review"},
		{"check:a:b:c", "check_a%3Ab_c"},
		{"check:ü:x", "check_%C3%BC_x"},
		{"check:100%:x", "check_100%25_x"},
		{"check::x", "check__x"},
		{"check:a@1:x", "check_a%401_x"},
		{"odd", "odd"},
		{"odd:one", "odd%3Aone"},
	}
	for _, tt := range tests {
		got := JobStem(tt.id)
		if got != tt.want {
			t.Errorf("JobStem(%q) = %q, want %q", tt.id, got, tt.want)
		}
		if back, ok := ParseJobStem(got); strings.Count(tt.id, ":") >= 2 && (!ok || back != tt.id) {
			t.Errorf("ParseJobStem(%q) = %q, %v; want %q", got, back, ok, tt.id)
		}
	}
	// The collision of issue 12: two jobs, two files.
	if JobStem("check:pkg/a:lint") == JobStem("check:pkg_a:lint") {
		t.Fatal("check:pkg/a:lint and check:pkg_a:lint share a file")
	}
}

func TestParseJobStemRejects(t *testing.T) {
	for _, stem := range []string{"check", "check_lint", "check_src%5flint_x", "check_%41_x", "check_%4_x", "check_%zz_x", "check_a%_x", "a b_c_d"} {
		if id, ok := ParseJobStem(stem); ok {
			t.Errorf("ParseJobStem(%q) = %q, want no job", stem, id)
		}
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		file string
		want Name
		ok   bool
	}{
		{"console.3.log", ConsoleName(3), true},
		{"check_src_lint.12.log", JobLogName("check:src:lint", 12), true},
		{"check_pkg%5Fa_lint.1.log", JobLogName("check:pkg_a:lint", 1), true},
		{"review_src_quality_claude@1.2.json", SlotJSONName("review:src:quality", "claude", 1, 2), true},
		{"review_._code-quality_github-copilot@3.1.log", SlotLogName("review:.:code-quality", "github-copilot", 3, 1), true},
		{"review_a%40b_x_codex@2.4.json", SlotJSONName("review:a@b:x", "codex", 2, 4), true},
		// numbered, but in no format of the gauntlet's
		{"console.5.json", Name{Kind: KindOther, Run: 5, other: "console.5.json"}, true},
		{"check_lint.1.log", Name{Kind: KindOther, Run: 1, other: "check_lint.1.log"}, true},
		{"check_src_lint.1.json", Name{Kind: KindOther, Run: 1, other: "check_src_lint.1.json"}, true},
		{"x.01.log", Name{Kind: KindOther, Run: 1, other: "x.01.log"}, true},
		{"review_src_q_cl_aude@1.1.json", SlotJSONName("review:src/q:cl", "aude", 1, 1), true},
		{"review_src_q_cl.aude@1.1.json", Name{Kind: KindOther, Run: 1, other: "review_src_q_cl.aude@1.1.json"}, true},
		{"review_src_q_claude@0.1.json", Name{Kind: KindOther, Run: 1, other: "review_src_q_claude@0.1.json"}, true},
		{"review_src_q_claude@x.1.json", Name{Kind: KindOther, Run: 1, other: "review_src_q_claude@x.1.json"}, true},
		// not numbered
		{".debug.log", Name{}, false},
		{".hidden.1.log", Name{}, false},
		{"x.log", Name{}, false},
		{"x.3.txt", Name{}, false},
		{".execution_state", Name{}, false},
		{"console.x.log", Name{}, false},
		{".1.log", Name{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseName(tt.file)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v, %v", tt.file, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.file {
			t.Errorf("ParseName(%q).String() = %q", tt.file, got.String())
		}
	}
}

// Every review CLI name fits in a slot file name.
func TestAdapterNames(t *testing.T) {
	for _, a := range config.KnownAdapters() {
		if !ValidAdapterName(a) {
			t.Errorf("adapter %q does not fit the slot file name rule", a)
		}
	}
	for _, a := range []string{"", "a_b", "a@b", "a.b", "a/b"} {
		if ValidAdapterName(a) {
			t.Errorf("ValidAdapterName(%q) = true", a)
		}
	}
}

// JobStem is injective and ParseName reads back every name it writes: no
// two jobs, slots or runs share a file.
func FuzzName(f *testing.F) {
	for _, id := range []string{"check:src:lint", "check:pkg/a:lint", "check:pkg_a:lint", "review:a b/c_d:%x", "check:ü/ä:x_y", "check:::", "review:a:b:c"} {
		f.Add(id, "claude", 1, 2)
	}
	f.Fuzz(func(t *testing.T, id, adapter string, slot, run int) {
		if strings.Count(id, ":") < 2 || run < 0 {
			return
		}
		stem := JobStem(id)
		if back, ok := ParseJobStem(stem); !ok || back != id {
			t.Fatalf("ParseJobStem(JobStem(%q)) = %q, %v", id, back, ok)
		}
		if strings.ContainsAny(stem, "/\\:*?\"<>| \x00@") {
			t.Fatalf("JobStem(%q) = %q is not file-name safe", id, stem)
		}
		names := []Name{JobLogName(id, run)}
		if ValidAdapterName(adapter) && slot >= 1 {
			names = append(names, SlotLogName(id, adapter, slot, run), SlotJSONName(id, adapter, slot, run))
		}
		var files []string
		for _, n := range names {
			got, ok := ParseName(n.String())
			if !ok || got != n {
				t.Fatalf("ParseName(%q) = %+v, %v; want %+v", n.String(), got, ok, n)
			}
			files = append(files, n.String())
		}
		slices.Sort(files)
		if len(slices.Compact(files)) != len(names) {
			t.Fatalf("names collide: %q", files)
		}
	})
}
