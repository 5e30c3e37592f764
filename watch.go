package redimo

// WATCH: optimistic locking on keys.
//
// Every write transaction stores a fresh random token in the metadata
// items of the keys it changes (model.AttrVer, see metaAction), and EXPIRE and
// PERSIST store one in model.AttrExpTok. A Watch remembers both tokens of each
// watched key, or that it was missing; Changed reads them again.

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/redimo-go/redimo/internal/model"
)

// ErrTxFailed is returned by Tx.TxPipelined (in Client.Watch's function)
// and Client.ExecWatched when a watched key changed since it was watched,
// up to the commit: nothing was written. It is go-redis's TxFailedErr
// (Redis's EXEC replying nil).
var ErrTxFailed = errors.New("redimo: transaction failed: a watched key changed")

// Watch is a set of watched keys with the state each had when watched.
// It is safe for concurrent use.
type Watch struct {
	c    *Client
	mu   sync.Mutex
	seen map[string]string // key → its tokens when watched ("" when missing)
}

// WatchKeys starts watching keys, as Redis's WATCH: Watch.Changed then
// reports whether any of them was written since (members added, removed
// or re-scored, the key deleted, expired, or its expiry changed).
//
// Unlike Redis, a key that was missing when watched, then created and
// deleted again before Changed, is not seen as changed: nothing of it is
// left to compare. With Options.EventuallyConsistent, the version reads are
// eventually consistent too: a write of the last second can be missed.
//
// Cost: one BatchGetItem per 100 keys, 1 read unit per key. A key with
// member expiries first has its expired members deleted, as SCOLLECT (a
// Query, then a transaction per 99 expired members), and is read again.
//
// [WATCH]: https://redis.io/docs/latest/commands/watch/
func (c *Client) WatchKeys(ctx context.Context, keys ...string) (_ *Watch, err error) {
	ctx, traced := c.command(ctx, "WatchKeys")
	defer traced.end(&err)
	w := &Watch{c: c, seen: map[string]string{}}
	return w, w.Add(ctx, keys...)
}

// Add watches more keys (a second WATCH); a key already watched keeps the
// state it had when first watched.
//
// Cost: as WatchKeys.
func (w *Watch) Add(ctx context.Context, keys ...string) (err error) {
	ctx, traced := w.c.command(ctx, "Watch.Add")
	defer traced.end(&err)
	if err := checkKeyList("WATCH", keys); err != nil {
		return err
	}
	vs, err := w.c.sweptVersions(ctx, keys)
	if err != nil {
		return wrap("WATCH", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, k := range keys {
		if _, ok := w.seen[k]; !ok {
			w.seen[k] = vs[i]
		}
	}
	return nil
}

// Changed reports whether a watched key was written since it was watched.
// It is a read: a write landing just after it is not seen. To write only
// if no watched key changed, atomically, use Client.ExecWatched or
// Client.Watch's Tx.TxPipelined.
//
// Cost: one BatchGetItem per 100 watched keys, 1 read unit per key.
func (w *Watch) Changed(ctx context.Context) (_ bool, err error) {
	ctx, traced := w.c.command(ctx, "Watch.Changed")
	defer traced.end(&err)
	w.mu.Lock()
	keys := make([]string, 0, len(w.seen))
	for k := range w.seen {
		keys = append(keys, k)
	}
	w.mu.Unlock()
	if len(keys) == 0 {
		return false, nil
	}
	vs, err := w.c.versions(ctx, keys)
	if err != nil {
		return false, wrap("EXEC", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, k := range keys {
		if w.seen[k] != vs[i] {
			return true, nil
		}
	}
	return false, nil
}

// sweptVersions is versions after sweeping the expired members of the keys
// with member expiries (memberttl.go), as EXEC does before reading a key:
// EXEC's sweep then finds only members that expired since WATCH, and its
// new version token is not taken for another client's write.
func (c *Client) sweptVersions(ctx context.Context, keys []string) ([]string, error) {
	items, err := c.metaItems(ctx, keys, nil, model.VersionProjection.Expr, model.VersionProjection.Names)
	if err != nil {
		return nil, err
	}
	var swept []int
	for i, it := range items {
		if m := c.liveMeta(it); m.TTLs > 0 && !slices.Contains(keys[:i], keys[i]) {
			if err := c.sweep(ctx, keys[i], m.Typ); err != nil {
				return nil, err
			}
			swept = append(swept, i)
		}
	}
	if len(swept) > 0 {
		again, err := c.metaItems(ctx, model.MapSlice(swept, func(i int) string { return keys[i] }), nil, model.VersionProjection.Expr, model.VersionProjection.Names)
		if err != nil {
			return nil, err
		}
		for j, i := range swept {
			items[i] = again[j]
		}
	}
	return model.MapSlice(items, c.versionOf), nil
}

// unwatch forgets every watched key, as Redis's EXEC and UNWATCH.
func (w *Watch) unwatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.seen)
}

// versions reads the version of each key: its tokens, "" when missing or
// expired.
func (c *Client) versions(ctx context.Context, keys []string) ([]string, error) {
	items, err := c.metaItems(ctx, keys, nil, model.VersionProjection.Expr, model.VersionProjection.Names)
	return model.MapSlice(items, c.versionOf), err
}

// watching reports whether w watches key.
func (w *Watch) watching(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.seen[key]
	return ok
}
