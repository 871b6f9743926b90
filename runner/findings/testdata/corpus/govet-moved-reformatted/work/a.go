package mv

import "fmt"

func Other() int { return 1 }

func Old() string { return fmt.Sprintf("%d", "x") }

func Fmt() string {
	s := fmt.Sprintf("%d", "y")                              // old
	somethingLonger := fmt.Sprint("a longer line than that") // new
	_ = somethingLonger
	return s
}
