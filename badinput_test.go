package redimo

// Bad input: one case per reason (TestRejectsBadInput, at the end), and
// swept over every command: an over-long key and empty argument lists for
// every method of the Client, checked for completeness by reflection;
// every command on a key of the other type; and the largest keys and
// members, the empty key and invalid UTF-8, which must round-trip.

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// notCommands are the Client's methods that are not Redis commands: no
// I/O, or the table's creation and check.
var notCommands = []string{"Options", "CreateTable", "CheckTable", "ExpiringSet", "RateLimiter", "ShardedSet", "DB"}

// keyless are the commands on the whole keyspace: no key to reject (SCAN's
// count is checked in TestRejectsBadInput).
var keyless = []string{"Scan", "ScanType", "Keys", "DBSize", "RandomKey", "FlushDB", "Keyspace", "WithDB"}

// requireEveryCommand fails unless cases has an entry for every command
// method of the Client (but keyless ones).
func requireEveryCommand[T any](t *testing.T, cases map[string]T) {
	t.Helper()
	typ := reflect.TypeOf((*Client)(nil))
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if !slices.Contains(notCommands, name) && !slices.Contains(keyless, name) {
			require.Contains(t, cases, name, "no case for the command method %s", name)
		}
	}
}

// rejected checks a rejection before any request, with nothing written.
func rejected(t *testing.T, cnt *counter, p string, reason error, cases map[string]func() error) {
	t.Helper()
	before := scanTable(t, p)
	cnt.reset()
	for name, call := range cases {
		err := call()
		require.ErrorIs(t, err, ErrInvalidArgument, name)
		require.ErrorIs(t, err, reason, name)
		var ae *ArgError
		require.True(t, errors.As(err, &ae), "%s: %v is no *ArgError", name, err)
	}
	require.EqualValues(t, 0, cnt.requests.Load(), "every rejection happens before any request: %s", cnt)
	require.Equal(t, before, scanTable(t, p), "nothing written")
}

