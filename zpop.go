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
// A blocking pop tries once by itself, as ZMPOP; when every key is empty
// it waits, queued on each of its keys behind the earlier waiters of its
// Client. Each key with waiters has a feeder (waiters.feed), a goroutine
// of the Client that reads the key's metadata item and, when the key
// holds n members, serves the waiters together, as Redis serves blocked
// clients first come first served: it claims them in the order they
// began to wait, each for up to its count, until n members are promised,
// and takes the members for all of them with one pop per kind (MIN,
// MAX), under a context no waiter can cancel. A feeder reads when a write
// of its Client that added members to the key committed (the transaction
// writer calls notifyAdded), and otherwise after a delay that starts at
// minPollInterval, doubles up to Options.MaxPollInterval, and starts over
// after a read that found members. What a pop took for a waiter that left
// meanwhile goes to the next waiter of its kind, or back into the key; a
// waiter whose timeout passed is answered nil only once each of its keys
// was read afterwards without serving it. blockOp is the seam other
// blocking commands (BZMOVE) serve through: "take up to n members from
// key, give back what was taken".

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redimo-go/redimo/internal/model"
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
	return c.mpop(ctx, "ZMPOP", keys, count, c.popOp("ZMPOP", rev).take)
}

// BZPopMin pops the member with the lowest score from the first of keys
// that is not empty, as Redis's BZPOPMIN; when all are empty it waits for
// a member to be added, up to timeout (0: until ctx ends). ok is false
// (Redis's nil) when the timeout passed. A negative timeout is an
// ErrOutOfRange *ArgError.
//
// Waiting: the waiters of one Client are served together, key by key,
// first come first served as in Redis: when a key gets n members, the n
// longest-waiting pops on it get one each, from one ZPOPMIN of n (one
// per end when BZPopMax waiters wait too), not one pop after the other.
// A ZADD (or any write adding members) to one of keys made through the
// same Client is seen at once; a write from another Client or process at
// the Client's next read of the key, at most Options.MaxPollInterval
// (default 1 s) later. Between Clients, the one that reads first takes
// the members: fair as far as their polls are. When the timeout passes,
// the keys are read once more (a member added since the last read is
// popped, not left behind), so a pop answers nil up to a read after its
// timeout; a pop under way for it when the timeout passes is waited for.
// A waiter whose ctx ends returns ctx's error at once, and a member popped
// for it meanwhile goes to the next waiter, else back into its key (a
// ZADD NX with its score: a key that pop emptied comes back without its
// expiry, a member without its own).
//
// Cost of waiting, per Client and per key waited on, whatever the number
// of waiters: one BatchGetItem of the key's metadata item (1 read unit)
// per read, the reads 25 ms apart at first, doubling up to
// MaxPollInterval, so about one read unit per key per second after the
// first seconds (86,400 read units a day per key waited on, at the
// default), plus one read per key at each waiter's timeout. Serving n
// waiters of one end: one pop of n members (one Query and one GetItem,
// ⌈n/99⌉ TransactWriteItems, one more when it empties the key).
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
	return c.block(ctx, "BZMPOP", timeout, keys, count, c.popOp("BZMPOP", rev))
}

