package logdir

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// A job alone gets the name the TypeScript tool gave it, whatever its id.
func TestJobNamesTypeScript(t *testing.T) {
	tests := []struct{ id, want string }{
		{"check:src:lint", "check_src_lint"},
		{"review:.:code-quality", "review_._code-quality"},
		{"check:packages/api:lint", "check_packages_api_lint"},
		{"check:src:type_check", "check_src_type_check"},
		{"check:pkg_a:lint", "check_pkg_a_lint"},
		{"check:docs dir:listing", "check_docs_dir_listing"},
		{"review:openspec/changes/*/tasks.md:task-review", "review_openspec_changes___tasks.md_task-review"},
		{"check:a:b:c", "check_a_b_c"},
		{"check:ü:x", "check___x"},
		{"check:😀:x", "check____x"},
		{"check:100%:x", "check_100__x"},
		{"check:a@1:x", "check_a_1_x"},
		{"check:\xff:x", "check___x"},
	}
	for _, tt := range tests {
		id := tt.id
		n := NewJobNames(id, "check:other:lint")
		if got := n.Stem(id); got != tt.want {
			t.Errorf("Stem(%q) = %q, want %q", id, got, tt.want)
		}
		if back, ok := n.Job(tt.want); !ok || back != id {
			t.Errorf("Job(%q) = %q, %v; want %q", tt.want, back, ok, id)
		}
	}
}

// Jobs whose TypeScript names collide, and only those, are named by the
// escaped form (check:pkg/a:lint and check:pkg_a:lint; docs/lifecycle.md).
func TestJobNamesCollide(t *testing.T) {
	n := NewJobNames("check:pkg/a:lint", "check:pkg_a:lint", "check:src:type_check", "review:pkg_a:lint")
	for id, want := range map[string]string{
		"check:pkg/a:lint":     "check_pkg_a_lint",
		"check:pkg_a:lint":     "check_pkg%5Fa_lint",
		"check:src:type_check": "check_src_type_check",
		"review:pkg_a:lint":    "review_pkg_a_lint",
	} {
		if got := n.Stem(id); got != want {
			t.Errorf("Stem(%q) = %q, want %q", id, got, want)
		}
		if back, ok := n.Job(want); !ok || back != id {
			t.Errorf("Job(%q) = %q, %v; want %q", want, back, ok, id)
		}
	}
	// A job outside the set whose TypeScript name is taken is escaped.
	if got := n.Stem("check:pkg:a_lint"); got != "check_pkg_a%5Flint" {
		t.Errorf("Stem of an unknown colliding job = %q", got)
	}
	// An escaped stem of a job no longer configured still reads back; a
	// TypeScript name of one cannot.
	if id, ok := n.Job("check_old%5Fdir_lint"); !ok || id != "check:old_dir:lint" {
		t.Errorf("Job of an escaped unknown stem = %q, %v", id, ok)
	}
	if id, ok := n.Job("check_old_dir_lint"); ok {
		t.Errorf("Job of an unknown TypeScript stem = %q", id)
	}
	var none *JobNames
	if got := none.Stem("check:a_b:c"); got != "check_a_b_c" {
		t.Errorf("nil JobNames: Stem = %q", got)
	}
}

