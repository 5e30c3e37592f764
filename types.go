package redimo

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The values the commands take and return (Z, the argument structs of
// ZADD, ZRANGE, ZUNIONSTORE, ZMOVE, SADDEX..., the expiry conditions), in
// the lowest layer of the package: the commands, EXEC's Pipeliner and the
// writer all name them, and they name nothing of those.

// Z is a sorted-set member with its score.
type Z struct {
	Score  float64
	Member string
}

// ZAddArgs are ZADD's options and members. NX: only add new members; XX:
// only update existing ones; GT/LT: only update when the new score is
// greater/less than the current one (new members are still added); Ch:
// count changed members too, not only added ones.
type ZAddArgs struct {
	NX, XX, LT, GT, Ch bool
	Members            []Z
}

// RankScore is a member's rank and score (ZRANK ... WITHSCORE).
type RankScore struct {
	Rank  int64
	Score float64
}

// ZRangeBy selects members by score (Min, Max: "1.5", "(1.5" exclusive,
// "-inf", "+inf"; read as Redis reads them with strtod, so "0x10", " 1"
// and even "" are numbers) or by member (Min, Max: "[a", "(a", "-", "+"),
// with LIMIT Offset Count (Count < 0, or 0 with Offset 0: no limit).
type ZRangeBy struct {
	Min, Max      string
	Offset, Count int64
}

// ZRangeArgs is the unified ZRANGE: Start and Stop are ranks, or scores
// with ByScore, or members with ByLex; Rev reverses the order (and, as in
// Redis, then Start is the greater bound). Offset and Count are LIMIT (by
// score or lex only). Static string types stand in for go-redis's
// interface{} bounds; ranks are read as Redis reads integers ("+1", "01"
// and " 1" are ErrNotInteger), scores as ZRangeBy's.
type ZRangeArgs struct {
	Key            string
	Start, Stop    string
	ByScore, ByLex bool
	Rev            bool
	Offset, Count  int64
}

// ZStore is the input of ZUNION/ZINTER(STORE): keys, optional weights (one
// per key; a score is multiplied by its key's weight) and the aggregate
// (AggregateCount ignores the scores: see Aggregate).
type ZStore struct {
	Keys      []string
	Weights   []float64
	Aggregate Aggregate
}

// PopOrder says which end of a sorted set ZMPop, BZMPop, ZMove and BZMove
// take from: PopMin or PopMax (Redis's MIN and MAX). It is not a string,
// so that a key cannot be passed where the order goes; its zero value is
// no order (ZMoveArgs with ByScore), which ZMPop refuses (ErrSyntax).
type PopOrder uint8

// ZWithKey is a member popped by BZPopMin or BZPopMax with the key it came from.
type ZWithKey struct {
	Z
	Key string
}

// The ends of a sorted set (Redis's MIN and MAX).
const (
	PopMin PopOrder = iota + 1
	PopMax
)

// String is the order as Redis names it: "MIN", "MAX" ("" for none).
func (o PopOrder) String() string {
	switch o {
	case PopMin:
		return "MIN"
	case PopMax:
		return "MAX"
	case 0:
		return ""
	}
	return "PopOrder(" + strconv.Itoa(int(o)) + ")"
}

// ZMoveArgs selects the members ZMove and BZMove move: the Count lowest
// (Order PopMin, Redis's MIN) or highest (PopMax, MAX) scores, or with
// ByScore the members with scores between Min and Max (BYSCORE score-min
// score-max; bounds as ZRangeByScore's: "1", "(1" exclusive, "-inf",
// "+inf"), lowest first. Count 0 is Redis's default: 1 member with Order,
// every member in the range with ByScore.
type ZMoveArgs struct {
	Order    PopOrder // PopMin or PopMax; empty with ByScore
	ByScore  bool
	Min, Max string // ByScore's bounds
	Count    int64  // at most this many members (COUNT); 0: the default
}

// ZMoveMemberArgs are ZMOVEMEMBER's options and members: NX moves only the
// members absent from the destination, XX only those present there; the
// others stay in the source.
type ZMoveMemberArgs struct {
	NX, XX  bool
	Members []string
}

// SAddExArgs are the options of Redis 8.12's SADDEX key [MNX | MXX]
// [EX seconds | PX ms | EXAT s | PXAT ms | KEEPTTL] MEMBERS n member...,
// shaped as go-redis's SetArgs: at most one of TTL, ExpireAt and KeepTTL.
type SAddExArgs struct {
	// Mode is MNX, MXX or neither (SAddExAlways).
	Mode SAddExCondition
	// TTL > 0 is EX/PX: every member named, new or not, expires TTL from
	// now (millisecond precision; under a millisecond rounds up).
	TTL time.Duration
	// ExpireAt, when not zero, is EXAT/PXAT: every member named expires at
	// that time (milliseconds). A time not after now deletes the members
	// named and adds none, as Redis's EX 0 or a PXAT in the past.
	ExpireAt time.Time
	// KeepTTL: members already there keep their expiry (or none); new
	// members get none. With neither TTL, ExpireAt nor KeepTTL, new
	// members get no expiry and members already there lose theirs.
	KeepTTL bool
	// Members are the members named (MEMBERS n member...): at least one.
	Members []string
}

// EncodingLimits are the thresholds under which Redis 7.2 keeps a set or
// a sorted set in a compact encoding: redis.conf's set-max-intset-entries,
// set-max-listpack-entries, set-max-listpack-value,
// zset-max-listpack-entries and zset-max-listpack-value (entries: members;
// value: a member's length in bytes). ObjectEncodingWith reads them.
type EncodingLimits struct {
	SetMaxIntsetEntries    int64
	SetMaxListpackEntries  int64
	SetMaxListpackValue    int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
}

// ExpireCondition restricts when an expiry is set, as Redis 7's EXPIRE
// options. It is not a string, so that a member written where the
// condition goes (SExpire(ctx, key, d, "carol")) does not compile; the
// server turns Redis's NX|XX|GT|LT into it.
type ExpireCondition uint8

// holds evaluates cond for a key whose expiry is exp (0: none) against at.
func (cond ExpireCondition) holds(exp, at int64) bool {
	switch cond {
	case ExpireNX:
		return exp == 0
	case ExpireXX:
		return exp != 0
	case ExpireGT:
		return exp != 0 && at > exp
	case ExpireLT:
		return exp == 0 || at < exp
	case ExpireXXLT:
		return exp != 0 && at < exp
	}
	return true
}

// The ExpireCondition values; the zero value is ExpireAlways.
const (
	ExpireAlways ExpireCondition = iota // set the expiry in any case
	ExpireNX                            // only when the key has no expiry
	ExpireXX                            // only when the key has an expiry
	ExpireGT                            // only when later than the current one (none counts as infinite)
	ExpireLT                            // only when earlier than the current one (none counts as infinite)
	ExpireXXLT                          // only when the key has an expiry and the new one is earlier
)

var expireConditionNames = [...]string{ExpireAlways: "", ExpireNX: "NX", ExpireXX: "XX", ExpireGT: "GT", ExpireLT: "LT", ExpireXXLT: "XX LT"}

// String is cond as Redis writes it: "", "NX", "XX", "GT", "LT" or "XX LT".
func (cond ExpireCondition) String() string {
	if int(cond) < len(expireConditionNames) {
		return expireConditionNames[cond]
	}
	return "ExpireCondition(" + strconv.Itoa(int(cond)) + ")"
}

func (cond ExpireCondition) valid() bool {
	switch cond {
	case ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT:
		return true
	}
	return false
}

// SAddExCondition is SADDEX's MNX | MXX: a condition on all the members
// of one call together.
type SAddExCondition string

// Aggregate is how ZUNION and ZINTER combine a member's scores.
type Aggregate string

// The SAddExCondition values.
const (
	SAddExAlways SAddExCondition = ""    // add the missing members, update the others
	SAddExMNX    SAddExCondition = "MNX" // only when none of the members exists
	SAddExMXX    SAddExCondition = "MXX" // only when all the members exist
)

// The Aggregate values; "" means AggregateSum.
//
// AggregateCount is Redis 8.8's AGGREGATE COUNT: the input scores are
// ignored and a member's score is the number of input keys holding it;
// with weights, the sum of the weights of the keys holding it (as Redis
// 8.8 defines it: each key contributes its weight instead of score ×
// weight, summed as SUM sums, inf + -inf giving 0).
const (
	AggregateSum   Aggregate = "SUM"
	AggregateMin   Aggregate = "MIN"
	AggregateMax   Aggregate = "MAX"
	AggregateCount Aggregate = "COUNT"
)

// sortZ orders by score, then member, as Redis returns a sorted set.
func sortZ(zs []Z) []Z {
	slices.SortFunc(zs, func(a, b Z) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Member, b.Member)
	})
	return zs
}