func (c *Client) bzpop(ctx context.Context, cmd string, timeout time.Duration, rev bool, keys []string) (ZWithKey, bool, error) {
	if err := checkKeyList(cmd, keys); err != nil {
		return ZWithKey{}, false, err
	}
	if err := checkTimeout(cmd, timeout); err != nil {
		return ZWithKey{}, false, err
	}
	key, zs, err := c.block(ctx, cmd, timeout, keys, 1, c.popOp(cmd, rev))
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

// mpop takes up to count members (take: ZPOPMIN's or ZPOPMAX's, or
// another blockOp's) from the first existing key of keys.
func (c *Client) mpop(ctx context.Context, cmd string, keys []string, count int64, take func(ctx context.Context, key string, n int64) ([]Z, error)) (key string, zs []Z, err error) {
	err = c.attempts(ctx, false, func() (bool, error) {
		ms, err := c.metas(ctx, keys)
		if err != nil {
			return true, wrap(cmd, err)
		}
		at := -1
		for i, m := range ms {
			// A key whose members all expired is missing (settle).
			if ms[i], err = c.settle(ctx, keys[i], m, false); err != nil {
				return true, wrap(cmd, err)
			}
			if ms[i].Typ != model.TypeNone {
				at = i
				break
			}
		}
		switch {
		case at < 0:
			return true, nil
		case ms[at].Typ != model.TypeZSet:
			return true, ErrWrongType
		}
		popped, err := take(ctx, keys[at], count)
		if err != nil || len(popped) > 0 {
			key, zs = keys[at], popped
			return true, err
		}
		// Another client emptied the key between the two reads: look again.
		return false, nil
	})
	return key, zs, err
}

// blockOp is what a blocked command does to a key that holds members:
// take removes up to n members from key (pops them, or moves them
// elsewhere) and returns them, in the order they go to the waiters (the
// first waiter's first); undo gives back members that take returned for
// waiters that left before they could be handed them. The waiters of one
// key with equal kinds are served by one call of take for all of them,
// so kind must name everything take does (the end it takes from, a
// destination). take and undo run under a context that no waiter cancels,
// so that what they did is always known.
type blockOp struct {
	kind string
	take func(ctx context.Context, key string, n int64) ([]Z, error)
	undo func(ctx context.Context, key string, zs []Z) error
}

// popOp is the blockOp of the blocking pops (cmd names errors): take is
// ZPOPMIN (ZPOPMAX with rev) with COUNT n, undo a ZADD NX of the members
// with the scores they had.
func (c *Client) popOp(cmd string, rev bool) blockOp {
	kind := string(PopMin)
	if rev {
		kind = string(PopMax)
	}
	return blockOp{
		kind: kind,
		take: func(ctx context.Context, key string, n int64) ([]Z, error) {
			return c.pop(ctx, cmd, key, rev, []int64{n})
		},
		undo: func(ctx context.Context, key string, zs []Z) error {
			_, err := c.ZAddArgs(ctx, key, ZAddArgs{NX: true, Members: zs})
			return err
		},
	}
}

// block takes up to count members from the first of keys that has some
// (op.take), waiting for members while all are empty until the timeout
// passes (0: never; then key is "" and zs empty) or ctx ends. Inside a
// transaction it does not wait, as Redis's blocking commands inside
// MULTI. Its first try is its own, as ZMPOP's (WRONGTYPE for a first
// existing key of another type), unless waiters of this Client are
// already queued on one of keys: it then queues behind them at once,
// first come first served (a key of another type then leaves it waiting,
// as one that changed type while it waited). A waiting command is served
// by its keys' feeders (waiters.feed).
func (c *Client) block(ctx context.Context, cmd string, timeout time.Duration, keys []string, count int64, op blockOp) (string, []Z, error) {
	if c.tx != nil {
		return c.mpop(ctx, cmd, keys, count, op.take)
	}
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	// Registered before the first try, so that a write committed between
	// that try and the wait still wakes a feeder that serves it.
	w := &waiter{cmd: cmd, keys: model.Dedupe(keys), count: count, op: op,
		ctx: context.WithoutCancel(c.labelled(ctx)), done: make(chan blockResult, 1)}
	behind := c.waiters.add(c, w)
	if !behind {
		key, zs, err := c.mpop(ctx, cmd, keys, count, op.take)
		if err != nil || len(zs) > 0 {
			c.waiters.leave(w)
			return key, zs, err
		}
	}
	c.waiters.ready(w)
	for {
		select {
		case r := <-w.done:
			return r.key, r.zs, r.err
		case <-deadline:
			// Answered nil only once each of keys was read after now.
			deadline = nil
			c.waiters.expire(w)
		case <-ctx.Done():
			if r, served := c.waiters.leave(w); served {
				return r.key, r.zs, r.err
			}
			return "", nil, wrap(cmd, ctx.Err())
		}
	}
}

// waiters are the blocked commands of one Client, by key, in the order
// they began to wait: as Redis, the first to wait on a key is served
// first. Each key with waiters has a feeder, a goroutine that reads the
// key and serves its waiters together (feed).
type waiters struct {
	mu sync.Mutex
	by map[string]*keyQueue
}

// keyQueue is one key's waiters and its feeder's state.
type keyQueue struct {
	key    string
	ws     []*waiter     // in the order they began to wait
	kick   chan struct{} // wakes the feeder: members were added, a waiter came or left
	rounds uint64        // reads the feeder has begun
	// missed: the feeder was kicked while no waiter was waiting (all
	// trying by themselves or claimed on another key), and did not read.
	missed bool
}

// waiter is one blocked command.
type waiter struct {
	cmd   string
	keys  []string
	count int64
	op    blockOp
	ctx   context.Context // the command's, without its cancellation: its feeders' requests
	done  chan blockResult
	state waitState
	// marks are set when the timeout passed: for each key's queue, the
	// rounds it had begun then. The waiter is answered nil once every
	// key had a read begun after that which did not serve it.
	marks map[*keyQueue]uint64
}

type waitState int

const (
	trying   waitState = iota // its own first try: feeders pass it over
	waiting                   // a feeder may claim it
	claimed                   // a feeder's take for it is under way
	answered                  // done holds its answer, or it left
)

// blockResult is a blocked command's answer.
type blockResult struct {
	key string
	zs  []Z
	err error
}

// add queues w on its keys, starting a feeder for a key that has none,
// and reports whether other waiters of this Client were already waiting
// on one of them.
func (ws *waiters) add(c *Client, w *waiter) (behind bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.by == nil {
		ws.by = map[string]*keyQueue{}
	}
	for _, k := range w.keys {
		q := ws.by[k]
		if q == nil {
			q = &keyQueue{key: k, kick: make(chan struct{}, 1)}
			ws.by[k] = q
			go ws.feed(c, q)
		}
		for _, o := range q.ws {
			behind = behind || o.state == waiting || o.state == claimed
		}
		q.ws = append(q.ws, w)
	}
	return behind
}

// ready lets feeders serve w, its own first try done or skipped. (A
// waiter queued behind others needs no read of its own: the key was empty
// at the feeder's last read, or the feeder reads again minPollInterval
// after the take under way.)
func (ws *waiters) ready(w *waiter) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.wait(w)
}

