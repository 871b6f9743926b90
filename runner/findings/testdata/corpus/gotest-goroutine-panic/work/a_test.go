package gp

import (
	"testing"
	"time"
)

func TestA(t *testing.T) {
	go func() { panic("in a goroutine") }()
	time.Sleep(100 * time.Millisecond)
}

func TestB(t *testing.T) { t.Fatal("new") }
