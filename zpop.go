package redimo

// ZMPOP and the blocking pops (BZPOPMIN, BZPOPMAX, BZMPOP).
//
// A pop from several keys reads the keys' metadata items in one
// BatchGetItem, takes the first key that exists (a key of another type
// there is ErrWrongType, as in Redis) and pops from it through ZPOPMIN's
// transaction: every member removed is removed by a delete conditioned on
// its existence, so two poppers, in this process or any other, never get
// the same member.
//
// A blocking pop that finds every key empty waits: it is woken at once by
// a write of the same Client that adds members to one of its keys (the
// transaction writer calls notifyAdded after the commit), and otherwise
// reads again after a delay that starts at minPollInterval and doubles up
// to Options.MaxPollInterval, until its timeout or its context ends.

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PopOrder says which end of a sorted set ZMPop and BZMPop pop from.
type PopOrder string

// The ends of a sorted set (Redis's MIN and MAX; the case does not matter).
const (
	PopMin PopOrder = "MIN"
	PopMax PopOrder = "MAX"
)

// ZWithKey is a member popped by BZPopMin or BZPopMax with the key it came from.
type ZWithKey struct {
	Z
	Key string
}

// DefaultMaxPollInterval is the longest delay between two reads of a
// blocking pop that was not woken by a write of its own Client.
const DefaultMaxPollInterval = time.Second

// minPollInterval is the first delay between two reads of a blocking pop.
const minPollInterval = 25 * time.Millisecond

// ZMPop pops up to count members (count ≥ 1) from the first of keys that
// exists, from its lowest scores with PopMin or its highest with PopMax,
// and returns that key with the members, as Redis's ZMPOP. When every key
// is missing, zs is empty (Redis's nil) and key is "". The first existing
// key holding another type is ErrWrongType, even when a later key is a
// sorted set, as in Redis. Exactly-once as ZPopMin: a member goes to one
// popper only.
//
// Cost: one BatchGetItem of the keys' metadata items (1 read unit per key),
// then as ZPopMin on the key found.
//
// [ZMPOP]: https://redis.io/docs/latest/commands/zmpop/
func (c *Client) ZMPop(ctx context.Context, order PopOrder, count int64, keys ...string) (key string, zs []Z, err error) {
	rev, err := checkMPop("ZMPOP", order, count, keys)
	if err != nil {
		return "", nil, err
	}
	return c.mpop(ctx, "ZMPOP", keys, rev, count, false)
}

// BZPopMin pops the member with the lowest score from the first of keys
// that is not empty, as Redis's BZPOPMIN; when all are empty it waits for
// a member to be added, up to timeout (0: until ctx ends). ok is false
// (Redis's nil) when the timeout passed. A negative timeout is an
// ErrOutOfRange *ArgError.
//
// Waiting: a ZADD (or any write adding members) to one of keys made
// through the same Client wakes the wait at once; a write from another
// Client or process is seen at the next read, at most
// Options.MaxPollInterval (default 1 s) later. A waiter costs one
// BatchGetItem of the keys' metadata items per read (1 read unit per key):
// reads 25 ms apart at first, doubling up to MaxPollInterval, so about
// one read unit per key per second after the first seconds
// (86,400 read units a day per key waited on, at the default).
//
// Cost when a member is there at once: as ZMPop.
//
// [BZPOPMIN]: https://redis.io/docs/latest/commands/bzpopmin/
func (c *Client) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (ZWithKey, bool, error) {
	return c.bzpop(ctx, "BZPOPMIN", timeout, false, keys)
}

// BZPopMax is BZPopMin from the highest score, as Redis's BZPOPMAX.
//
// Cost: as BZPopMin.
//
// [BZPOPMAX]: https://redis.io/docs/latest/commands/bzpopmax/
func (c *Client) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (ZWithKey, bool, error) {
	return c.bzpop(ctx, "BZPOPMAX", timeout, true, keys)
}

// BZMPop is ZMPop waiting, as BZPopMin does, up to timeout (0: until ctx
// ends) for one of keys to have members, as Redis's BZMPOP. zs is empty
// (Redis's nil) when the timeout passed.
//
// Cost: as BZPopMin.
//
// [BZMPOP]: https://redis.io/docs/latest/commands/bzmpop/
func (c *Client) BZMPop(ctx context.Context, timeout time.Duration, order PopOrder, count int64, keys ...string) (key string, zs []Z, err error) {
	rev, err := checkMPop("BZMPOP", order, count, keys)
	if err != nil {
		return "", nil, err
	}
	if err := checkTimeout("BZMPOP", timeout); err != nil {
		return "", nil, err
	}
	return c.block(ctx, "BZMPOP", timeout, keys, rev, count)
}

func (c *Client) bzpop(ctx context.Context, cmd string, timeout time.Duration, rev bool, keys []string) (ZWithKey, bool, error) {
	if err := checkKeyList(cmd, keys); err != nil {
		return ZWithKey{}, false, err
	}
	if err := checkTimeout(cmd, timeout); err != nil {
		return ZWithKey{}, false, err
	}
	key, zs, err := c.block(ctx, cmd, timeout, keys, rev, 1)
	if err != nil || len(zs) == 0 {
		return ZWithKey{}, false, err
	}
	return ZWithKey{Z: zs[0], Key: key}, true, nil
}