// wait (ws.mu held) lets feeders serve w, and has the keys whose feeder
// passed a kick over while w was not waiting read at once.
func (ws *waiters) wait(w *waiter) {
	w.state = waiting
	for _, k := range w.keys {
		if q := ws.by[k]; q.missed {
			q.missed = false
			signal(q.kick)
		}
	}
}

// leave takes w out of the queues (its context ended, or its own try
// served it), unless it was answered: then it returns that answer.
func (ws *waiters) leave(w *waiter) (blockResult, bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w.state == answered {
		select {
		case r := <-w.done:
			return r, true
		default:
			return blockResult{}, false
		}
	}
	// A take under way for it hands its members to the next waiter, or
	// back to the key (deliver).
	w.state = answered
	ws.remove(w)
	return blockResult{}, false
}

// expire notes that w's timeout passed: it is answered nil after a read
// of each of its keys begun from now on that did not serve it.
func (ws *waiters) expire(w *waiter) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w.state == answered {
		return
	}
	ws.mark(w)
}

// mark (ws.mu held) sets w's marks at its queues' rounds now and wakes
// their feeders.
func (ws *waiters) mark(w *waiter) {
	w.marks = map[*keyQueue]uint64{}
	for _, k := range w.keys {
		q := ws.by[k]
		w.marks[q] = q.rounds
		signal(q.kick)
	}
}

// answer (ws.mu held) answers w and takes it out of the queues.
func (ws *waiters) answer(w *waiter, r blockResult) {
	w.state = answered
	ws.remove(w)
	w.done <- r
}

// remove (ws.mu held) takes w out of its keys' queues; a feeder left with
// no waiters is woken to end.
func (ws *waiters) remove(w *waiter) {
	for _, k := range w.keys {
		q := ws.by[k]
		if i := slices.Index(q.ws, w); i >= 0 {
			q.ws = slices.Delete(q.ws, i, i+1)
		}
		if len(q.ws) == 0 {
			signal(q.kick)
		}
	}
}

// notifyAdded wakes the feeder of key: a transaction that added members
// to it committed.
func (ws *waiters) notifyAdded(key string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if q := ws.by[key]; q != nil {
		signal(q.kick)
	}
}

// feed serves q's waiters until it has none. Each round reads the key's
// metadata item (its type and member count) and, when it holds members,
// serves the waiters (serve). A round begins when the feeder is kicked
// (this Client added members to the key, or a waiter's timeout passed),
// or after a delay: minPollInterval after a round that found members,
// doubling after each that did not, up to Options.MaxPollInterval. A
// round waits for its takes: the next begins after them. No round reads
// while no waiter is waiting (all trying by themselves, or claimed on
// another key): the first to wait again has a kick passed over meanwhile
// read at once (wait).
func (ws *waiters) feed(c *Client, q *keyQueue) {
	delay := minPollInterval
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		kicked := false
		select {
		case <-q.kick:
			kicked = true
		case <-t.C:
		}
		ws.mu.Lock()
		if len(q.ws) == 0 {
			if ws.by[q.key] == q {
				delete(ws.by, q.key)
			}
			ws.mu.Unlock()
			return
		}
		if !slices.ContainsFunc(q.ws, func(w *waiter) bool { return w.state == waiting }) {
			// Nobody to serve: no read (wait reads when one is back).
			q.missed = q.missed || kicked
			ws.mu.Unlock()
			t.Reset(delay)
			continue
		}
		q.rounds++
		ctx := q.ws[0].ctx // the longest waiting command's, for Options.Metrics
		ws.mu.Unlock()

		found := ws.round(c, q, ctx)

		ws.mu.Lock()
		for _, w := range slices.Clone(q.ws) {
			if mark, ok := w.marks[q]; ok && w.state == waiting && q.rounds > mark {
				delete(w.marks, q)
				if len(w.marks) == 0 {
					ws.answer(w, blockResult{}) // timed out: nothing for it
				}
			}
		}
		ws.mu.Unlock()
		if found {
			delay = minPollInterval
		} else {
			delay = min(2*delay, c.opts.MaxPollInterval)
		}
		t.Reset(delay)
	}
}