func TestEveryCommandRejectsLongKeys(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	s, z := p+"s", p+"z"
	_, err := c.SAdd(ctx, s, "a")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	k := strings.Repeat("k", MaxKeyLen+1)
	st := &ZStore{Keys: []string{z, k}}
	at := time.Now().Add(time.Hour)
	by := &ZRangeBy{Min: "-inf", Max: "+inf"}
	lex := &ZRangeBy{Min: "-", Max: "+"}
	cases := map[string]func() error{
		"Del":                        func() error { _, err := c.Del(ctx, s, k); return err },
		"Exists":                     func() error { _, err := c.Exists(ctx, k); return err },
		"Type":                       func() error { _, err := c.Type(ctx, k); return err },
		"Expire":                     func() error { _, err := c.Expire(ctx, k, time.Hour); return err },
		"ExpireWith":                 func() error { _, err := c.ExpireWith(ctx, k, time.Hour, ExpireNX); return err },
		"ExpireAt":                   func() error { _, err := c.ExpireAt(ctx, k, at); return err },
		"ExpireAtWith":               func() error { _, err := c.ExpireAtWith(ctx, k, at, ExpireGT); return err },
		"PExpire":                    func() error { _, err := c.PExpire(ctx, k, time.Hour); return err },
		"PExpireAt":                  func() error { _, err := c.PExpireAt(ctx, k, at); return err },
		"Persist":                    func() error { _, err := c.Persist(ctx, k); return err },
		"TTL":                        func() error { _, err := c.TTL(ctx, k); return err },
		"PTTL":                       func() error { _, err := c.PTTL(ctx, k); return err },
		"ExpireTime":                 func() error { _, err := c.ExpireTime(ctx, k); return err },
		"PExpireTime":                func() error { _, err := c.PExpireTime(ctx, k); return err },
		"SAdd":                       func() error { _, err := c.SAdd(ctx, k, "a"); return err },
		"SRem":                       func() error { _, err := c.SRem(ctx, k, "a"); return err },
		"SCard":                      func() error { _, err := c.SCard(ctx, k); return err },
		"SIsMember":                  func() error { _, err := c.SIsMember(ctx, k, "a"); return err },
		"SMIsMember":                 func() error { _, err := c.SMIsMember(ctx, k, "a"); return err },
		"SMembers":                   func() error { _, err := c.SMembers(ctx, k); return err },
		"SScan":                      func() error { return firstErr(c.SScan(ctx, k, "*")) },
		"SRandMember":                func() error { _, _, err := c.SRandMember(ctx, k); return err },
		"SRandMemberN":               func() error { _, err := c.SRandMemberN(ctx, k, 2); return err },
		"SPop":                       func() error { _, _, err := c.SPop(ctx, k); return err },
		"SPopN":                      func() error { _, err := c.SPopN(ctx, k, 2); return err },
		"SMove":                      func() error { _, err := c.SMove(ctx, s, k, "a"); return err },
		"SInter":                     func() error { _, err := c.SInter(ctx, s, k); return err },
		"SInterCard":                 func() error { _, err := c.SInterCard(ctx, 0, s, k); return err },
		"SUnionCard":                 func() error { _, err := c.SUnionCard(ctx, 0, s, k); return err },
		"SUnionCard one key":         func() error { _, err := c.SUnionCard(ctx, 0, k, k); return err },
		"SDiffCard":                  func() error { _, err := c.SDiffCard(ctx, 1, s, k); return err },
		"SUnion":                     func() error { _, err := c.SUnion(ctx, s, k); return err },
		"SDiff":                      func() error { _, err := c.SDiff(ctx, s, k); return err },
		"SInterStore":                func() error { _, err := c.SInterStore(ctx, p+"d", s, k); return err },
		"SUnionStore":                func() error { _, err := c.SUnionStore(ctx, k, s); return err },
		"SDiffStore":                 func() error { _, err := c.SDiffStore(ctx, k, s); return err },
		"ZAdd":                       func() error { _, err := c.ZAdd(ctx, k, Z{Score: 1, Member: "a"}); return err },
		"ZAddArgs":                   func() error { _, err := c.ZAddArgs(ctx, k, ZAddArgs{Members: []Z{{1, "a"}}}); return err },
		"ZAddArgsIncr":               func() error { _, _, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{Members: []Z{{1, "a"}}}); return err },
		"ZIncrBy":                    func() error { _, err := c.ZIncrBy(ctx, k, 1, "a"); return err },
		"ZRem":                       func() error { _, err := c.ZRem(ctx, k, "a"); return err },
		"ZCard":                      func() error { _, err := c.ZCard(ctx, k); return err },
		"ZScore":                     func() error { _, _, err := c.ZScore(ctx, k, "a"); return err },
		"ZMScore":                    func() error { _, _, err := c.ZMScore(ctx, k, "a"); return err },
		"ZCount":                     func() error { _, err := c.ZCount(ctx, k, "-inf", "+inf"); return err },
		"ZLexCount":                  func() error { _, err := c.ZLexCount(ctx, k, "-", "+"); return err },
		"ZRank":                      func() error { _, _, err := c.ZRank(ctx, k, "a"); return err },
		"ZRevRank":                   func() error { _, _, err := c.ZRevRank(ctx, k, "a"); return err },
		"ZRankWithScore":             func() error { _, _, err := c.ZRankWithScore(ctx, k, "a"); return err },
		"ZRevRankWithScore":          func() error { _, _, err := c.ZRevRankWithScore(ctx, k, "a"); return err },
		"ZRankAround":                func() error { _, _, err := c.ZRankAround(ctx, k, "a", 1); return err },
		"ZRevRankAround":             func() error { _, _, err := c.ZRevRankAround(ctx, k, "a", 1); return err },
		"ZRange":                     func() error { _, err := c.ZRange(ctx, k, 0, -1); return err },
		"ZRangeWithScores":           func() error { _, err := c.ZRangeWithScores(ctx, k, 0, -1); return err },
		"ZRevRange":                  func() error { _, err := c.ZRevRange(ctx, k, 0, -1); return err },
		"ZRevRangeWithScores":        func() error { _, err := c.ZRevRangeWithScores(ctx, k, 0, -1); return err },
		"ZRangeByScore":              func() error { _, err := c.ZRangeByScore(ctx, k, by); return err },
		"ZRangeByScoreWithScores":    func() error { _, err := c.ZRangeByScoreWithScores(ctx, k, by); return err },
		"ZRevRangeByScore":           func() error { _, err := c.ZRevRangeByScore(ctx, k, by); return err },
		"ZRevRangeByScoreWithScores": func() error { _, err := c.ZRevRangeByScoreWithScores(ctx, k, by); return err },
		"ZRangeByLex":                func() error { _, err := c.ZRangeByLex(ctx, k, lex); return err },
		"ZRevRangeByLex":             func() error { _, err := c.ZRevRangeByLex(ctx, k, lex); return err },
		"ZRangeArgs":                 func() error { _, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "-1"}); return err },
		"ZRangeArgsWithScores": func() error {
			_, err := c.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "-1"})
			return err
		},
		"ZRangeStore":      func() error { _, err := c.ZRangeStore(ctx, k, ZRangeArgs{Key: z, Start: "0", Stop: "-1"}); return err },
		"ZRemRangeByScore": func() error { _, err := c.ZRemRangeByScore(ctx, k, "-inf", "+inf"); return err },
		"ZRemRangeByRank":  func() error { _, err := c.ZRemRangeByRank(ctx, k, 0, -1); return err },
		"ZRemRangeByLex":   func() error { _, err := c.ZRemRangeByLex(ctx, k, "-", "+"); return err },
		"ZPopMin":          func() error { _, err := c.ZPopMin(ctx, k); return err },
		"ZPopMax":          func() error { _, err := c.ZPopMax(ctx, k, 2); return err },
		"ZScan":            func() error { return firstErr(c.ZScan(ctx, k, "*")) },
		"ZMPop":            func() error { _, _, err := c.ZMPop(ctx, PopMin, 1, z, k); return err },
		"BZPopMin":         func() error { _, _, err := c.BZPopMin(ctx, time.Second, z, k); return err },
		"BZPopMax":         func() error { _, _, err := c.BZPopMax(ctx, 0, k); return err },
		"BZMPop":           func() error { _, _, err := c.BZMPop(ctx, 0, PopMax, 2, k); return err },
		"ZMove":            func() error { _, err := c.ZMove(ctx, z, k, ZMoveArgs{Order: PopMin}); return err },
		"ZMove source":     func() error { _, err := c.ZMove(ctx, k, z, ZMoveArgs{Order: PopMin}); return err },
		"BZMove":           func() error { _, err := c.BZMove(ctx, 0, z, k, ZMoveArgs{Order: PopMax}); return err },
		"ZMoveMember":      func() error { _, err := c.ZMoveMember(ctx, z, k, ZMoveMemberArgs{Members: []string{"a"}}); return err },
		"WatchKeys":        func() error { _, err := c.WatchKeys(ctx, z, k); return err },
		"Touch":            func() error { _, err := c.Touch(ctx, z, k); return err },
		"Rename":           func() error { return c.Rename(ctx, z, k) },
		"RenameNX":         func() error { _, err := c.RenameNX(ctx, k, z); return err },
		"Copy":             func() error { _, err := c.Copy(ctx, z, k, true); return err },
		"ObjectEncoding":   func() error { _, _, err := c.ObjectEncoding(ctx, k); return err },
		"ObjectEncodingWith": func() error {
			_, _, err := c.ObjectEncodingWith(ctx, k, DefaultEncodingLimits())
			return err
		},
		"Watch": func() error { return c.Watch(ctx, func(*Tx) error { return nil }, k) },
		"TxPipelined": func() error {
			return c.TxPipelined(ctx, func(p Pipeliner) error { _, err := p.SAdd(ctx, k, "a"); return err })
		},
		"ExecWatched": func() error {
			return c.ExecWatched(ctx, nil, func(p *Pipeline) error { _, err := p.ZAdd(ctx, k, Z{1, "a"}); return err })
		},
		"ZRandMember": func() error { _, err := c.ZRandMember(ctx, k, 2); return err },
		"ZRandMemberWithScores": func() error {
			_, err := c.ZRandMemberWithScores(ctx, k, 2)
			return err
		},
		"ZUnion":            func() error { _, err := c.ZUnion(ctx, *st); return err },
		"ZUnionWithScores":  func() error { _, err := c.ZUnionWithScores(ctx, *st); return err },
		"ZInter":            func() error { _, err := c.ZInter(ctx, st); return err },
		"ZInterWithScores":  func() error { _, err := c.ZInterWithScores(ctx, st); return err },
		"ZInterCard":        func() error { _, err := c.ZInterCard(ctx, 0, z, k); return err },
		"ZDiff":             func() error { _, err := c.ZDiff(ctx, z, k); return err },
		"ZDiffWithScores":   func() error { _, err := c.ZDiffWithScores(ctx, z, k); return err },
		"ZUnionStore":       func() error { _, err := c.ZUnionStore(ctx, k, &ZStore{Keys: []string{z}}); return err },
		"ZInterStore":       func() error { _, err := c.ZInterStore(ctx, p+"d", st); return err },
		"ZDiffStore":        func() error { _, err := c.ZDiffStore(ctx, k, z); return err },
		"RateLimiter.Allow": func() error { _, err := c.RateLimiter(3, time.Minute).Allow(ctx, k); return err },
		"ShardedSet.Add":    func() error { _, err := c.ShardedSet(k, 4).Add(ctx, "a"); return err },
		"ExpiringSet.Add":   func() error { _, err := c.ExpiringSet(k).Add(ctx, time.Minute, "a"); return err },
	}
	for name, f := range memberTTLCases(ctx, c, k) {
		cases[name] = f
	}
	requireEveryCommand(t, cases)
	rejected(t, cnt, p, ErrKeyTooLong, cases)
}

