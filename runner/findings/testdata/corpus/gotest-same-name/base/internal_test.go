package sn

import "testing"

func TestParse(t *testing.T) {
	if Parse("12") != 12 {
		t.Fatal("Parse(\"12\") != 12: old, known bug")
	}
}