// checkMPop validates ZMPOP's and BZMPOP's arguments; rev is true for PopMax.
func checkMPop(cmd string, order PopOrder, count int64, keys []string) (rev bool, err error) {
	switch {
	case len(keys) == 0:
		return false, argError(cmd, "keys", "", ErrSyntax)
	case count < 1:
		return false, argError(cmd, "count", strconv.FormatInt(count, 10), ErrOutOfRange)
	}
	switch strings.ToUpper(string(order)) {
	case string(PopMin):
	case string(PopMax):
		rev = true
	default:
		return false, argError(cmd, "order", string(order), ErrSyntax)
	}
	return rev, checkKeys(cmd, keys...)
}

func checkTimeout(cmd string, timeout time.Duration) error {
	if timeout < 0 {
		return argError(cmd, "timeout", timeout.String(), ErrOutOfRange)
	}
	return nil
}

// mpop pops up to count members from the first existing key of keys;
// with others, it passes over keys of another type (a blocked pop's later
// tries: Redis serves a blocked client only from sorted sets) instead of
// answering WRONGTYPE.
func (c *Client) mpop(ctx context.Context, cmd string, keys []string, rev bool, count int64, others bool) (key string, zs []Z, err error) {
	err = c.attempts(ctx, false, func() (bool, error) {
		ms, err := c.metas(ctx, keys)
		if err != nil {
			return true, wrap(cmd, err)
		}
		at := -1
		for i, m := range ms {
			// A key whose members all expired is missing (memberttl.go).
			if ms[i], err = c.settle(ctx, keys[i], m); err != nil {
				return true, wrap(cmd, err)
			}
			if ms[i].typ == typeZSet || ms[i].typ != typeNone && !others {
				at = i
				break
			}
		}
		switch {
		case at < 0:
			return true, nil
		case ms[at].typ != typeZSet:
			return true, ErrWrongType
		}
		popped, err := c.pop(ctx, cmd, keys[at], rev, []int64{count})
		if err != nil || len(popped) > 0 {
			key, zs = keys[at], popped
			return true, err
		}
		// Another client emptied the key between the two reads: look again.
		return false, nil
	})
	return key, zs, err
}

// block runs mpop until it pops something, the timeout passes (0: never)
// or ctx ends. Inside a transaction it does not wait, as Redis's blocking
// pops inside MULTI.
func (c *Client) block(ctx context.Context, cmd string, timeout time.Duration, keys []string, rev bool, count int64) (string, []Z, error) {
	return c.blockOn(ctx, cmd, timeout, keys, func(others bool) (string, []Z, error) {
		return c.mpop(ctx, cmd, keys, rev, count, others)
	})
}

// blockOn is block for any take: one try at taking members from keys
// (BZMOVE's moves them), passing over keys of another type when others
// is set (the tries after the first).
func (c *Client) blockOn(ctx context.Context, cmd string, timeout time.Duration, keys []string, take func(others bool) (string, []Z, error)) (string, []Z, error) {
	if c.tx != nil {
		return take(false)
	}
	// Registered before the first read, so that a write committed between
	// that read and the wait still wakes it.
	wake, first, stop := c.waiters.add(keys)
	defer stop()
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	delay := minPollInterval
	for try := 0; ; try++ {
		// WRONGTYPE only at the first try, as Redis: a key that becomes
		// another type while the pop waits leaves it waiting.
		key, zs, err := take(try > 0)
		if err != nil || len(zs) > 0 {
			return key, zs, err
		}
		var polled <-chan time.Time // only the first in line polls
		poll := time.NewTimer(delay)
		if first() {
			polled = poll.C
		}
		select {
		case <-wake:
			delay = minPollInterval
		case <-polled:
			delay = min(2*delay, c.opts.MaxPollInterval)
		case <-deadline:
			poll.Stop()
			return "", nil, nil
		case <-ctx.Done():
			poll.Stop()
			return "", nil, wrap(cmd, ctx.Err())
		}
		poll.Stop()
	}
}

// waiters are the blocking pops of one Client waiting for members, by key,
// in the order they began to wait: as Redis, the first to wait on a key is
// served first. Only the first on a key is woken when members arrive, and
// only a waiter first on one of its keys polls (for other clients' writes);
// when it leaves (it popped, timed out or was cancelled) the next is woken
// and tries in its turn.
type waiters struct {
	mu sync.Mutex
	by map[string][]chan struct{}
}

// add registers a waiter on keys: wake receives when it is its turn to
// try, first reports whether it is first in line on one of its keys, stop
// unregisters it.
func (w *waiters) add(keys []string) (wake chan struct{}, first func() bool, stop func()) {
	wake = make(chan struct{}, 1)
	w.mu.Lock()
	if w.by == nil {
		w.by = map[string][]chan struct{}{}
	}
	for _, k := range keys {
		if !slices.Contains(w.by[k], wake) {
			w.by[k] = append(w.by[k], wake)
		}
	}
	w.mu.Unlock()
	first = func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, k := range keys {
			if len(w.by[k]) > 0 && w.by[k][0] == wake {
				return true
			}
		}
		return false
	}
	return wake, first, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, k := range keys {
			q := w.by[k]
			i := slices.Index(q, wake)
			if i < 0 {
				continue
			}
			q = slices.Delete(q, i, i+1)
			if len(q) == 0 {
				delete(w.by, k)
				continue
			}
			w.by[k] = q
			if i == 0 {
				signal(q[0]) // its turn: members may remain
			}
		}
	}
}

// notifyAdded wakes the first waiter on key: a transaction that added
// members to it committed.
func (w *waiters) notifyAdded(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if q := w.by[key]; len(q) > 0 {
		signal(q[0])
	}
}

// signal wakes a waiter unless it is already woken.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
