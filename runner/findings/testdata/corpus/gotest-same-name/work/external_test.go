package sn_test

import (
	"testing"

	"example.com/sn"
)

func TestParse(t *testing.T) {
	if sn.Add(2, 2) != 5 {
		t.Fatal("new failure in the external test package")
	}
}
