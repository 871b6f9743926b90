package sub

import "testing"

func TestSub(t *testing.T)  {}
func TestSub2(t *testing.T) {}
