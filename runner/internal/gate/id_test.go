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

func TestRunScope(t *testing.T) {
	made := 0
	mk := func() any { made++; return made }
	s := &RunScope{}
	if a, b := s.Value("k", mk), s.Value("k", mk); a != 1 || b != 1 || made != 1 {
		t.Fatalf("one scope: %v %v, made %d", a, b, made)
	}
	if v := s.Value("other", mk); v != 2 {
		t.Fatalf("another key: %v", v)
	}
	var none *RunScope
	if a, b := none.Value("k", mk), none.Value("k", mk); a == b {
		t.Fatalf("a nil scope shares nothing: %v %v", a, b)
	}
}