// Variadic commands given nothing, and nil option structs: Redis's arity
// and syntax errors, before any request.
func TestEveryCommandRejectsEmptyArguments(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "k"
	cases := map[string]func() error{
		"SAdd":             func() error { _, err := c.SAdd(ctx, k); return err },
		"SAdd nil":         func() error { _, err := c.SAdd(ctx, k, nil...); return err },
		"SAddExArgs":       func() error { _, err := c.SAddExArgs(ctx, k, SAddExArgs{TTL: time.Minute}); return err },
		"SRem":             func() error { _, err := c.SRem(ctx, k); return err },
		"SMIsMember":       func() error { _, err := c.SMIsMember(ctx, k); return err },
		"SInter":           func() error { _, err := c.SInter(ctx); return err },
		"SInterCard":       func() error { _, err := c.SInterCard(ctx, 0); return err },
		"SUnionCard":       func() error { _, err := c.SUnionCard(ctx, 0); return err },
		"SDiffCard":        func() error { _, err := c.SDiffCard(ctx, 5); return err },
		"SUnion":           func() error { _, err := c.SUnion(ctx); return err },
		"SDiff":            func() error { _, err := c.SDiff(ctx); return err },
		"SInterStore":      func() error { _, err := c.SInterStore(ctx, k); return err },
		"SUnionStore":      func() error { _, err := c.SUnionStore(ctx, k); return err },
		"SDiffStore":       func() error { _, err := c.SDiffStore(ctx, k); return err },
		"Del":              func() error { _, err := c.Del(ctx); return err },
		"Exists":           func() error { _, err := c.Exists(ctx); return err },
		"ZAdd":             func() error { _, err := c.ZAdd(ctx, k); return err },
		"ZAddArgs":         func() error { _, err := c.ZAddArgs(ctx, k, ZAddArgs{}); return err },
		"ZAddArgsIncr":     func() error { _, _, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{}); return err },
		"ZRem":             func() error { _, err := c.ZRem(ctx, k); return err },
		"ZMScore":          func() error { _, _, err := c.ZMScore(ctx, k); return err },
		"ZUnion":           func() error { _, err := c.ZUnion(ctx, ZStore{}); return err },
		"ZUnionWithScores": func() error { _, err := c.ZUnionWithScores(ctx, ZStore{}); return err },
		"ZInter":           func() error { _, err := c.ZInter(ctx, &ZStore{}); return err },
		"ZInter nil":       func() error { _, err := c.ZInter(ctx, nil); return err },
		"ZInterWithScores": func() error { _, err := c.ZInterWithScores(ctx, nil); return err },
		"ZInterCard":       func() error { _, err := c.ZInterCard(ctx, 0); return err },
		"ZDiff":            func() error { _, err := c.ZDiff(ctx); return err },
		"ZDiffWithScores":  func() error { _, err := c.ZDiffWithScores(ctx); return err },
		"ZUnionStore":      func() error { _, err := c.ZUnionStore(ctx, k, &ZStore{}); return err },
		"ZUnionStore nil":  func() error { _, err := c.ZUnionStore(ctx, k, nil); return err },
		"ZInterStore nil":  func() error { _, err := c.ZInterStore(ctx, k, nil); return err },
		"ZDiffStore":       func() error { _, err := c.ZDiffStore(ctx, k); return err },
		"ZRangeByScore":    func() error { _, err := c.ZRangeByScore(ctx, k, nil); return err },
		"ZRevRangeByLex":   func() error { _, err := c.ZRevRangeByLex(ctx, k, nil); return err },
		"ZPopMin 2 counts": func() error { _, err := c.ZPopMin(ctx, k, 1, 2); return err },
		"ZMPop":            func() error { _, _, err := c.ZMPop(ctx, PopMin, 1); return err },
		"ZMPop order":      func() error { _, _, err := c.ZMPop(ctx, PopOrder(9), 1, k); return err },
		"BZPopMin":         func() error { _, _, err := c.BZPopMin(ctx, 0); return err },
		"BZPopMax":         func() error { _, _, err := c.BZPopMax(ctx, 0); return err },
		"BZMPop":           func() error { _, _, err := c.BZMPop(ctx, 0, PopMax, 1); return err },
		"ZMove order":      func() error { _, err := c.ZMove(ctx, k, k+"d", ZMoveArgs{}); return err },
		"ZMove order and ByScore": func() error {
			_, err := c.ZMove(ctx, k, k+"d", ZMoveArgs{Order: PopMin, ByScore: true, Min: "0", Max: "1"})
			return err
		},
		"BZMove ByScore": func() error {
			_, err := c.BZMove(ctx, 0, k, k+"d", ZMoveArgs{ByScore: true, Min: "0", Max: "1"})
			return err
		},
		"ZMoveMember": func() error { _, err := c.ZMoveMember(ctx, k, k+"d", ZMoveMemberArgs{}); return err },
		"ZMoveMember NX XX": func() error {
			_, err := c.ZMoveMember(ctx, k, k+"d", ZMoveMemberArgs{NX: true, XX: true, Members: []string{"a"}})
			return err
		},
		"WatchKeys": func() error { _, err := c.WatchKeys(ctx); return err },
		"Touch":     func() error { _, err := c.Touch(ctx); return err },
	}
	rejected(t, cnt, p, ErrSyntax, cases)
}

