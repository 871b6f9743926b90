package mask

import "testing"

func TestAOldCrash(t *testing.T) {
	var m map[string]int
	m["boom"] = 1 // an old bug: panics on the base branch too
}

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("Add(2, 3) != 5")
	}
}

func TestMul(t *testing.T) {
	if got := Mul(2, 3); got != 6 {
		t.Errorf("Mul(2, 3) = %d, want 6", got)
	}
}
