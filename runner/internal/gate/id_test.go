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