// Every command on a key of the other type fails with ErrWrongType and
// writes nothing (sources of ZUNION/ZINTER/ZDIFF may be sets, as in Redis,
// and a *STORE replaces a destination of any type: not here).
func TestEveryCommandWrongType(t *testing.T) {
	ctx, c, _, p := setup(t)
	s, z, other := p+"s", p+"z", p+"o"
	_, err := c.SAdd(ctx, s, "a", "b")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, other, "a")
	require.NoError(t, err)
	by := &ZRangeBy{Min: "-inf", Max: "+inf"}
	lex := &ZRangeBy{Min: "-", Max: "+"}
	cases := map[string]func() error{
		"SAdd":                       func() error { _, err := c.SAdd(ctx, z, "c"); return err },
		"SRem":                       func() error { _, err := c.SRem(ctx, z, "a"); return err },
		"SCard":                      func() error { _, err := c.SCard(ctx, z); return err },
		"SIsMember":                  func() error { _, err := c.SIsMember(ctx, z, "a"); return err },
		"SMIsMember":                 func() error { _, err := c.SMIsMember(ctx, z, "a", "c"); return err },
		"SMembers":                   func() error { _, err := c.SMembers(ctx, z); return err },
		"SScan":                      func() error { return firstErr(c.SScan(ctx, z, "a*")) },
		"SRandMember":                func() error { _, _, err := c.SRandMember(ctx, z); return err },
		"SRandMemberN":               func() error { _, err := c.SRandMemberN(ctx, z, -2); return err },
		"SPop":                       func() error { _, _, err := c.SPop(ctx, z); return err },
		"SPopN":                      func() error { _, err := c.SPopN(ctx, z, 2); return err },
		"SMove":                      func() error { _, err := c.SMove(ctx, z, other, "a"); return err },
		"SMove destination":          func() error { _, err := c.SMove(ctx, other, z, "a"); return err },
		"SInter":                     func() error { _, err := c.SInter(ctx, s, z); return err },
		"SInterCard":                 func() error { _, err := c.SInterCard(ctx, 1, s, z); return err },
		"SUnionCard":                 func() error { _, err := c.SUnionCard(ctx, 1, s, z); return err },
		"SUnionCard one key":         func() error { _, err := c.SUnionCard(ctx, 0, z, z); return err },
		"SDiffCard":                  func() error { _, err := c.SDiffCard(ctx, 1, s, z); return err },
		"SDiffCard missing first":    func() error { _, err := c.SDiffCard(ctx, 0, p+"none", z); return err },
		"SUnion":                     func() error { _, err := c.SUnion(ctx, s, z); return err },
		"SDiff":                      func() error { _, err := c.SDiff(ctx, s, z); return err },
		"SInterStore":                func() error { _, err := c.SInterStore(ctx, p+"d", s, z); return err },
		"SUnionStore":                func() error { _, err := c.SUnionStore(ctx, p+"d", z); return err },
		"SDiffStore":                 func() error { _, err := c.SDiffStore(ctx, p+"d", s, z); return err },
		"ZAdd":                       func() error { _, err := c.ZAdd(ctx, s, Z{Score: 1, Member: "c"}); return err },
		"ZAddArgs":                   func() error { _, err := c.ZAddArgs(ctx, s, ZAddArgs{XX: true, Members: []Z{{1, "a"}}}); return err },
		"ZAddArgsIncr":               func() error { _, _, err := c.ZAddArgsIncr(ctx, s, ZAddArgs{Members: []Z{{1, "a"}}}); return err },
		"ZIncrBy":                    func() error { _, err := c.ZIncrBy(ctx, s, 1, "a"); return err },
		"ZRem":                       func() error { _, err := c.ZRem(ctx, s, "a"); return err },
		"ZCard":                      func() error { _, err := c.ZCard(ctx, s); return err },
		"ZScore":                     func() error { _, _, err := c.ZScore(ctx, s, "a"); return err },
		"ZMScore":                    func() error { _, _, err := c.ZMScore(ctx, s, "a"); return err },
		"ZCount":                     func() error { _, err := c.ZCount(ctx, s, "-inf", "+inf"); return err },
		"ZLexCount":                  func() error { _, err := c.ZLexCount(ctx, s, "-", "+"); return err },
		"ZRank":                      func() error { _, _, err := c.ZRank(ctx, s, "a"); return err },
		"ZRevRank":                   func() error { _, _, err := c.ZRevRank(ctx, s, "a"); return err },
		"ZRankWithScore":             func() error { _, _, err := c.ZRankWithScore(ctx, s, "a"); return err },
		"ZRevRankWithScore":          func() error { _, _, err := c.ZRevRankWithScore(ctx, s, "a"); return err },
		"ZRankAround":                func() error { _, _, err := c.ZRankAround(ctx, s, "a", 1); return err },
		"ZRevRankAround":             func() error { _, _, err := c.ZRevRankAround(ctx, s, "a", 1); return err },
		"ZRange":                     func() error { _, err := c.ZRange(ctx, s, 0, -1); return err },
		"ZRangeWithScores":           func() error { _, err := c.ZRangeWithScores(ctx, s, -1, -1); return err },
		"ZRevRange":                  func() error { _, err := c.ZRevRange(ctx, s, 0, 0); return err },
		"ZRevRangeWithScores":        func() error { _, err := c.ZRevRangeWithScores(ctx, s, 0, -1); return err },
		"ZRangeByScore":              func() error { _, err := c.ZRangeByScore(ctx, s, by); return err },
		"ZRangeByScoreWithScores":    func() error { _, err := c.ZRangeByScoreWithScores(ctx, s, by); return err },
		"ZRevRangeByScore":           func() error { _, err := c.ZRevRangeByScore(ctx, s, by); return err },
		"ZRevRangeByScoreWithScores": func() error { _, err := c.ZRevRangeByScoreWithScores(ctx, s, by); return err },
		"ZRangeByLex":                func() error { _, err := c.ZRangeByLex(ctx, s, lex); return err },
		"ZRevRangeByLex":             func() error { _, err := c.ZRevRangeByLex(ctx, s, lex); return err },
		"ZRangeArgs":                 func() error { _, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: s, Start: "0", Stop: "-1"}); return err },
		"ZRangeArgsWithScores": func() error {
			_, err := c.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: s, Start: "-inf", Stop: "+inf", ByScore: true})
			return err
		},
		"ZRangeStore": func() error {
			_, err := c.ZRangeStore(ctx, p+"d", ZRangeArgs{Key: s, Start: "0", Stop: "-1"})
			return err
		},
		"ZRemRangeByScore": func() error { _, err := c.ZRemRangeByScore(ctx, s, "-inf", "+inf"); return err },
		"ZRemRangeByRank":  func() error { _, err := c.ZRemRangeByRank(ctx, s, 0, -1); return err },
		"ZRemRangeByLex":   func() error { _, err := c.ZRemRangeByLex(ctx, s, "-", "+"); return err },
		"ZPopMin":          func() error { _, err := c.ZPopMin(ctx, s); return err },
		"ZPopMax":          func() error { _, err := c.ZPopMax(ctx, s, 5); return err },
		"ZScan":            func() error { return firstErr(c.ZScan(ctx, s, "")) },
		"ZMPop":            func() error { _, _, err := c.ZMPop(ctx, PopMin, 1, p+"none", s, p+"z"); return err },
		"BZPopMin":         func() error { _, _, err := c.BZPopMin(ctx, 0, s); return err },
		"BZMPop":           func() error { _, _, err := c.BZMPop(ctx, time.Millisecond, PopMax, 3, s); return err },
		"ZMove":            func() error { _, err := c.ZMove(ctx, s, p+"d", ZMoveArgs{Order: PopMin}); return err },
		"BZMove": func() error {
			_, err := c.BZMove(ctx, time.Millisecond, s, p+"d", ZMoveArgs{Order: PopMin})
			return err
		},
		"ZMoveMember": func() error {
			_, err := c.ZMoveMember(ctx, s, p+"d", ZMoveMemberArgs{Members: []string{"a"}})
			return err
		},
		"ZMove destination": func() error {
			_, err := c.ZMove(ctx, z, s, ZMoveArgs{ByScore: true, Min: "(100", Max: "+inf"}) // nothing in the range: still WRONGTYPE
			return err
		},
		"BZMove destination": func() error { _, err := c.BZMove(ctx, 0, z, s, ZMoveArgs{Order: PopMax, Count: 2}); return err },
		"ZMoveMember destination": func() error {
			_, err := c.ZMoveMember(ctx, z, s, ZMoveMemberArgs{NX: true, Members: []string{"none"}})
			return err
		},
		"ZRandMember": func() error { _, err := c.ZRandMember(ctx, s, 1); return err },
		"ZRandMemberWithScores": func() error {
			_, err := c.ZRandMemberWithScores(ctx, s, -3)
			return err
		},
	}
	before := scanTable(t, p)
	for name, call := range cases {
		err := call()
		require.ErrorIs(t, err, ErrWrongType, name)
		require.NotErrorIs(t, err, ErrInvalidArgument, name)
	}
	require.Equal(t, before, scanTable(t, p), "nothing written")
}

