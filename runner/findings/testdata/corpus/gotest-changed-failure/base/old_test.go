package cf

import "testing"

func TestAdd(t *testing.T) { t.Fatal("fixture testdata/add.json missing") }
