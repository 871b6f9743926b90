package mv

import "fmt"

func Old() string { return fmt.Sprintf("%d", "x") }

func Other() int { return 1 }

func Fmt() string {
	s := fmt.Sprintf("%d", "y") // old
	return s
}