// The longest key and member redimo takes, the empty key and member, and
// invalid UTF-8 round-trip through sets and sorted sets.
func TestLimitsRoundTrip(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, _, p := setup(t)
	longKey := p + strings.Repeat("k", MaxKeyLen-len(p)-1) + "\xff"
	longMember := strings.Repeat("m", MaxMemberLen-1) + "\xfe"
	require.Len(t, longKey, MaxKeyLen)
	require.Len(t, longMember, MaxMemberLen)
	members := []string{longMember, "", "\xff\xfe\xfd", "a\x00b", "é"}
	for _, key := range []string{longKey, "", p + "\xc3\x28"} {
		t.Run(strings.ToValidUTF8(key[max(0, len(key)-8):], "?"), func(t *testing.T) {
			n, err := c.SAdd(ctx, key, members...)
			require.NoError(t, err)
			require.EqualValues(t, len(members), n)
			got, err := c.SMembers(ctx, key)
			require.NoError(t, err)
			require.Equal(t, sorted(members), got)
			ok, err := c.SIsMember(ctx, key, longMember)
			require.NoError(t, err)
			require.True(t, ok)
			n, err = c.SRem(ctx, key, longMember)
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
			n, err = c.Del(ctx, key)
			require.NoError(t, err)
			require.EqualValues(t, 1, n)

			zkey := key
			for i, m := range members {
				_, err := c.ZAdd(ctx, zkey, Z{Score: float64(i), Member: m})
				require.NoError(t, err)
			}
			s, ok, err := c.ZScore(ctx, zkey, longMember)
			require.NoError(t, err)
			require.True(t, ok)
			require.Zero(t, s)
			_, err = c.ZAdd(ctx, zkey, Z{Score: 1e308, Member: longMember})
			require.NoError(t, err)
			rev, err := c.ZRevRangeWithScores(ctx, zkey, 0, 0)
			require.NoError(t, err)
			require.Equal(t, []Z{{Score: 1e308, Member: longMember}}, rev)
			lex, err := c.ZRangeByLex(ctx, zkey, &ZRangeBy{Min: "[" + longMember, Max: "+"})
			require.NoError(t, err)
			require.Equal(t, []string{longMember, "é", "\xff\xfe\xfd"}, lex)
			n, err = c.Del(ctx, zkey)
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
			var left []model.Item
			for it, err := range c.query(ctx, &dynamodb.QueryInput{
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
				ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key))},
			}, 0) {
				require.NoError(t, err)
				left = append(left, it)
			}
			require.Empty(t, dataItems(left), "no item of the key is left in the table (but the one of its write tokens)")
		})
	}
}

