package redimo

// The storage view: where the commands read and write.
//
// Every command is written once, on *Client, and reaches its data only
// through c.view(): the table (table, below: DynamoDB through the store,
// the transaction writer of tx.go and its combiner) or, inside MULTI/EXEC,
// the transaction's snapshot (snapshot.go), which answers from what the
// transaction read and changed and commits it all as one TransactWriteItems
// (exec.go). Kvrocks runs EXEC's commands on its storage in transaction
// mode and etcd's mvcc gives its readers and writers a ReadView and a
// WriteView over one backend; this is that shape. No command asks which
// storage it runs on: where the two differ, the view's method says how.
//
// A transaction's Client has no table of its own: its store refuses every
// request (failingAPI{model.ErrOutsideTx}), so a command that would go
// around the view fails loudly instead of writing outside the transaction.

import (
	"context"
	"iter"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// view is a storage the commands run on.
type view interface {
	// Reads of keys: type, count and expiry as stored (metaOf: one key,
	// metas: many, live), the live count (SCARD/ZCARD).
	metaOf(ctx context.Context, key string, consistent *bool) (model.Meta, error)
	metas(ctx context.Context, keys []string) ([]model.Meta, error)
	liveCount(ctx context.Context, key string, typ model.KeyType) (int64, error)

	// Reads of members: some by name (probe), all in order (memberItems;
	// keyItems: after the key's metadata item when it has one),
	// a sorted-set range (read, count) and a member's rank.
	probe(ctx context.Context, key string, typ model.KeyType, members []string, withMeta bool) (map[string]model.Item, error)
	memberItems(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error]
	keyItems(ctx context.Context, key string, typ model.KeyType) iter.Seq2[model.Item, error]
	read(ctx context.Context, key string, r zrange) ([]Z, error)
	count(ctx context.Context, key string, r zrange) (int64, error)
	rank(ctx context.Context, key, member string, rev bool) (RankScore, bool, error)

	// Writes: member writes grouped by key, judged by their conditions
	// (write: rebuilt by build whenever a key turns out expired;
	// writeChunks: one key's, in as many transactions as they need, of
	// which transactions tells the number), a key's expiry (setExpiry,
	// removeExpiry), a key's deletion (purge: one that expired; drop: DEL).
	write(ctx context.Context, build func() []*model.Group) (model.TxResult, error)
	writeChunks(ctx context.Context, key string, typ model.KeyType, writes []*model.Write, now model.Meta) ([]*model.Write, error)
	transactions(key string, typ model.KeyType, writes []*model.Write) int
	setExpiry(ctx context.Context, key string, at int64, cond ExpireCondition, flag string) (bool, error)
	removeExpiry(ctx context.Context, key, cond string) (bool, model.Meta, error)
	purge(ctx context.Context, key string, m model.Meta) error
	drop(ctx context.Context, key string, m model.Meta) (deleted, changed bool, err error)

	// each runs f for 0 … n-1 and returns the first error: the table
	// several at a time (Options.Parallelism: a multi-key DEL, whose
	// reclaims each wait out the read lease), a snapshot one after another.
	each(n int, f func(i int) error) error

	// What the storage is: whether the table has member expiry's indexes;
	// whether m's members may carry expiries m does not count (zmove.go);
	// whether a set m describes is of member items (OBJECT ENCODING).
	memberTTL(ctx context.Context) (bool, error)
	uncounted(m model.Meta) bool
	itemSet(m model.Meta) bool

	// The table's own ways, which a snapshot has no need of: it declines
	// (ok or handled false, nothing read) and the caller takes the general
	// path. The small-set encoding (smallset.go); count items (rank.go:
	// seek, ranked counts and draws); random buckets (randmember.go); the
	// blocking wait (zpop.go: a snapshot does not wait, as Redis's
	// blocking commands inside MULTI).
	smallAdd(ctx context.Context, key string, members []string) (n int64, handled bool, err error)
	smallRem(ctx context.Context, key string, members []string) (n int64, handled bool, err error)
	smallPop(ctx context.Context, key string, count int64) (popped []string, handled bool, read *model.Meta, err error)
	// The small sorted-set encoding (smallz.go): a command's plan on it.
	smallZ(ctx context.Context, key string, read bool, plan zPlan) (handled bool, err error)
	seek(ctx context.Context, key string, r *zrange) error
	rankedCount(r zrange, ranked func(zrange) (int64, bool, error)) (int64, bool, error)
	rankedDraw(ctx context.Context, key string, count int) ([]Z, bool, error)
	bucketDraw(ctx context.Context, key string, m model.Meta, n int64, distinct bool) ([]string, bool, error)
	wait(ctx context.Context, cmd string, timeout time.Duration, keys []string, count int64, op blockOp) (string, []Z, error)
	// What a one-member sorted-set write assumes of its member before
	// writing (nil: absent; table.memberGuess).
	memberGuess(ctx context.Context, key, member string) (model.Item, error)
}

// table is the view of DynamoDB: c's own table.
type table struct{ c *Client }

var (
	_ view = table{}
	_ view = (*snapshot)(nil)
)

// view is the storage c runs on: its transaction's snapshot, or the table.
func (c *Client) view() view {
	if c.snap != nil {
		return c.snap
	}
	return table{c}
}

// over is c running on the snapshot s: a transaction's Client.
func (c *Client) over(s *snapshot) *Client {
	t := &Client{opts: c.opts, shared: c.shared, snap: s}
	t.st = t.storeOver(failingAPI{model.ErrOutsideTx})
	return t
}

// frozen is c with its clock stopped at now: every command of a
// transaction, the snapshot's reads of expiries and the sweeps and purges
// they make run at the moment the transaction started, as Redis freezes
// time during EXEC (a key or member that expires meanwhile is live for the
// whole transaction). Each attempt of the transaction freezes anew.
func (c *Client) frozen() *Client {
	at := c.opts.Now()
	f := *c
	f.opts.Now = func() time.Time { return at }
	return &f
}

func (t table) each(n int, f func(i int) error) error { return t.c.st.Parallel(n, f) }
