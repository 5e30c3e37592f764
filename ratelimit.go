package redimo

// A sliding-window rate limiter that holds across app servers.

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// MaxRateLimit is the largest limit a RateLimiter takes: its slots are read
// with one Query.
const MaxRateLimit = 1000

// RateLimiter allows at most Limit events per key in any sliding Window,
// across every process that uses the same table: "each phone number can
// request an OTP at most 3 times per 10 minutes". Create one with
// Client.RateLimiter; it is safe for concurrent use.
//
// Each key has Limit slots, items holding the time of the allowance that last
// used them. Allow reads the slots and claims a free one (unused, or last
// used a Window ago or more) with one conditional UpdateItem: the check and
// the add are a single atomic write, so concurrent callers can never claim
// the same slot, and no more than Limit calls are allowed in any Window.
// This is the Redis sorted-set "sliding log" pattern (ZREMRANGEBYSCORE,
// ZCARD, ZADD in a MULTI) without its race: there, the check and the add
// are two steps unless wrapped in a Lua script.
//
// Rate-limit keys live in their own namespace: they are not Redis keys
// (TYPE does not see them) and cannot collide with sets of the same name.
type RateLimiter struct {
	c      *Client
	limit  int
	window time.Duration
}

// RateLimit is the outcome of RateLimiter.Allow: what a caller needs for an
// HTTP 429 (Retry-After) or the RateLimit-* headers.
type RateLimit struct {
	Allowed    bool          // the event may proceed; it was counted
	Limit      int           // the limiter's limit
	Remaining  int           // further events allowed now (0 when denied)
	RetryAfter time.Duration // when denied: until the next slot frees; else 0
}

// RateLimiter returns a limiter of limit events per window. limit must be in
// 1..MaxRateLimit and window positive, or every Allow fails with an
// *ArgError. Times are whole milliseconds: window is rounded up to one.
func (c *Client) RateLimiter(limit int, window time.Duration) *RateLimiter {
	return &RateLimiter{c: c, limit: limit, window: window}
}

// Allow counts one event for key and reports whether it is within the
// limit. A denied event is not counted.
//
// Cost: one Query reading the key's slots (Limit small items: 1 read unit
// per ~100 slots) and, when a slot is free, one conditional UpdateItem (1
// write unit); a slot taken concurrently by another caller costs one more
// UpdateItem per retry.
func (l *RateLimiter) Allow(ctx context.Context, key string) (_ RateLimit, err error) {
	ctx, traced := l.c.command(ctx, "RateLimiter.Allow")
	defer traced.end(&err)
	if l.limit < 1 || l.limit > MaxRateLimit {
		return RateLimit{}, argError("RATELIMIT", "limit", strconv.Itoa(l.limit), ErrOutOfRange)
	}
	if l.window <= 0 {
		return RateLimit{}, argError("RATELIMIT", "window", l.window.String(), ErrOutOfRange)
	}
	if err := checkKey("RATELIMIT", key); err != nil {
		return RateLimit{}, err
	}
	now := l.c.opts.Now().UnixMilli()
	window := l.window.Milliseconds()
	if l.window%time.Millisecond != 0 {
		window++ // rounded down, the window would let more than limit through
	}
	cut := now - window // a slot used at or before cut is free
	used := make(map[uint16]int64, l.limit)
	for it, err := range l.c.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.LimiterPK(key))},
	}, 0) {
		if err != nil {
			return RateLimit{}, wrap("RATELIMIT", err)
		}
		sk := model.BytesAttr(it, model.AttrSK)
		if len(sk) == 2 {
			if n, ok := it[model.AttrAt].(*types.AttributeValueMemberN); ok {
				used[binary.BigEndian.Uint16(sk)], _ = strconv.ParseInt(n.Value, 10, 64)
			}
		}
	}
	var free []uint16
	oldest := int64(math.MaxInt64) // the earliest held slot: a slot dated ahead of now (another server's clock) too
	for slot := range uint16(l.limit) {
		at, ok := used[slot]
		if !ok || at <= cut {
			free = append(free, slot)
		} else {
			oldest = min(oldest, at)
		}
	}
	// Claim free slots in random order, so concurrent callers rarely collide.
	rand.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	// The claim token tells our own write from another caller's when the
	// SDK resends a claim whose response was lost: the resend then fails
	// its condition on the slot we already hold.
	claim := model.Token()
	for i, slot := range free {
		_, err := l.c.st.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                           l.c.st.Table(),
			Key:                                 model.Item{model.AttrPK: model.Bin(model.LimiterPK(key)), model.AttrSK: model.Bin(binary.BigEndian.AppendUint16(nil, slot))},
			UpdateExpression:                    aws.String("SET #at = :now, #cl = :claim"),
			ConditionExpression:                 aws.String("attribute_not_exists(#at) OR #at <= :cut"),
			ExpressionAttributeNames:            map[string]string{"#at": model.AttrAt, "#cl": model.AttrClaim},
			ExpressionAttributeValues:           model.Item{":now": model.Num(now), ":cut": model.Num(cut), ":claim": model.Str(claim)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var taken *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			return RateLimit{Allowed: true, Limit: l.limit, Remaining: len(free) - i - 1}, nil
		case !errors.As(err, &taken):
			return RateLimit{}, wrap("RATELIMIT", err)
		case isClaim(taken.Item, claim):
			return RateLimit{Allowed: true, Limit: l.limit, Remaining: len(free) - i - 1}, nil
		}
		oldest = min(oldest, now) // taken just now by another caller
	}
	return RateLimit{Limit: l.limit, RetryAfter: msDuration(oldest - cut)}, nil
}

// isClaim reports whether a slot item holds claim.
func isClaim(it model.Item, claim string) bool {
	v, ok := it[model.AttrClaim].(*types.AttributeValueMemberS)
	return ok && v.Value == claim
}
