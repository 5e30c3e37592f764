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
	"strconv"
	"time"
)

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
	ctx, traced := c.command(ctx, "ZMPop")
	defer traced.end(&err)
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
func (c *Client) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (_ ZWithKey, _ bool, err error) {
	ctx, traced := c.command(ctx, "BZPopMin")
	defer traced.end(&err)
	return c.bzpop(ctx, "BZPOPMIN", timeout, false, keys)
}

// BZPopMax is BZPopMin from the highest score, as Redis's BZPOPMAX.
//
// Cost: as BZPopMin.
//
// [BZPOPMAX]: https://redis.io/docs/latest/commands/bzpopmax/
func (c *Client) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (_ ZWithKey, _ bool, err error) {
	ctx, traced := c.command(ctx, "BZPopMax")
	defer traced.end(&err)
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
	ctx, traced := c.command(ctx, "BZMPop")
	defer traced.end(&err)
	rev, err := checkMPop("BZMPOP", order, count, keys)
	if err != nil {
		return "", nil, err
	}
	if err := checkTimeout("BZMPOP", timeout); err != nil {
		return "", nil, err
	}
	return c.view().wait(ctx, "BZMPOP", timeout, keys, count, c.popOp("BZMPOP", rev))
}

func (c *Client) bzpop(ctx context.Context, cmd string, timeout time.Duration, rev bool, keys []string) (ZWithKey, bool, error) {
	if err := checkKeyList(cmd, keys); err != nil {
		return ZWithKey{}, false, err
	}
	if err := checkTimeout(cmd, timeout); err != nil {
		return ZWithKey{}, false, err
	}
	key, zs, err := c.view().wait(ctx, cmd, timeout, keys, 1, c.popOp(cmd, rev))
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
	switch order {
	case PopMin:
	case PopMax:
		rev = true
	default:
		return false, argError(cmd, "order", order.String(), ErrSyntax)
	}
	return rev, checkKeys(cmd, keys...)
}

func checkTimeout(cmd string, timeout time.Duration) error {
	if timeout < 0 {
		return argError(cmd, "timeout", timeout.String(), ErrOutOfRange)
	}
	return nil
}

// popOp is the blockOp of the blocking pops (cmd names errors): take is
// ZPOPMIN (ZPOPMAX with rev) with COUNT n, undo a ZADD NX of the members
// with the scores they had.
func (c *Client) popOp(cmd string, rev bool) blockOp {
	kind := PopMin.String()
	if rev {
		kind = PopMax.String()
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
