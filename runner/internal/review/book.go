package review

import (
	"context"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
)

// book remembers, for the whole of one run, which adapters are healthy: each
// adapter is checked (and probed, with cli.check_usage_limit) once, and one
// that hits a usage limit stays unhealthy for every later slot and gate.
type book struct {
	check checkFunc
	mu    sync.Mutex
	items map[string]*bookItem
}

// bookItem is the health of one adapter, checked at most once.
type bookItem struct {
	once   sync.Once
	mu     sync.Mutex
	health adapter.Health
}

// checkFunc checks one adapter (adapter.Check outside tests).
type checkFunc func(ctx context.Context, spec adapter.Spec, root string, probe bool) adapter.Health

// newBook returns an empty book that checks adapters with check.
func newBook(check checkFunc) *book {
	return &book{check: check, items: map[string]*bookItem{}}
}

// item returns the entry of name.
func (b *book) item(name string) *bookItem {
	b.mu.Lock()
	defer b.mu.Unlock()
	it := b.items[name]
	if it == nil {
		it = &bookItem{}
		b.items[name] = it
	}
	return it
}

// health returns the health of spec, checking it on first use.
func (b *book) health(ctx context.Context, spec adapter.Spec, root string, probe bool) adapter.Health {
	it := b.item(spec.Name)
	it.once.Do(func() {
		h := b.check(ctx, spec, root, probe)
		it.mu.Lock()
		if it.health.State == "" {
			it.health = h
		}
		it.mu.Unlock()
	})
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.health
}

// markUnhealthy takes name out of service for the rest of the run.
func (b *book) markUnhealthy(name, message string) {
	it := b.item(name)
	it.once.Do(func() {})
	it.mu.Lock()
	it.health = adapter.Health{State: adapter.StateUnhealthy, Message: message}
	it.mu.Unlock()
}
