package other

// Twice doubles.
func Twice(x int) int { return 2 * x }
