package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// initMaxAttempts bounds the re-asking of one question.
const initMaxAttempts = 3

// errNoAnswer ends a question that got no valid answer.
var errNoAnswer = errors.New("no valid answer")

// prompter asks init's questions on stdout and reads the answers from stdin,
// one line each. With ask false, or once the input has ended, every
// question takes its default. A read never outlives the context: a signal
// ends the question at once (the line reader is left blocked on stdin, and
// the process ends).
type prompter struct {
	ctx   context.Context
	in    io.Reader
	out   io.Writer
	ask   bool
	eof   bool
	lines chan lineRead
	stop  chan struct{}
}

// lineRead is one line read from stdin.
type lineRead struct {
	s   string
	err error
}

func newPrompter(ctx context.Context, in io.Reader, out io.Writer, ask bool) *prompter {
	return &prompter{ctx: ctx, in: in, out: out, ask: ask, stop: make(chan struct{})}
}

// close stops the line reader once it has read its next line.
func (p *prompter) close() { close(p.stop) }

// next reads the next line, or returns the context's error.
func (p *prompter) next() (string, error) {
	if p.lines == nil {
		p.lines = make(chan lineRead)
		go func() {
			r := bufio.NewReader(p.in)
			for {
				s, err := r.ReadString('\n')
				select {
				case p.lines <- lineRead{s, err}:
				case <-p.stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	select {
	case <-p.ctx.Done():
		return "", p.ctx.Err()
	case l := <-p.lines:
		return l.s, l.err
	}
}

// readLine asks question and returns the trimmed answer, "" at EOF or when
// not asking.
func (p *prompter) readLine(question, def string) (string, error) {
	if !p.ask || p.eof {
		return "", p.ctx.Err()
	}
	fmt.Fprintf(p.out, "%s [%s]: ", question, def)
	s, err := p.next()
	switch {
	case p.ctx.Err() != nil:
		fmt.Fprintln(p.out)
		return "", p.ctx.Err()
	case errors.Is(err, io.EOF):
		p.eof = true
		fmt.Fprintln(p.out)
	case err != nil:
		return "", fmt.Errorf("read answer: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// line asks for one free-form value.
func (p *prompter) line(question, def string) (string, error) {
	s, err := p.readLine(question, def)
	if err != nil || s == "" {
		return def, err
	}
	return s, nil
}

// choose asks question until the answer (case-insensitive, or its first
// letter) is one of options; "" takes def.
func (p *prompter) choose(question string, options []string, def string) (string, error) {
	for range initMaxAttempts {
		s, err := p.readLine(question, def)
		if err != nil {
			return "", err
		}
		if s == "" {
			return def, nil
		}
		for _, o := range options {
			if strings.EqualFold(s, o) || (len(s) == 1 && strings.EqualFold(s, o[:1])) {
				return o, nil
			}
		}
		fmt.Fprintf(p.out, "Answer %s.\n", strings.Join(options, ", "))
	}
	return "", fmt.Errorf("%w to %q after %d attempts", errNoAnswer, question, initMaxAttempts)
}

// askList asks for a comma-separated list, re-asking on a bad answer;
// given reports whether the answer was typed rather than the default.
func askList[T any](p *prompter, question string, def []T, parse func(string) ([]T, error)) (v []T, given bool, err error) {
	shown := make([]string, len(def))
	for i, d := range def {
		shown[i] = fmt.Sprint(d)
	}
	for range initMaxAttempts {
		s, err := p.readLine(question, strings.Join(shown, ","))
		if err != nil {
			return nil, false, err
		}
		if s == "" {
			return def, false, nil
		}
		v, err := parse(s)
		if err == nil {
			return v, true, nil
		}
		fmt.Fprintf(p.out, "%v\n", err)
	}
	return nil, false, fmt.Errorf("%w to %q after %d attempts", errNoAnswer, question, initMaxAttempts)
}