func TestParseEscapedStemRejects(t *testing.T) {
	for _, stem := range []string{"check", "check_lint", "check_src%5flint_x", "check_%41_x", "check_%4_x", "check_%zz_x", "check_a%_x", "a b_c_d"} {
		if id, ok := parseEscapedStem(stem); ok {
			t.Errorf("parseEscapedStem(%q) = %q, want no job", stem, id)
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
		{"check_src_lint.12.log", Name{Kind: KindJobLog, Stem: "check_src_lint", Run: 12}, true},
		{"check_pkg%5Fa_lint.1.log", Name{Kind: KindJobLog, Stem: "check_pkg%5Fa_lint", Run: 1}, true},
		{"check_src_type_check.1.log", Name{Kind: KindJobLog, Stem: "check_src_type_check", Run: 1}, true},
		{"review_src_quality_claude@1.2.json", Name{Kind: KindSlotJSON, Stem: "review_src_quality", Adapter: "claude", Slot: 1, Run: 2}, true},
		{"review_._code-quality_github-copilot@3.1.log", Name{Kind: KindSlotLog, Stem: "review_._code-quality", Adapter: "github-copilot", Slot: 3, Run: 1}, true},
		{"review_a%40b_x_codex@2.4.json", Name{Kind: KindSlotJSON, Stem: "review_a%40b_x", Adapter: "codex", Slot: 2, Run: 4}, true},
		// numbered, but in no format of the gauntlet's
		{"console.5.json", Name{Kind: KindOther, Run: 5, other: "console.5.json"}, true},
		{"check_src_lint.1.json", Name{Kind: KindOther, Run: 1, other: "check_src_lint.1.json"}, true},
		{"lint.1.log", Name{Kind: KindOther, Run: 1, other: "lint.1.log"}, true},
		{"check_a b.1.log", Name{Kind: KindOther, Run: 1, other: "check_a b.1.log"}, true},
		{"x.01.log", Name{Kind: KindOther, Run: 1, other: "x.01.log"}, true},
		{"review_src_q_cl_aude@1.1.json", Name{Kind: KindSlotJSON, Stem: "review_src_q_cl", Adapter: "aude", Slot: 1, Run: 1}, true},
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

// FuzzName: every job of a set reads back from its stem, alone and beside
// a job with the same TypeScript name (which makes both escaped); the
// escaped form reads back for any id; ParseName reads back every name
// JobNames writes for a check or review job; no two jobs, slots or runs
// share a file.
func FuzzName(f *testing.F) {
	for _, id := range []string{"check:src:lint", "check:pkg/a:lint", "check:pkg_a:lint", "review:a b/c_d:%x", "check:ü/ä:x_y", "check:::", "review:a:b:c"} {
		f.Add(id, "claude", 1, 2)
	}
	f.Fuzz(func(t *testing.T, id, adapter string, slot, run int) {
		if strings.Count(id, ":") >= 2 {
			if back, ok := parseEscapedStem(escapedStem(id)); !ok || back != id {
				t.Fatalf("parseEscapedStem(escapedStem(%q)) = %q, %v", id, back, ok)
			}
		}
		sets := [][]string{{id}}
		if twin := strings.Replace(id, ":", "/", 1); twin != id {
			sets = append(sets, []string{id, twin})
		}
		for _, set := range sets {
			jn := NewJobNames(set...)
			stem := jn.Stem(id)
			if back, ok := jn.Job(stem); !ok || back != id {
				t.Fatalf("Job(Stem(%q)) = %q, %v (set %q)", id, back, ok, set)
			}
			if len(set) == 2 && stem == jn.Stem(set[1]) {
				t.Fatalf("%q and %q share the stem %q", set[0], set[1], stem)
			}
			if strings.ContainsAny(stem, "/\\:*?\"<>| \x00@") {
				t.Fatalf("Stem(%q) = %q is not file-name safe", id, stem)
			}
			if !strings.HasPrefix(id, "check:") && !strings.HasPrefix(id, "review:") || run < 0 {
				continue
			}
			names := []Name{jn.JobLog(id, run)}
			if ValidAdapterName(adapter) && slot >= 1 {
				names = append(names, jn.SlotLog(id, adapter, slot, run), jn.SlotJSON(id, adapter, slot, run))
			}
			var files []string
			for _, n := range names {
				got, ok := ParseName(n.String())
				if !ok || got != n {
					t.Fatalf("ParseName(%q) = %+v, %v; want %+v", n.String(), got, ok, n)
				}
				if back, ok := jn.JobOf(got); !ok || back != id {
					t.Fatalf("JobOf(%q) = %q, %v", n.String(), back, ok)
				}
				files = append(files, n.String())
			}
			slices.Sort(files)
			if len(slices.Compact(files)) != len(names) {
				t.Fatalf("names collide: %q", files)
			}
		}
	})
}

// Every adapter's name fits in the room file names keep for it.
func TestAdapterNamesFit(t *testing.T) {
	for _, a := range config.KnownAdapters() {
		if len(a) > maxAdapterBytes || !ValidAdapterName(a) {
			t.Errorf("adapter %q does not fit in a slot file name (at most %d bytes of letters, digits and '-')", a, maxAdapterBytes)
		}
	}
}
