package run

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// future is a value computed in the background, at most once: git questions
// that a run asks early and answers late, so that independent git processes
// overlap instead of queueing.
type future[T any] struct {
	once    sync.Once
	started atomic.Bool
	done    chan struct{}
	f       func() (T, error)
	v       T
	err     error
}

// lazy returns a future of f that starts on start or get.
func lazy[T any](f func() (T, error)) *future[T] {
	return &future[T]{done: make(chan struct{}), f: f}
}

// async returns a future of f that has started.
func async[T any](f func() (T, error)) *future[T] {
	fu := lazy(f)
	fu.start()
	return fu
}

// start starts the computation unless it has started; a panic becomes its
// error.
func (fu *future[T]) start() {
	fu.once.Do(func() {
		fu.started.Store(true)
		go func() {
			defer close(fu.done)
			defer func() {
				if p := recover(); p != nil {
					fu.err = fmt.Errorf("internal error: %v", p)
				}
			}()
			fu.v, fu.err = fu.f()
		}()
	})
}

// get starts the computation if needed and waits for its result.
func (fu *future[T]) get() (T, error) {
	fu.start()
	<-fu.done
	return fu.v, fu.err
}

// wait waits for the computation when it has started: no git process of a
// run outlives it.
func (fu *future[T]) wait() {
	if fu != nil && fu.started.Load() {
		<-fu.done
	}
}
