package mv

import "fmt"

func Other() int { return 1 }

func Old() string { return fmt.Sprintf("%d", "x") }

func Fmt() string {
	return fmt.Sprintf("%d", "y")
}
