package b

import "testing"

func TestX(t *testing.T) {
	for _, n := range []string{"one", "two"} {
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			if true && n == "two" {
				t.Fatal("broken")
			}
		})
	}
}
