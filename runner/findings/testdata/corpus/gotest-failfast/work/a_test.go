package ff

import "testing"

func TestA(t *testing.T) { t.Fatal("old failure") }
func TestB(t *testing.T) { t.Fatal("new failure") }
