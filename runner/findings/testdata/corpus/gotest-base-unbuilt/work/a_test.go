package ub

import "testing"

func TestOld(t *testing.T) { var s string = Missing(); _ = s }
