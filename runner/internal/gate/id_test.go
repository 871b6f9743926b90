package gate

import (
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

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

// The log directory's clean moves only the log files of job kinds it knows
// as its own (logdir.OwnJobKinds): every gate kind must be one, or its logs
// would pile up in the log directory for good.
func TestKindsAreOwnJobKinds(t *testing.T) {
	for _, k := range []Kind{KindCheck, KindReview} {
		if !slices.Contains(logdir.OwnJobKinds, string(k)) {
			t.Errorf("gate kind %q is not in logdir.OwnJobKinds %v", k, logdir.OwnJobKinds)
		}
		name := logdir.NewJobNames().JobLog(string(k)+":src:lint", 1)
		if !logdir.IsOwn(name.String()) {
			t.Errorf("%s is not one of the log directory's own names", name)
		}
	}
}
