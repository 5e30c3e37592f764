package redimo

// Key expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME,
// PEXPIRETIME, PERSIST.
//
// A key's expiry is an attribute of its metadata item (Unix milliseconds),
// so setting or removing it is one UpdateItem, O(1) as in Redis. Every
// command treats an expired key as missing: reads check the metadata item
// (those that do not read it anyway read it in parallel or in the same
// BatchGetItem), and every write transaction requires the key not to have
// expired; a write that meets an expired key first deletes its items (the
// purge, in tx.go), then goes on as on a missing key. Until a write or DEL
// meets it, an expired key's items stay in the table, invisible.
//
// Clocks. Expiry is judged by the clock of the client that reads or writes
// (Options.Now), so clients of one table should keep their clocks in sync
// (NTP, or the Amazon Time Sync Service on EC2, keeps them within a few
// milliseconds). Skew moves the moment a key expires, never a count: a
// client whose clock lags by s may still write to a key up to s after its
// expiry (its write lands before the expiry as it judges it, and goes with
// the key), one whose clock runs ahead sees keys expire, and purges them,
// up to s early. Whatever the skew and however late a write arrives, the
// purge's first step (marking the metadata item dead) shuts every write
// out, so the stored count always equals the member items and no member of
// an expired key is ever seen again.

