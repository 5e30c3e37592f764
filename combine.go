package redimo

// Write combining: the write commands of one Client that run at the same
// time share TransactWriteItems requests.
//
// Every write is a transaction that also updates its key's metadata item,
// so on a busy key every writer meets every other on that one item: on
// DynamoDB they cancel each other (TransactionConflict), and DynamoDB
// Local runs transactions one at a time. So the Client lets at most one
// transaction per key be in flight (and, only when Options.MaxTransactions
// is set, at most that many in all); an attempt whose key is busy waits in
// a queue, and whatever waits goes together in the next transaction: up
// to model.MaxTxItems actions,
// one metadata action per key carrying the sum of the cardinality changes,
// and, for a ranked sorted set, one action per count item carrying the sum
// of the changes of its range (DynamoDB refuses two actions on one item in
// a transaction).
// An attempt on a key with no transaction in flight goes at once, in the
// caller's goroutine: no added latency, and writes of different keys go
// out in parallel, as many as the callers make (by default there is no
// Client-wide cap: a cap makes writes of idle keys wait for the
// latency of others, which costs throughput on DynamoDB, where
// transactions of different items run side by side;
// BenchmarkManyKeysModel measures it).
//
// Each attempt keeps its own writes, conditions and retries (transact):
// a cancelled shared transaction hands every attempt the cancellation
// reasons of its own actions, so replies are exactly what each command
// would have got alone. Attempts on one key leave the queue in the order
// they entered it, and two attempts that write the same member never share
// a transaction, so the writes of a key apply in order. An attempt whose
// shared transaction fails for another reason than a cancellation or a
// conflict is sent again alone, so one command's error never becomes its
// neighbours'.

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/redimo-go/redimo/internal/model"
)

// attempt is one try of one command's transaction: its actions as it
// would send them alone.
type attempt struct {
	ctx     context.Context
	actions []types.TransactWriteItem
	owners  []*model.Group // owners[i] is the group of actions[i]
	writes  []*model.Write // writes[i] is actions[i]'s write, nil for a metadata action
	done    chan txOutcome

	// For the writer's phases (tx.go): when it was rendered (Unix ms),
	// each group's count-item writes, and where each group's metadata
	// action is in actions (-1: none).
	now    int64
	counts map[*model.Group][]*model.Write
	metaAt []int

	at []int // where each action went in the shared transaction
}

// add appends the action a of group g (w: its write; nil for the
// metadata action).
func (at *attempt) add(a types.TransactWriteItem, g *model.Group, w *model.Write) {
	at.actions, at.owners, at.writes = append(at.actions, a), append(at.owners, g), append(at.writes, w)
}

// txOutcome is what became of an attempt.
type txOutcome struct {
	err error
	// reasons are the cancellation reasons of the attempt's own actions,
	// when its transaction was cancelled; elsewhere says a conflict or
	// throttling cancelled another attempt's action of the same
	// transaction (the attempt's own conditions may not have been
	// evaluated).
	reasons   []types.CancellationReason
	elsewhere bool
	// alone asks for the attempt to be sent again on its own.
	alone bool
}

// combiner queues the attempts of one Client and sends them together.
type combiner struct {
	c        *Client
	mu       sync.Mutex
	queue    []*attempt
	busy     map[string]bool // keys with a transaction in flight
	inflight int
}

// send runs a through the combiner and returns its outcome.
func (cb *combiner) send(a *attempt) txOutcome {
	a.done = make(chan txOutcome, 1)
	cb.mu.Lock()
	cb.queue = append(cb.queue, a)
	batch := cb.take()
	cb.mu.Unlock()
	if batch != nil {
		cb.run(batch) // in the caller's goroutine: it holds a itself, or a waits its turn
	}
	select {
	case out := <-a.done:
		return out
	case <-a.ctx.Done():
		cb.mu.Lock()
		queued := false
		for i, q := range cb.queue {
			if q == a {
				cb.queue = append(cb.queue[:i], cb.queue[i+1:]...)
				queued = true
				break
			}
		}
		cb.mu.Unlock()
		if queued { // never sent: nothing of it is written
			return txOutcome{err: a.ctx.Err()}
		}
		// In flight: its transaction's outcome, whatever it is, so that a
		// write that commits is never reported as not done. The
		// transaction ends when every caller in it gave up (batchContext).
		return <-a.done
	}
}

