package mv

import "fmt"

func Old() string { return fmt.Sprintf("%d", "x") }

func Other() int { return 1 }

func Fmt() string {
	return fmt.Sprintf("%d",   "y")
}