// FuzzLexBound: a lex bound parses exactly when Redis takes it ("-", "+",
// or '[' or '(' then any bytes), and a refused one is ErrSyntax. (How
// bounds of every length select members is TestLongMembersAgainstRedis's.)
func FuzzLexBound(f *testing.F) {
	for _, s := range []string{"[a", "(a", "-", "+", "a", "", "[", "(\xff", "+x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bound string) {
		b, err := parseLex("ZRANGEBYLEX", "min", bound)
		valid := bound == "-" || bound == "+" || strings.HasPrefix(bound, "[") || strings.HasPrefix(bound, "(")
		if !valid {
			require.ErrorIs(t, err, ErrSyntax)
			require.ErrorIs(t, err, ErrInvalidArgument)
			return
		}
		require.NoError(t, err)
		require.Equal(t, bound == "+", b.Inf)
		require.Equal(t, bound == "-", b.Ninf)
		if !b.Inf && !b.Ninf {
			require.Equal(t, bound[1:], b.Value)
			require.Equal(t, bound[0] == '(', b.Excl)
		}
	})
}

// memberTTLCases calls each member-expiry command on key k.
func memberTTLCases(ctx context.Context, c *Client, k string) map[string]func() error {
	exp := func(f func(context.Context, string, time.Duration, ExpireCondition, ...string) ([]int64, error)) func() error {
		return func() error { _, err := f(ctx, k, time.Minute, ExpireAlways, "a"); return err }
	}
	at := func(f func(context.Context, string, time.Time, ExpireCondition, ...string) ([]int64, error)) func() error {
		return func() error { _, err := f(ctx, k, time.Now().Add(time.Minute), ExpireNX, "a"); return err }
	}
	read := func(f func(context.Context, string, ...string) ([]int64, error)) func() error {
		return func() error { _, err := f(ctx, k, "a"); return err }
	}
	return map[string]func() error{
		"SExpire": exp(c.SExpire), "SPExpire": exp(c.SPExpire), "ZExpire": exp(c.ZExpire), "ZPExpire": exp(c.ZPExpire),
		"SExpireAt": at(c.SExpireAt), "SPExpireAt": at(c.SPExpireAt), "ZExpireAt": at(c.ZExpireAt), "ZPExpireAt": at(c.ZPExpireAt),
		"STTL": read(c.STTL), "SPTTL": read(c.SPTTL), "SExpireTime": read(c.SExpireTime), "SPExpireTime": read(c.SPExpireTime),
		"ZTTL": read(c.ZTTL), "ZPTTL": read(c.ZPTTL), "ZExpireTime": read(c.ZExpireTime), "ZPExpireTime": read(c.ZPExpireTime),
		"SPersist": read(c.SPersist), "ZPersist": read(c.ZPersist),
		"SAddEx": func() error { _, err := c.SAddEx(ctx, k, time.Minute, false, "a"); return err },
		"SAddExArgs": func() error {
			_, err := c.SAddExArgs(ctx, k, SAddExArgs{Mode: SAddExMXX, TTL: time.Minute, Members: []string{"a"}})
			return err
		},
		"SCollect": func() error { return c.SCollect(ctx, k) },
		"ZCollect": func() error { return c.ZCollect(ctx, k) },
	}
}

