package mk

import "testing"

func TestA(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}

func TestB(t *testing.T) { t.Fatal("new failure") }
