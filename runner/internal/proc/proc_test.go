package proc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		timeout  time.Duration
		wantCode int
		wantOut  string
		wantErr  error
	}{
		{name: "success", script: "echo hi", wantCode: 0, wantOut: "hi\n"},
		{name: "exit code", script: "exit 3", wantCode: 3},
		{name: "stdin", script: "cat", wantCode: 0, wantOut: "input"},
		{name: "timeout", script: "sleep 30", timeout: 100 * time.Millisecond, wantCode: -1, wantErr: ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Run(context.Background(), Spec{
				Path: "sh", Args: []string{"-c", tt.script},
				Stdin: strings.NewReader("input"), Stdout: &out, Timeout: tt.timeout,
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if !res.TimedOut {
					t.Fatalf("TimedOut = false")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.wantCode || out.String() != tt.wantOut {
				t.Fatalf("got code %d out %q, want %d %q", res.ExitCode, out.String(), tt.wantCode, tt.wantOut)
			}
		})
	}
}

func TestStartError(t *testing.T) {
	_, err := Run(context.Background(), Spec{Path: "/nonexistent/program"})
	if err == nil || !strings.Contains(err.Error(), "start /nonexistent/program") {
		t.Fatalf("err = %v", err)
	}
}
