package gate

import "testing"

func TestSanitizeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"check:src:lint", "check_src_lint"},
		{"review:.:code-quality", "review_._code-quality"},
		{"review:openspec/changes/*/tasks.md:task-review", "review_openspec_changes___tasks.md_task-review"},
		{"check:a b/c:x", "check_a_b_c_x"},
		{"check:ü:x", "check___x"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SanitizeID(tt.in); got != tt.want {
			t.Errorf("SanitizeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