// Every command with bad arguments: a typed error (errors.Is on
// ErrInvalidArgument and the specific reason, errors.As *ArgError), no
// request sent, nothing written.
func TestRejectsBadInput(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "k"
	// Existing keys of both types, so a rejection cannot hide behind "missing".
	_, err := c.SAdd(ctx, k+"s", "a")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, k+"z", Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	s, z := k+"s", k+"z"
	long := strings.Repeat("m", MaxMemberLen+1)
	longKey := strings.Repeat("k", MaxKeyLen+1)
	nan := math.NaN()

	cases := []struct {
		name   string
		reason error
		call   func() error
	}{
		{"SADD no members", ErrSyntax, func() error { _, err := c.SAdd(ctx, s); return err }},
		{"SADD long member", ErrMemberTooLong, func() error { _, err := c.SAdd(ctx, s, "ok", long); return err }},
		{"SADD long key", ErrKeyTooLong, func() error { _, err := c.SAdd(ctx, longKey, "a"); return err }},
		{"SREM no members", ErrSyntax, func() error { _, err := c.SRem(ctx, s); return err }},
		{"SREM long member", ErrMemberTooLong, func() error { _, err := c.SRem(ctx, s, long); return err }},
		{"SCARD long key", ErrKeyTooLong, func() error { _, err := c.SCard(ctx, longKey); return err }},
		{"SISMEMBER long member", ErrMemberTooLong, func() error { _, err := c.SIsMember(ctx, s, long); return err }},
		{"SMISMEMBER none", ErrSyntax, func() error { _, err := c.SMIsMember(ctx, s); return err }},
		{"SMEMBERS long key", ErrKeyTooLong, func() error { _, err := c.SMembers(ctx, longKey); return err }},
		{"SSCAN long key", ErrKeyTooLong, func() error { return firstErr(c.SScan(ctx, longKey, "")) }},
		{"SRANDMEMBER huge negative", ErrOutOfRange, func() error { _, err := c.SRandMemberN(ctx, s, math.MinInt64); return err }},
		{"SPOP negative", ErrOutOfRange, func() error { _, err := c.SPopN(ctx, s, -1); return err }},
		{"SMOVE long member", ErrMemberTooLong, func() error { _, err := c.SMove(ctx, s, k+"d", long); return err }},
		{"SMOVE long destination", ErrKeyTooLong, func() error { _, err := c.SMove(ctx, s, longKey, "a"); return err }},
		{"SINTER no keys", ErrSyntax, func() error { _, err := c.SInter(ctx); return err }},
		{"SINTERCARD negative limit", ErrOutOfRange, func() error { _, err := c.SInterCard(ctx, -1, s); return err }},
		{"SUNIONCARD negative limit", ErrOutOfRange, func() error { _, err := c.SUnionCard(ctx, -1, s); return err }},
		{"SDIFFCARD negative limit", ErrOutOfRange, func() error { _, err := c.SDiffCard(ctx, -1, s, s); return err }},
		{"SUNION no keys", ErrSyntax, func() error { _, err := c.SUnion(ctx); return err }},
		{"SDIFF long key", ErrKeyTooLong, func() error { _, err := c.SDiff(ctx, s, longKey); return err }},
		{"SUNIONSTORE long destination", ErrKeyTooLong, func() error { _, err := c.SUnionStore(ctx, longKey, s); return err }},
		{"DEL long key", ErrKeyTooLong, func() error { _, err := c.Del(ctx, s, longKey); return err }},
		{"EXISTS long key", ErrKeyTooLong, func() error { _, err := c.Exists(ctx, longKey); return err }},
		{"EXPIRE bad condition", ErrSyntax, func() error { _, err := c.ExpireWith(ctx, s, time.Minute, ExpireCondition(99)); return err }},
		{"ZADD NaN", ErrNotFloat, func() error { _, err := c.ZAdd(ctx, z, Z{Score: nan, Member: "b"}); return err }},
		{"ZADD NaN among good", ErrNotFloat, func() error {
			_, err := c.ZAdd(ctx, z, Z{Score: 1, Member: "b"}, Z{Score: nan, Member: "c"})
			return err
		}},
		{"ZADD NX XX", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{NX: true, XX: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD GT LT", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{GT: true, LT: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD NX GT", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{NX: true, GT: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD no members", ErrSyntax, func() error { _, err := c.ZAdd(ctx, z); return err }},
		{"ZADD long member", ErrMemberTooLong, func() error { _, err := c.ZAdd(ctx, z, Z{Score: 1, Member: long}); return err }},
		{"ZADD INCR two members", ErrSyntax, func() error {
			_, _, err := c.ZAddArgsIncr(ctx, z, ZAddArgs{Members: []Z{{1, "a"}, {2, "b"}}})
			return err
		}},
		{"ZINCRBY NaN", ErrNotFloat, func() error { _, err := c.ZIncrBy(ctx, z, nan, "a"); return err }},
		{"ZREM none", ErrSyntax, func() error { _, err := c.ZRem(ctx, z); return err }},
		{"ZSCORE long member", ErrMemberTooLong, func() error { _, _, err := c.ZScore(ctx, z, long); return err }},
		{"ZCOUNT (abc", ErrNotFloat, func() error { _, err := c.ZCount(ctx, z, "(abc", "1"); return err }},
		{"ZCOUNT nan", ErrNotFloat, func() error { _, err := c.ZCount(ctx, z, "0", "nan"); return err }},
		{"ZLEXCOUNT no bracket", ErrSyntax, func() error { _, err := c.ZLexCount(ctx, z, "a", "+"); return err }},
		{"ZRANGEBYSCORE trailing space", ErrNotFloat, func() error { _, err := c.ZRangeByScore(ctx, z, &ZRangeBy{Min: "1 ", Max: "1"}); return err }},
		{"ZREVRANGEBYSCORE bad", ErrNotFloat, func() error { _, err := c.ZRevRangeByScore(ctx, z, &ZRangeBy{Min: "x", Max: "1"}); return err }},
		{"ZRANGEBYLEX bad", ErrSyntax, func() error { _, err := c.ZRangeByLex(ctx, z, &ZRangeBy{Min: "-", Max: "b"}); return err }},
		{"ZRANGE non-integer", ErrNotInteger, func() error { _, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "1.5", Stop: "2"}); return err }},
		{"ZRANGE BYSCORE BYLEX", ErrSyntax, func() error {
			_, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "1", Stop: "2", ByScore: true, ByLex: true})
			return err
		}},
		{"ZRANGE LIMIT by rank", ErrSyntax, func() error {
			_, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "0", Stop: "1", Count: 1})
			return err
		}},
		{"ZRANGE BYLEX WITHSCORES", ErrSyntax, func() error {
			_, err := c.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: z, Start: "-", Stop: "+", ByLex: true})
			return err
		}},
		{"ZREMRANGEBYSCORE bad", ErrNotFloat, func() error { _, err := c.ZRemRangeByScore(ctx, z, "((", "1"); return err }},
		{"ZREMRANGEBYLEX bad", ErrSyntax, func() error { _, err := c.ZRemRangeByLex(ctx, z, "x", "+"); return err }},
		{"ZPOPMIN negative", ErrOutOfRange, func() error { _, err := c.ZPopMin(ctx, z, -2); return err }},
		{"ZPOPMAX two counts", ErrSyntax, func() error { _, err := c.ZPopMax(ctx, z, 1, 2); return err }},
		{"SCAN negative count", ErrOutOfRange, func() error { _, _, err := c.Scan(ctx, 0, "", -1); return err }},
		{"SCAN TYPE negative count", ErrOutOfRange, func() error { _, _, err := c.ScanType(ctx, 0, "", -5, "set"); return err }},
		{"ZMPOP count 0", ErrOutOfRange, func() error { _, _, err := c.ZMPop(ctx, PopMin, 0, z); return err }},
		{"BZMPOP count -1", ErrOutOfRange, func() error { _, _, err := c.BZMPop(ctx, 0, PopMax, -1, z); return err }},
		{"ZMOVE count -1", ErrOutOfRange, func() error { _, err := c.ZMove(ctx, z, k+"d", ZMoveArgs{Order: PopMin, Count: -1}); return err }},
		{"ZMOVE BYSCORE bound", ErrNotFloat, func() error {
			_, err := c.ZMove(ctx, z, k+"d", ZMoveArgs{ByScore: true, Min: "x", Max: "1"})
			return err
		}},
		{"BZMOVE negative timeout", ErrOutOfRange, func() error { _, err := c.BZMove(ctx, -time.Second, z, k+"d", ZMoveArgs{Order: PopMin}); return err }},
		{"ZMOVEMEMBER long member", ErrMemberTooLong, func() error {
			_, err := c.ZMoveMember(ctx, z, k+"d", ZMoveMemberArgs{Members: []string{"a", long}})
			return err
		}},
		{"ZMOVEMEMBER long destination", ErrKeyTooLong, func() error {
			_, err := c.ZMoveMember(ctx, z, longKey, ZMoveMemberArgs{Members: []string{"a"}})
			return err
		}},
		{"BZPOPMIN negative timeout", ErrOutOfRange, func() error { _, _, err := c.BZPopMin(ctx, -time.Second, z); return err }},
		{"ZUNIONSTORE no keys", ErrSyntax, func() error { _, err := c.ZUnionStore(ctx, k+"d", &ZStore{}); return err }},
		{"ZUNIONSTORE weights count", ErrSyntax, func() error {
			_, err := c.ZUnionStore(ctx, k+"d", &ZStore{Keys: []string{z}, Weights: []float64{1, 2}})
			return err
		}},
		{"ZINTERSTORE NaN weight", ErrNotFloat, func() error {
			_, err := c.ZInterStore(ctx, k+"d", &ZStore{Keys: []string{z}, Weights: []float64{nan}})
			return err
		}},
		{"ZUNION bad aggregate", ErrSyntax, func() error { _, err := c.ZUnion(ctx, ZStore{Keys: []string{z}, Aggregate: "AVG"}); return err }},
		{"ZINTERCARD negative", ErrOutOfRange, func() error { _, err := c.ZInterCard(ctx, -1, z); return err }},
		{"ZRANDMEMBER huge negative", ErrOutOfRange, func() error { _, err := c.ZRandMember(ctx, z, -MaxRandCount-1); return err }},
		{"ZSCAN long key", ErrKeyTooLong, func() error { return firstErr(c.ZScan(ctx, longKey, "")) }},
		{"RateLimiter limit 0", ErrOutOfRange, func() error { _, err := c.RateLimiter(0, time.Second).Allow(ctx, k); return err }},
		{"ShardedSet 0 shards", ErrOutOfRange, func() error { _, err := c.ShardedSet(k, 0).Add(ctx, "a"); return err }},
		{"ExpiringSet ttl 0", ErrOutOfRange, func() error { _, err := c.ExpiringSet(k+"e").Add(ctx, 0, "a"); return err }},
	}
	before := scanTable(t, p)
	cnt.reset()
	for _, tc := range cases {
		err := tc.call()
		require.ErrorIs(t, err, ErrInvalidArgument, tc.name)
		require.ErrorIs(t, err, tc.reason, tc.name)
		var ae *ArgError
		require.True(t, errors.As(err, &ae), tc.name)
		require.NotEmpty(t, ae.Command, tc.name)
		require.NotEmpty(t, ae.Arg, tc.name)
	}
	require.EqualValues(t, 0, cnt.requests.Load(), "every rejection happens before any request: %s", cnt)
	require.Equal(t, before, scanTable(t, p), "nothing written")
}

