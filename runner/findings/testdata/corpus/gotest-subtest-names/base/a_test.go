package sn

import "testing"

func TestNames(t *testing.T) {
	for _, name := range []string{"10s", "0x20", "a.go:20", "a.go:21"} {
		t.Run(name, func(t *testing.T) {
			if name == "a.go:20" {
				t.Fatal("broken")
			}
		})
	}
}
