package us

import "testing"

func TestCases(t *testing.T) {
	t.Run("", func(t *testing.T) {
		t.Fatal("old")
	})
	t.Run("", func(t *testing.T) {
		_ = 1
	})
}
