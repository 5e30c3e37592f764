package redimo

// The waiting of the blocking commands (BZPOPMIN, BZPOPMAX, BZMPOP,
// BZMOVE): each Client's waiters by key, the feeder that serves a key's
// waiters together, and the wake-up its writer gives them when it adds
// members (notifyAdded). The commands are in zpop.go and zmove.go.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// minPollInterval is the first delay between two reads of a blocking pop.
const minPollInterval = 25 * time.Millisecond

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

// WithWaitNotice returns ctx carrying notice, which a blocking command
// (BZPopMin, BZPopMax, BZMPop, BZMove) run under it calls once, when it
// has tried its keys, found nothing and begins to wait; a command served
// at once never calls it. redimo-server counts a connection in INFO's
// blocked_clients and lists it with CLIENT LIST's flag b from then on, as
// Redis does a blocked client.
func WithWaitNotice(ctx context.Context, notice func()) context.Context {
	return context.WithValue(ctx, waitNoticeKey{}, notice)
}

type waitNoticeKey struct{}

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
	if n := keptCard(c, q.key); n > 0 {
		// A small sorted set this Client wrote last, holding members as
		// its write left it (smallz.go): its pop plans from that item and
		// is refused, then planned from the item as it is, should another
		// client have written it since. No read first.
		ws.serve(c, q, ctx, n)
		return true
	}
	ms, err := c.view().metas(ctx, []string{q.key})
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
	for _, w := range b.ws {
		switch {
		case w.state != claimed: // it left
		case len(zs) > 0:
			zs = ws.give(w, q.key, zs)
		case err != nil:
			ws.answer(w, blockResult{err: err})
		default:
			ws.wait(w)
			if w.marks != nil {
				ws.mark(w) // its timeout passed: its keys are read again
			}
		}
	}
	zs = ws.giveWaiting(q, b.op.kind, zs)
	ws.mu.Unlock()
	if len(zs) > 0 {
		// Nobody is left to take them. Should this write fail too (after
		// the retries of every write), the members are lost: a failure of
		// DynamoDB between two requests of one command, as a ZPOPMIN whose
		// reply never reaches its client.
		_ = b.op.undo(ctx, q.key, zs)
	}
}

// giveWaiting (ws.mu held) gives zs to q's waiting waiters of kind, first
// come first served, each up to its count, and returns what none took.
func (ws *waiters) giveWaiting(q *keyQueue, kind string, zs []Z) []Z {
	for _, w := range slices.Clone(q.ws) {
		if len(zs) == 0 {
			break
		}
		if w.state == waiting && w.op.kind == kind {
			zs = ws.give(w, q.key, zs)
		}
	}
	return zs
}

// give (ws.mu held) answers w with the first of zs, up to its count, and
// returns the rest.
func (ws *waiters) give(w *waiter, key string, zs []Z) []Z {
	n := min(w.count, int64(len(zs)))
	ws.answer(w, blockResult{key: key, zs: zs[:n:n]})
	return zs[n:]
}

// handOn gives zs, which op took from key for a command that left before
// it could be answered (its own first try), to the key's waiting waiters
// of the same kind, and puts back what none takes (op.undo), as deliver
// does for a waiter that left.
func (ws *waiters) handOn(ctx context.Context, key string, op blockOp, zs []Z) {
	ws.mu.Lock()
	if q := ws.by[key]; q != nil {
		zs = ws.giveWaiting(q, op.kind, zs)
	}
	ws.mu.Unlock()
	if len(zs) > 0 {
		_ = op.undo(ctx, key, zs)
	}
}

// signal wakes a waiter unless it is already woken.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// mpop takes up to count members (take: ZPOPMIN's or ZPOPMAX's, or
// another blockOp's) from the first existing key of keys. Of one key, take
// alone: it reads the key and checks its type itself (a BZPOPMIN's try
// is its pop's requests, no BatchGetItem before them).
func (c *Client) mpop(ctx context.Context, cmd string, keys []string, count int64, take func(ctx context.Context, key string, n int64) ([]Z, error)) (key string, zs []Z, err error) {
	if len(keys) == 1 {
		if zs, err = take(ctx, keys[0], count); len(zs) > 0 {
			key = keys[0]
		}
		return key, zs, err
	}
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		ms, err := c.view().metas(ctx, keys)
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
