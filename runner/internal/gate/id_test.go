package gate

import "testing"

func TestIDs(t *testing.T) {
	tests := []struct {
		id   string
		kind Kind
		gate string
		of   bool
	}{
		{CheckID("src", "lint"), KindCheck, "lint", true},
		{ReviewID(".", "code-quality"), KindReview, "code-quality", true},
		{CheckID("src", "my-lint"), KindCheck, "lint", false},
		{CheckID("src", "my_lint"), KindCheck, "lint", false},
		{CheckID("a:b", "x"), KindCheck, "x", true},
		{"lint", "", "lint", false},
		{"check:lint", KindCheck, "lint", false},
	}
	for _, tt := range tests {
		if got := KindOf(tt.id); got != tt.kind {
			t.Errorf("KindOf(%q) = %q, want %q", tt.id, got, tt.kind)
		}
		if got := IsOfGate(tt.id, tt.gate); got != tt.of {
			t.Errorf("IsOfGate(%q, %q) = %v, want %v", tt.id, tt.gate, got, tt.of)
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