// round reads q's key and serves its waiters when it holds members; it
// reports whether it found members (then the next read comes soon:
// members a waiter still trying by itself missed, or that another client
// took first, may be followed by more). A failed read is the answer of
// the waiters waiting on the key, as a failed request of a command.
func (ws *waiters) round(c *Client, q *keyQueue, ctx context.Context) bool {
	ms, err := c.metas(ctx, []string{q.key})
	var m model.Meta
	if err == nil {
		// A key whose members all expired is missing (settle).
		m, err = c.settle(ctx, q.key, ms[0], false)
	}
	if err != nil {
		ws.mu.Lock()
		for _, w := range slices.Clone(q.ws) {
			if w.state == waiting {
				ws.answer(w, blockResult{err: wrap(w.cmd, err)})
			}
		}
		ws.mu.Unlock()
		return false
	}
	if m.Typ != model.TypeZSet || m.Card == 0 {
		// A key of another type leaves its waiters waiting, as Redis.
		return false
	}
	ws.serve(c, q, ctx, m.Card)
	return true
}

// batch is the waiters of one key served by one take.
type batch struct {
	op blockOp
	ws []*waiter
	n  int64 // members taken for them
}

// serve gives the card members of q's key out as Redis would, first come
// first served: it claims the waiting waiters in order, each for up to
// its count, until card members are promised, then runs one take per
// kind of waiter, in the order of their first waiter, and hands the
// members out (deliver).
func (ws *waiters) serve(c *Client, q *keyQueue, ctx context.Context, card int64) {
	ws.mu.Lock()
	var batches []*batch
	for _, w := range q.ws {
		if card == 0 {
			break
		}
		if w.state != waiting {
			continue // trying, or claimed on another key
		}
		w.state = claimed
		i := slices.IndexFunc(batches, func(b *batch) bool { return b.op.kind == w.op.kind })
		if i < 0 {
			i = len(batches)
			batches = append(batches, &batch{op: w.op})
		}
		n := min(w.count, card)
		batches[i].ws = append(batches[i].ws, w)
		batches[i].n += n
		card -= n
	}
	ws.mu.Unlock()
	for _, b := range batches {
		zs, err := b.op.take(ctx, q.key, b.n)
		ws.deliver(ctx, q, b, zs, err)
	}
}

// deliver hands the members b's take returned to b's waiters in order,
// each up to its count. A waiter that left meanwhile (its context ended)
// gets none: what it would have had goes to the next waiter of the same
// kind on the key, claimed or not, and what no waiter takes goes back
// into the key (op.undo), so that no member is lost. A claimed waiter
// left without members (another client took them first) waits on; after
// a failed take it gets the error, unless the failure is ErrContention
// (other clients kept taking the members: it waits on).
func (ws *waiters) deliver(ctx context.Context, q *keyQueue, b *batch, zs []Z, err error) {
	if errors.Is(err, ErrContention) {
		err = nil
	}
	ws.mu.Lock()
	give := func(w *waiter) {
		n := min(w.count, int64(len(zs)))
		ws.answer(w, blockResult{key: q.key, zs: zs[:n:n]})
		zs = zs[n:]
	}
	for _, w := range b.ws {
		switch {
		case w.state != claimed: // it left
		case len(zs) > 0:
			give(w)
		case err != nil:
			ws.answer(w, blockResult{err: err})
		default:
			ws.wait(w)
			if w.marks != nil {
				ws.mark(w) // its timeout passed: its keys are read again
			}
		}
	}
	for _, w := range slices.Clone(q.ws) {
		if len(zs) == 0 {
			break
		}
		if w.state == waiting && w.op.kind == b.op.kind {
			give(w)
		}
	}
	ws.mu.Unlock()
	if len(zs) > 0 {
		// Nobody is left to take them. Should this write fail too (after
		// the retries of every write), the members are lost: a failure of
		// DynamoDB between two requests of one command, as a ZPOPMIN whose
		// reply never reaches its client.
		_ = b.op.undo(ctx, q.key, zs)
	}
}

// signal wakes a waiter unless it is already woken.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
