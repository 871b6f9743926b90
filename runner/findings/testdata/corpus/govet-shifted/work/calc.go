package vetdup

import "fmt"

// Mul multiplies.
func Mul(a, b int) int {
	return a * b
}

// Log logs x.
func Log(x int) {
	return
	fmt.Println("never", x)
}