// batchContext is the context a batch's transaction is sent with: the
// attempt's own when it is alone, so that its caller's deadline and
// cancellation apply as without combining; for a shared transaction, one
// that ends when every attempt's context has ended, since it carries the
// writes of callers that still wait for it.
func batchContext(batch []*attempt) (context.Context, func()) {
	if len(batch) == 1 {
		return batch[0].ctx, func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, a := range batch {
		stops[i] = context.AfterFunc(a.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// take removes from the queue the attempts of the next transaction, or
// returns nil when none can go now (every queued attempt waits for a key
// in flight, or Options.MaxTransactions are in flight). It marks their
// keys busy. mu held.
func (cb *combiner) take() []*attempt {
	if capped := cb.c.opts.MaxTransactions > 0 && cb.inflight >= cb.c.opts.MaxTransactions; capped || len(cb.queue) == 0 {
		return nil
	}
	var (
		batch []*attempt
		st    = newBatchState()
		rest  []*attempt
	)
	for _, a := range cb.queue {
		if err := a.ctx.Err(); err != nil { // its caller gave up: never send it
			a.done <- txOutcome{err: err}
			continue
		}
		if !cb.fits(a, st) {
			for _, g := range a.owners {
				st.blocked[g.Key] = true
			}
			rest = append(rest, a)
			continue
		}
		st.add(a)
		batch = append(batch, a)
	}
	cb.queue = rest
	if len(batch) == 0 {
		return nil
	}
	for k := range st.types {
		cb.busy[k] = true
	}
	cb.inflight++
	return batch
}

// batchState is what a batch being taken holds so far.
type batchState struct {
	n       int                      // actions: one per key's metadata item, one per count item
	size    int                      // bytes, by writeBytes
	types   map[string]model.KeyType // keys in the batch and their type
	ranked  map[string]bool          // whether the batch's attempts of a key believe it ranked
	members map[string]bool          // key + sort key of every member written
	counts  map[string]string        // key + sort key of every count item → its condition (rankCond)
	blocked map[string]bool          // keys an earlier attempt could not take
}

func newBatchState() *batchState {
	return &batchState{types: map[string]model.KeyType{}, ranked: map[string]bool{}, members: map[string]bool{},
		counts: map[string]string{}, blocked: map[string]bool{}}
}

// add puts a's actions in st (fits said yes).
func (st *batchState) add(a *attempt) {
	for _, g := range a.owners {
		if _, ok := st.types[g.Key]; !ok {
			st.types[g.Key], st.ranked[g.Key] = g.Typ, model.IsRanked(g)
			st.n++
		}
	}
	for g, w := range a.itemWrites() {
		id := model.ItemID(g, w)
		if w.RankItem {
			if _, ok := st.counts[id]; ok {
				continue // merged into the batch's action on that count item
			}
			st.counts[id] = model.RankCond(w)
		} else {
			st.members[id] = true
		}
		st.n++
		st.size += model.WriteBytes(g.Key, w)
	}
}

// fits reports whether a can join the batch st.
//
// The count items of a ranked key (rank.go) are merged like its metadata
// item: the attempts of one key that touch one count item share one action
// on it, adding the sum of their changes. So attempts of a key join only
// when they agree on whether it is ranked (the metadata condition they
// share says so) and, for each count item they share, on its range (the
// condition they share).
func (cb *combiner) fits(a *attempt, st *batchState) bool {
	added, bytes := 0, 0
	seen := map[string]bool{}
	for _, g := range a.owners {
		if cb.busy[g.Key] || st.blocked[g.Key] {
			return false
		}
		t, ok := st.types[g.Key]
		if ok && (t != g.Typ || st.ranked[g.Key] != model.IsRanked(g)) {
			return false
		}
		if !ok && !seen[g.Key] {
			seen[g.Key] = true
			added++
		}
	}
	for g, w := range a.itemWrites() {
		id := model.ItemID(g, w)
		if w.RankItem {
			if cond, ok := st.counts[id]; ok {
				if cond != model.RankCond(w) {
					return false
				}
				continue // shares the batch's action on that count item
			}
		} else if st.members[id] {
			return false
		}
		added++
		bytes += model.WriteBytes(g.Key, w)
	}
	return st.n+added <= model.MaxTxItems && (st.n == 0 || st.size+bytes <= model.MaxTxBytes)
}

// run sends batch, hands out the outcomes, and starts the transactions
// that became possible, each in a goroutine of its own.
func (cb *combiner) run(batch []*attempt) {
	cb.c.sendShared(batch)
	cb.mu.Lock()
	for _, a := range batch {
		for _, g := range a.owners {
			delete(cb.busy, g.Key)
		}
	}
	cb.inflight--
	var next [][]*attempt
	for b := cb.take(); b != nil; b = cb.take() {
		next = append(next, b)
	}
	cb.mu.Unlock()
	for _, b := range next {
		go cb.run(b)
	}
}

// itemWrites yields each of a's member and count item actions (not its
// metadata actions) as its key's group and its write.
func (a *attempt) itemWrites() iter.Seq2[*model.Group, *model.Write] {
	return func(yield func(*model.Group, *model.Write) bool) {
		for i, w := range a.writes {
			if w != nil && !yield(a.owners[i], w) {
				return
			}
		}
	}
}

// sendShared sends the attempts of batch as one TransactWriteItems: their
// member actions as they are, and one metadata action per key for the
// writes of all of them (the attempt's own when it is alone on its key).
func (c *Client) sendShared(batch []*attempt) {
	var (
		all    []types.TransactWriteItem
		merged = map[string]*model.Group{}
		order  []string
		metaOf = map[string][]*attempt{}
	)
	countAt := map[string]int{}         // key + count item's sort key → its action
	countWs := map[int][]*model.Write{} // the writes merged into a count item's action
	for _, a := range batch {
		a.at = make([]int, len(a.actions))
		for i, g := range a.owners {
			if w := a.writes[i]; w != nil && w.RankItem {
				id := model.ItemID(g, w)
				at, ok := countAt[id]
				if !ok {
					at = len(all)
					countAt[id] = at
					all = append(all, a.actions[i])
				}
				countWs[at] = append(countWs[at], w)
				a.at[i] = at
				continue
			}
			if a.writes[i] != nil {
				a.at[i] = len(all)
				all = append(all, a.actions[i])
				continue
			}
			m := merged[g.Key]
			if m == nil {
				m = &model.Group{Key: g.Key, Typ: g.Typ}
				merged[g.Key] = m
				order = append(order, g.Key)
			}
			m.Writes = append(m.Writes, g.Writes...)
			if model.IsRanked(g) {
				m.Rank = g.Rank // the key's attempts agree that it is ranked (fits)
			}
			m.NoBuild = m.NoBuild || g.NoBuild
			if g.Known && !m.Known {
				m.Known, m.Now = true, g.Now
			}
			metaOf[g.Key] = append(metaOf[g.Key], a)
			a.at[i] = -1 // set below
		}
	}
	for at, ws := range countWs {
		if len(ws) > 1 {
			all[at] = model.RankMerged(ws)
		}
	}
	metaAt := map[string]int{}
	for _, k := range order {
		metaAt[k] = len(all)
		if as := metaOf[k]; len(as) == 1 {
			for i, g := range as[0].owners {
				if as[0].writes[i] == nil && g.Key == k {
					all = append(all, as[0].actions[i])
				}
			}
			continue
		}
		all = append(all, c.metaAction(merged[k]))
	}
	for _, a := range batch {
		for i, g := range a.owners {
			if a.writes[i] == nil {
				a.at[i] = metaAt[g.Key]
			}
		}
	}
	ctx, done := batchContext(batch)
	err := c.st.SendTx(ctx, all)
	done()
	var cancelled *types.TransactionCanceledException
	isCancel := errors.As(err, &cancelled) && len(cancelled.CancellationReasons) == len(all)
	elsewhere := false
	if isCancel {
		for _, r := range cancelled.CancellationReasons {
			elsewhere = elsewhere || model.RetryableCode(aws.ToString(r.Code))
		}
	}
	var innocent []*attempt
	for _, a := range batch {
		out := txOutcome{err: err}
		switch {
		case err == nil, errors.Is(err, ErrContention):
		case isCancel:
			out.reasons, out.elsewhere = reasonsOf(a, cancelled), elsewhere
			failed := false
			for _, r := range out.reasons {
				failed = failed || aws.ToString(r.Code) != "None"
			}
			if !failed && !elsewhere {
				// Its own conditions held: a neighbour's failed. It goes
				// again at once without them, not counted as a try of its
				// own (else failing neighbours could starve it).
				innocent = append(innocent, a)
				continue
			}
		case len(batch) > 1 && refused(err):
			// Refused as a whole (nothing was applied): each goes alone.
			// Any other error may follow a transaction DynamoDB applied,
			// so it is each attempt's answer, as it would be alone: sent
			// again with a new token, it would meet its own writes.
			out = txOutcome{alone: true}
		}
		a.done <- out
	}
	if len(innocent) > 0 && len(innocent) < len(batch) {
		c.sendShared(innocent)
	} else {
		for _, a := range innocent { // every attempt's own conditions held
			a.done <- txOutcome{err: err, reasons: reasonsOf(a, cancelled)}
		}
	}
}

// reasonsOf is the cancellation reasons of a's own actions.
func reasonsOf(a *attempt, cancelled *types.TransactionCanceledException) []types.CancellationReason {
	out := make([]types.CancellationReason, len(a.actions))
	for i, at := range a.at {
		out[i] = cancelled.CancellationReasons[at]
	}
	return out
}

// refused reports whether DynamoDB refused a request as invalid
// (ValidationException): it applied none of it.
func refused(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}
