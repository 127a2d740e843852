package web

import (
	"container/list"
	"sync"
)

// fragments keeps the HTML of drawn blocks (render.Cache), least recently used out
// first, within a byte budget. A block is keyed by its content and the options it
// was drawn with, so a new version of a block is a new key and nothing ever needs
// invalidating: the old one simply ages out.
type fragments struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recently used
	byKey map[string]*list.Element
}

type fragment struct {
	key  string
	html []byte
}

func newFragments(maxBytes int) *fragments {
	return &fragments{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// Fragment implements render.Cache.
func (f *fragments) Fragment(key string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	el, ok := f.byKey[key]
	if !ok {
		return nil, false
	}
	f.order.MoveToFront(el)
	return el.Value.(*fragment).html, true
}

// Keep implements render.Cache. A fragment larger than an eighth of the budget is
// not kept (one huge block must not push out everything else).
func (f *fragments) Keep(key string, html []byte) {
	cost := len(html) + len(key)
	if cost > f.max/8 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.byKey[key]; ok {
		return
	}
	f.byKey[key] = f.order.PushFront(&fragment{key: key, html: html})
	f.size += cost
	for f.size > f.max {
		old := f.order.Back()
		fr := old.Value.(*fragment)
		f.order.Remove(old)
		delete(f.byKey, fr.key)
		f.size -= len(fr.html) + len(fr.key)
	}
}
