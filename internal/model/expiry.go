package model

import (
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type AllMembersKey struct{}

// MemberExp is a member item's expiry (0: none).
func MemberExp(it Item) int64 {
	v, ok := it[AttrMemExp].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(v.Value, 10, 64)
	return n
}

// ExpiredAt reports whether a member item has expired at now.
func ExpiredAt(it Item, now int64) bool {
	x := MemberExp(it)
	return x != 0 && x <= now
}

// PersistAt is the expiry memberExpire sets to remove one (PERSIST).
const PersistAt = -1 << 63

func SetMemberExp(it Item, at int64) { it[AttrMemExp] = Num(at) }

// What the TTL commands answer for a member with expiry exp at now.
func TtlSeconds(exp, now int64) int64 { return (exp - now + 999) / 1000 }

func TtlMillis(exp, now int64) int64 { return exp - now }

func ExpSeconds(exp, _ int64) int64 { return exp / 1000 }

func ExpMillis(exp, _ int64) int64 { return exp }

// The conditions write.rendered adds for member expiry.
const (
	LiveGuard     = "(attribute_not_exists(#mxLive) OR #mxLive > :mxNow)"
	NoExpiryGuard = "attribute_not_exists(#mxLive)"
)

// PinDelete is the delete w required to find the expiry exp (0: none),
// counting -1 to mn for an expiry: what a delete becomes once a failed
// Condition showed the member's expiry (write.rendered adds the pin).
func PinDelete(w *Write, exp int64) *Write {
	next := *w
	next.Need, next.ExpWas, next.Ttl = w.Need|NeedExpiry, exp, 0
	if exp != 0 {
		next.Ttl = -1
	}
	return &next
}

// UnixMilli is t in Unix milliseconds, and false when that overflows an
// int64 (t.UnixMilli would silently wrap around: a time far in the future
// would become one in the past, and the key would be deleted).
func UnixMilli(t time.Time) (int64, bool) {
	s, frac := t.Unix(), int64(t.Nanosecond()/1e6) // frac in [0, 999]
	if s >= 0 {
		if s > (math.MaxInt64-frac)/1000 {
			return 0, false
		}
		return s*1000 + frac, true
	}
	// s*1000 + frac, written so that no step overflows first.
	hi := s + 1
	if hi < math.MinInt64/1000 || hi*1000 < math.MinInt64+(1000-frac) {
		return 0, false
	}
	return hi*1000 - (1000 - frac), true
}

// OwnUpdate reports whether a metadata item holds tok: the update that
// wrote tok is in place.
func OwnUpdate(it Item, tok string) bool {
	v, ok := it[AttrExpTok].(*types.AttributeValueMemberS)
	return ok && v.Value == tok
}
