package sl

import (
	"testing"
	"time"
)

func TestSlow(t *testing.T) { time.Sleep(time.Hour) }
func TestZ(t *testing.T)    {}
