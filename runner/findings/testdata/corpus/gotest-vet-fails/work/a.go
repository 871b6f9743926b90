package gv

import "fmt"

// Old formats wrongly.
func Old() string { return fmt.Sprintf("%d", "x") }

// Add adds.
func Add(a, b int) int { return a - b }