import (
	"context"
	"math"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// Expire sets a timeout of d on key and reports whether it was set (false:
// the key does not exist), as Redis's EXPIRE; d ≤ 0 deletes the key. The
// timeout has millisecond precision (Redis's EXPIRE takes seconds: use
// whole seconds for the same effect).
//
// Cost: one GetItem and one conditional UpdateItem (1 write unit); d ≤ 0
// costs a DEL.
//
// [EXPIRE]: https://redis.io/docs/latest/commands/expire/
func (c *Client) Expire(ctx context.Context, key string, d time.Duration) (_ bool, err error) {
	ctx, traced := c.command(ctx, "Expire")
	defer traced.end(&err)
	return c.expireAt(ctx, "EXPIRE", key, c.nowMs()+d.Milliseconds(), ExpireAlways)
}

// ExpireWith is Expire restricted by cond (NX, XX, GT, LT), as EXPIRE with
// an option. It reports whether the expiry was set (or the key deleted).
//
// [EXPIRE]: https://redis.io/docs/latest/commands/expire/
func (c *Client) ExpireWith(ctx context.Context, key string, d time.Duration, cond ExpireCondition) (_ bool, err error) {
	ctx, traced := c.command(ctx, "ExpireWith")
	defer traced.end(&err)
	return c.expireAt(ctx, "EXPIRE", key, c.nowMs()+d.Milliseconds(), cond)
}

// ExpireAtWith is ExpireAt restricted by cond (NX, XX, GT, LT), as
// EXPIREAT with an option.
//
// [EXPIREAT]: https://redis.io/docs/latest/commands/expireat/
func (c *Client) ExpireAtWith(ctx context.Context, key string, t time.Time, cond ExpireCondition) (_ bool, err error) {
	ctx, traced := c.command(ctx, "ExpireAtWith")
	defer traced.end(&err)
	return c.expireAtTime(ctx, "EXPIREAT", key, t, cond)
}

// PExpire is Expire, as Redis's PEXPIRE.
//
// [PEXPIRE]: https://redis.io/docs/latest/commands/pexpire/
func (c *Client) PExpire(ctx context.Context, key string, d time.Duration) (_ bool, err error) {
	ctx, traced := c.command(ctx, "PExpire")
	defer traced.end(&err)
	return c.expireAt(ctx, "PEXPIRE", key, c.nowMs()+d.Milliseconds(), ExpireAlways)
}

// ExpireAt makes key expire at t and reports whether it was set (false: the
// key does not exist), as Redis's EXPIREAT; a t not after now deletes the
// key. Cost: as Expire.
//
// [EXPIREAT]: https://redis.io/docs/latest/commands/expireat/
func (c *Client) ExpireAt(ctx context.Context, key string, t time.Time) (_ bool, err error) {
	ctx, traced := c.command(ctx, "ExpireAt")
	defer traced.end(&err)
	return c.expireAtTime(ctx, "EXPIREAT", key, t, ExpireAlways)
}

// PExpireAt is ExpireAt, as Redis's PEXPIREAT.
//
// [PEXPIREAT]: https://redis.io/docs/latest/commands/pexpireat/
func (c *Client) PExpireAt(ctx context.Context, key string, t time.Time) (_ bool, err error) {
	ctx, traced := c.command(ctx, "PExpireAt")
	defer traced.end(&err)
	return c.expireAtTime(ctx, "PEXPIREAT", key, t, ExpireAlways)
}

// expireAtTime is expireAt for a time.Time, which can lie beyond what
// int64 milliseconds hold: such a time is ErrOutOfRange, as Redis refuses
// an EXPIREAT whose milliseconds overflow, and nothing is written.
func (c *Client) expireAtTime(ctx context.Context, cmd, key string, t time.Time, cond ExpireCondition) (bool, error) {
	ms, ok := model.UnixMilli(t)
	if !ok {
		return false, argError(cmd, "time", t.String(), ErrOutOfRange)
	}
	return c.expireAt(ctx, cmd, key, ms, cond)
}

func (c *Client) expireAt(ctx context.Context, cmd, key string, at int64, cond ExpireCondition) (bool, error) {
	if err := checkKey(cmd, key); err != nil {
		return false, err
	}
	if c.opts.DisableKeyExpiry {
		return false, ErrKeyExpiryDisabled
	}
	var flag string
	switch cond {
	case ExpireAlways:
	case ExpireNX:
		flag = "attribute_not_exists(#x)"
	case ExpireXX:
		flag = "attribute_exists(#x)"
	case ExpireGT:
		flag = "#x < :at"
	case ExpireLT:
		flag = "attribute_not_exists(#x) OR #x > :at"
	case ExpireXXLT:
		flag = "#x > :at"
	default:
		return false, argError(cmd, "condition", cond.String(), ErrSyntax)
	}
	m, err := c.liveMetaOf(ctx, key)
	if err != nil || m.Typ == model.TypeNone {
		return false, wrap(cmd, err)
	}
	now := c.nowMs()
	if at <= now { // Redis deletes the key, once the condition holds
		if !cond.holds(m.Exp, at) {
			return false, nil
		}
		n, err := c.Del(ctx, key)
		return n > 0, wrap(cmd, err)
	}
	ok, err := c.view().setExpiry(ctx, key, at, cond, flag)
	return ok, wrap(cmd, err)
}

// Persist removes key's expiry and reports whether it had one, as Redis's
// PERSIST.
//
// Cost: one conditional UpdateItem (1 write unit). A key with an expiry
// whose members all have expiries of their own is also counted first (as
// SCARD), since if none is live the key is missing and PERSIST answers 0.
//
// [PERSIST]: https://redis.io/docs/latest/commands/persist/
func (c *Client) Persist(ctx context.Context, key string) (_ bool, err error) {
	ctx, traced := c.command(ctx, "Persist")
	defer traced.end(&err)
	if err := checkKey("PERSIST", key); err != nil {
		return false, err
	}
	removed, err := c.persist(ctx, key)
	return removed, wrap("PERSIST", err)
}

// persist removes a live key's expiry and reports whether it had one (false
// also when the key is missing or expired).
//
// A key whose members all have an expiry of their own may have none live
// left: a missing key, where Redis answers 0 and keeps nothing to remove.
// Only such a key is read first (settle); a key with a member without an
// expiry (mn < n, or no mn) is live, and its PERSIST stays one UpdateItem.
func (c *Client) persist(ctx context.Context, key string) (bool, error) {
	removed, m, err := c.view().removeExpiry(ctx, key, "attribute_not_exists(#mn) OR #mn < #n")
	if err != nil || removed || m.Typ == model.TypeNone || m.Expired(c.nowMs()) || m.Exp == 0 || m.TTLs < m.Card {
		return removed, err
	}
	if m, err = c.settle(ctx, key, m, false); err != nil || m.Typ == model.TypeNone {
		return false, err
	}
	removed, _, err = c.view().removeExpiry(ctx, key, "")
	return removed, err
}

// Special TTL and PTTL replies, as go-redis returns them.
const (
	TTLMissing    time.Duration = -2 // the key does not exist
	TTLPersistent time.Duration = -1 // the key exists and has no expiry
)

// TTL returns the time key has left, rounded to the second as Redis's TTL,
// or TTLMissing, or TTLPersistent. A time left longer than a Duration
// holds (about 292 years: Redis's EXPIRE takes up to 292 million) is
// reported as the largest Duration; ExpireTime gives it exactly.
//
// Cost: one GetItem, 1 read unit.
//
// [TTL]: https://redis.io/docs/latest/commands/ttl/
func (c *Client) TTL(ctx context.Context, key string) (_ time.Duration, err error) {
	ctx, traced := c.command(ctx, "TTL")
	defer traced.end(&err)
	ms, err := c.pttl(ctx, "TTL", key)
	if err != nil || ms < 0 || ms > math.MaxInt64-500*time.Millisecond {
		return ms, err
	}
	return (ms + 500*time.Millisecond) / time.Second * time.Second, nil
}

// PTTL is TTL in milliseconds, as Redis's PTTL.
//
// [PTTL]: https://redis.io/docs/latest/commands/pttl/
func (c *Client) PTTL(ctx context.Context, key string) (_ time.Duration, err error) {
	ctx, traced := c.command(ctx, "PTTL")
	defer traced.end(&err)
	return c.pttl(ctx, "PTTL", key)
}

func (c *Client) pttl(ctx context.Context, cmd, key string) (time.Duration, error) {
	if err := checkKey(cmd, key); err != nil {
		return 0, err
	}
	m, err := c.liveMetaOf(ctx, key)
	switch {
	case err != nil:
		return 0, wrap(cmd, err)
	case m.Typ == model.TypeNone:
		return TTLMissing, nil
	case m.Exp == 0:
		return TTLPersistent, nil
	}
	return msDuration(max(m.Exp-c.nowMs(), 0)), nil // beyond 292 years: see PExpireTime
}

// msDuration is ms milliseconds as a Duration, the largest Duration for
// more than one holds (about 292 years).
func msDuration(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// PExpireTime returns the Unix time in milliseconds at which key expires,
// as Redis's PEXPIRETIME, or -1 when key has no expiry, -2 when it does
// not exist. Unlike PTTL's Duration it holds every expiry Redis can set
// (PEXPIREAT takes any int64).
//
// Cost: one GetItem, 1 read unit.
//
// [PEXPIRETIME]: https://redis.io/docs/latest/commands/pexpiretime/
func (c *Client) PExpireTime(ctx context.Context, key string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "PExpireTime")
	defer traced.end(&err)
	if err := checkKey("PEXPIRETIME", key); err != nil {
		return 0, err
	}
	m, err := c.liveMetaOf(ctx, key)
	switch {
	case err != nil:
		return 0, wrap("PEXPIRETIME", err)
	case m.Typ == model.TypeNone:
		return -2, nil
	case m.Exp == 0:
		return -1, nil
	}
	return m.Exp, nil
}

// ExpireTime is PExpireTime in Unix seconds, rounded as Redis's
// EXPIRETIME rounds them.
//
// [EXPIRETIME]: https://redis.io/docs/latest/commands/expiretime/
func (c *Client) ExpireTime(ctx context.Context, key string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ExpireTime")
	defer traced.end(&err)
	ms, err := c.PExpireTime(ctx, key)
	if err != nil || ms < 0 {
		return ms, err
	}
	return ms/1000 + (ms%1000+500)/1000, nil
}