// Keys and members that look like expression syntax are only ever values:
// they round-trip.
func TestPlaceholderSafety(t *testing.T) {
	ctx, c, _, p := setup(t)
	nasty := []string{"#pk", ":v", ") OR attribute_exists(pk", "sk", "#t = :t", "ünïcødé ✓", "\x00", "\xff\xfe", "", "pk = :pk AND begins_with(sk, :p)"}
	for _, k := range nasty {
		key := p + k
		n, err := c.SAdd(ctx, key, nasty...)
		require.NoError(t, err)
		require.EqualValues(t, len(nasty), n)
		members, err := c.SMembers(ctx, key)
		require.NoError(t, err)
		require.Equal(t, sorted(nasty), members)
		for _, m := range nasty {
			ok, err := c.SIsMember(ctx, key, m)
			require.NoError(t, err)
			require.True(t, ok, "%q", m)
		}
		zkey := key + ":z"
		for i, m := range nasty {
			_, err := c.ZAdd(ctx, zkey, Z{Score: 0, Member: m})
			require.NoError(t, err)
			s, ok, err := c.ZScore(ctx, zkey, m)
			require.NoError(t, err)
			require.True(t, ok)
			require.Zero(t, s, "%d", i)
		}
		lex, err := c.ZRangeByLex(ctx, zkey, &ZRangeBy{Min: "-", Max: "+"})
		require.NoError(t, err)
		require.Equal(t, sorted(nasty), lex)
		n, err = c.SRem(ctx, key, nasty...)
		require.NoError(t, err)
		require.EqualValues(t, len(nasty), n)
		n, err = c.Del(ctx, zkey)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		requireGone(t, c, key)
	}
}
