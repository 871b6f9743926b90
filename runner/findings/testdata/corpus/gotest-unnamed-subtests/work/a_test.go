package us

import "testing"

func TestCases(t *testing.T) {
	t.Run("", func(t *testing.T) {
		_ = 1
	})
	t.Run("", func(t *testing.T) {
		t.Fatal("new")
	})
}
