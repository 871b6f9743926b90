package vetdup

import "fmt"

// Log logs x.
func Log(x int) {
	return
	fmt.Println("never", x)
}
