package redimo

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// longTestMembers are longMembers plus a run of 30 members of about 60 KB
// that share their first 1015 bytes: with equal scores they fill more than
// one 1 MB query page, so the run crosses a page boundary in the index and
// in the table, and their sort keys order them by hash, not by member.
func longTestMembers(r *rand.Rand) []string {
	out := slices.Clone(longMembers)
	shared := "R" + strings.Repeat("r", model.InlineMemberLen-1)
	for i := range 30 {
		out = append(out, shared+fmt.Sprintf("%03d", r.IntN(1000))+strings.Repeat("q", 60_000+i))
	}
	return append(out, "short", "", "Lshared") // short ones around them
}

// Members of 1,016 to 100,000 bytes answer as in Redis: sets and sorted
// sets, ranges in both directions with and without LIMIT, lex ranges with
// bounds shorter and longer than a sort key, ranks, scores, removals,
// pops, random members, algebra.
func TestLongMembersAgainstRedis(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, rdb, p := setupRedis(t)
	r := rand.New(rand.NewPCG(7, 7))
	members := longTestMembers(r)
	s, z, z2, dst := p+"s", p+"z", p+"z2", p+"dst"

	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got  %s\n want %s", what, abbrev(got), abbrev(want))
		}
	}
	short := func(m string) string { return shortQ(m[:min(len(m), 20)]) + fmt.Sprintf("…(%d)", len(m)) }

	// Sets.
	n, err := c.SAdd(ctx, s, members...)
	require.NoError(t, err)
	same("SADD", n, rdb.SAdd(ctx, s, anys(members...)...).Val())
	n, err = c.SAdd(ctx, s, members[3], members[10]) // already there
	require.NoError(t, err)
	same("SADD again", n, int64(0))
	got, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	same("SMEMBERS", sorted(got), sorted(rdb.SMembers(ctx, s).Val()))
	for _, m := range []string{members[0], members[len(longMembers)+2], members[len(longMembers)+2] + "x", members[5][:model.InlineMemberLen+1]} {
		ok, err := c.SIsMember(ctx, s, m)
		require.NoError(t, err)
		same("SISMEMBER "+short(m), ok, rdb.SIsMember(ctx, s, m).Val())
	}
	rnd, err := c.SRandMemberN(ctx, s, 8)
	require.NoError(t, err)
	require.Len(t, rnd, 8)
	for _, m := range rnd {
		require.True(t, rdb.SIsMember(ctx, s, m).Val(), "SRANDMEMBER returned %s", short(m))
	}
	inter, err := c.SInter(ctx, s, s)
	require.NoError(t, err)
	same("SINTER", sorted(inter), sorted(rdb.SInter(ctx, s, s).Val()))

	// Sorted sets: most at one score, so ties order by the whole member.
	var zs []Z
	for i, m := range members {
		score := 1.0
		if i%7 == 0 {
			score = float64(i % 3)
		}
		zs = append(zs, Z{Score: score, Member: m})
		rdb.ZAdd(ctx, z, redisZs(Z{Score: score, Member: m})...)
	}
	n, err = c.ZAdd(ctx, z, zs...)
	require.NoError(t, err)
	same("ZADD", n, int64(len(members)))
	compareRanges := func(step string) {
		t.Helper()
		for _, rg := range [][2]int64{{0, -1}, {0, 4}, {3, 9}, {10, 40}, {-5, -1}} {
			got, err := c.ZRangeWithScores(ctx, z, rg[0], rg[1])
			require.NoError(t, err)
			same(fmt.Sprintf("%s ZRANGE %v", step, rg), names(got), rdb.ZRange(ctx, z, rg[0], rg[1]).Val())
			got, err = c.ZRevRangeWithScores(ctx, z, rg[0], rg[1])
			require.NoError(t, err)
			same(fmt.Sprintf("%s ZREVRANGE %v", step, rg), names(got), rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: z, Start: rg[0], Stop: rg[1], Rev: true}).Val())
		}
		all := rdb.ZRange(ctx, z, 0, -1).Val()
		for i := 0; i < len(all); i += 5 {
			rank, ok, err := c.ZRank(ctx, z, all[i])
			require.NoError(t, err)
			require.True(t, ok)
			same(step+" ZRANK "+short(all[i]), rank, int64(i))
		}
	}
	compareRanges("after ZADD")

	// Lex ranges on a key whose members all have one score.
	var lexZ []Z
	for _, m := range members {
		lexZ = append(lexZ, Z{Member: m})
	}
	_, err = c.ZAdd(ctx, z2, lexZ...)
	require.NoError(t, err)
	rdb.ZAdd(ctx, z2, redisZs(lexZ...)...)
	var bounds []string
	for _, m := range append(slices.Clone(members[:8]), members[len(longMembers)+4], members[len(members)-4]) {
		for _, b := range []string{m, m[:max(0, len(m)-1)], m + "\x00", m[:min(len(m), model.InlineMemberLen)], m[:min(len(m), model.InlineMemberLen+1)]} {
			bounds = append(bounds, "["+b, "("+b)
		}
	}
	bounds = append(bounds, "-", "+")
	// Each query reads members of 60 KB: the everyday suite asks 40.
	for i := range testenv.Budget(40, 200) {
		lo, hi := pick2(r, bounds)
		got, err := c.ZRangeByLex(ctx, z2, &ZRangeBy{Min: lo, Max: hi})
		require.NoError(t, err)
		same("ZRANGEBYLEX "+short(lo)+" "+short(hi), got, nonNil(rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: z2, Start: lo, Stop: hi, ByLex: true}).Val()))
		cnt, err := c.ZLexCount(ctx, z2, lo, hi)
		require.NoError(t, err)
		same("ZLEXCOUNT "+short(lo)+" "+short(hi), cnt, rdb.ZLexCount(ctx, z2, lo, hi).Val())
		if i%20 == 0 {
			got, err := c.ZRangeByLex(ctx, z2, &ZRangeBy{Min: lo, Max: hi, Offset: 2, Count: 3})
			require.NoError(t, err)
			same("ZRANGEBYLEX LIMIT", got, nonNil(rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: z2, Start: lo, Stop: hi, ByLex: true, Offset: 2, Count: 3}).Val()))
		}
	}

	// Scores, increments, removals, pops.
	long := members[len(longMembers)+5]
	sc, err := c.ZIncrBy(ctx, z, 2.5, long)
	require.NoError(t, err)
	same("ZINCRBY", sc, rdb.ZIncrBy(ctx, z, 2.5, long).Val())
	sc, ok, err := c.ZScore(ctx, z, long)
	require.NoError(t, err)
	require.True(t, ok)
	same("ZSCORE", sc, rdb.ZScore(ctx, z, long).Val())
	rem := []string{members[1], members[len(longMembers)+7], members[len(longMembers)+7] + "?", "nope"}
	n, err = c.ZRem(ctx, z, rem...)
	require.NoError(t, err)
	same("ZREM", n, rdb.ZRem(ctx, z, anys(rem...)...).Val())
	n, err = c.SRem(ctx, s, rem...)
	require.NoError(t, err)
	same("SREM", n, rdb.SRem(ctx, s, anys(rem...)...).Val())
	compareRanges("after ZREM")
	lo, hi := "["+members[len(longMembers)+3][:model.InlineMemberLen], "("+members[len(longMembers)+20]
	n, err = c.ZRemRangeByLex(ctx, z2, lo, hi)
	require.NoError(t, err)
	same("ZREMRANGEBYLEX", n, rdb.ZRemRangeByLex(ctx, z2, lo, hi).Val())
	got, err = c.ZRangeByLex(ctx, z2, &ZRangeBy{Min: "-", Max: "+"})
	require.NoError(t, err)
	same("after ZREMRANGEBYLEX", got, rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: z2, Start: "-", Stop: "+", ByLex: true}).Val())
	popped, err := c.ZPopMin(ctx, z, 12)
	require.NoError(t, err)
	want := rdb.ZPopMin(ctx, z, 12).Val()
	same("ZPOPMIN", popped, fromRedisZ(want))
	stored, err := c.ZUnionStore(ctx, dst, &ZStore{Keys: []string{z, z2}})
	require.NoError(t, err)
	same("ZUNIONSTORE", stored, rdb.ZUnionStore(ctx, dst, &redisZStore{Keys: []string{z, z2}}).Val())
	union, err := c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	same("ZUNIONSTORE result", union, fromRedisZ(rdb.ZRangeWithScores(ctx, dst, 0, -1).Val()))
	checkStoredCounts(t, p)
}

// A long member whose sort key is another's (a 64-bit hash collision,
// staged here by storing a different m under a member's sort key) is
// refused with ErrMemberCollision and never taken for the other one.
func TestLongMemberCollision(t *testing.T) {
	ctx, c, _, p := setup(t)
	a := strings.Repeat("a", model.InlineMemberLen) + "first"
	b := strings.Repeat("a", model.InlineMemberLen) + "second"
	for _, typ := range []model.KeyType{model.TypeSet, model.TypeZSet} {
		key := p + string(typ)
		var err error
		if typ == model.TypeSet {
			_, err = c.SAdd(ctx, key, a)
		} else {
			_, err = c.ZAdd(ctx, key, Z{Score: 1, Member: a})
		}
		require.NoError(t, err)
		// Stage the collision: b's sort key holds a.
		it := model.ItemKey(key, model.MemberSK(typ, a))
		moved := rawGet(t, it)
		moved[model.AttrSK] = model.Bin(model.MemberSK(typ, b))
		_, err = testDB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(testTable), Key: it})
		require.NoError(t, err)
		_, err = testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: moved})
		require.NoError(t, err)

		if typ == model.TypeSet {
			ok, err := c.SIsMember(ctx, key, b)
			require.NoError(t, err)
			require.False(t, ok, "b is not a member: its sort key holds a")
			_, err = c.SAdd(ctx, key, b)
			require.ErrorIs(t, err, ErrMemberCollision)
			n, err := c.SRem(ctx, key, b)
			require.NoError(t, err)
			require.Zero(t, n, "SREM b must not delete a")
			got, err := c.SMembers(ctx, key)
			require.NoError(t, err)
			require.Equal(t, []string{a}, got)
		} else {
			_, ok, err := c.ZScore(ctx, key, b)
			require.NoError(t, err)
			require.False(t, ok)
			_, err = c.ZAdd(ctx, key, Z{Score: 2, Member: b})
			require.ErrorIs(t, err, ErrMemberCollision)
			_, err = c.ZIncrBy(ctx, key, 1, b)
			require.ErrorIs(t, err, ErrMemberCollision)
			n, err := c.ZRem(ctx, key, b)
			require.NoError(t, err)
			require.Zero(t, n)
			got, err := c.ZRangeWithScores(ctx, key, 0, -1)
			require.NoError(t, err)
			require.Equal(t, []Z{{Score: 1, Member: a}}, got)
		}
	}
}

func names(zs []Z) []string {
	out := []string{}
	for _, z := range zs {
		out = append(out, z.Member)
	}
	return out
}

func pick2(r *rand.Rand, from []string) (string, string) {
	return from[r.IntN(len(from))], from[r.IntN(len(from))]
}

type redisZStore = redis.ZStore

func redisZs(zs ...Z) []redis.Z {
	out := make([]redis.Z, len(zs))
	for i, z := range zs {
		out[i] = redis.Z{Score: z.Score, Member: z.Member}
	}
	return out
}

func fromRedisZ(zs []redis.Z) []Z {
	out := make([]Z, len(zs))
	for i, z := range zs {
		out[i] = Z{Score: z.Score, Member: z.Member.(string)}
	}
	return out
}

// abbrev prints v with runs of ten or more of one byte cut to "c×n".
func abbrev(v any) string {
	s := fmt.Sprintf("%q", v)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i >= 10 {
			fmt.Fprintf(&b, "%c×%d", s[i], j-i)
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// BenchmarkLongMembers measures what members over 1015 bytes cost against
// short ones: requests, items read and capacity (as DynamoDB Local
// reports it) per command, for members of 100, 2,000 and 100,000 bytes.
func BenchmarkLongMembers(b *testing.B) {
	for _, size := range []int{100, 2000, 100_000} {
		ctx, c, cnt, p := setup(b)
		member := func(i int) string {
			head := fmt.Sprintf("m%07d-", i)
			return head + strings.Repeat("x", size-len(head))
		}
		z := p + "z"
		var zs []Z
		for i := range 100 {
			zs = append(zs, Z{Score: float64(i % 10), Member: member(i)})
		}
		if _, err := c.ZAdd(ctx, z, zs...); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dB", size)
		next := 1000
		b.Run(name+"/SAdd10", func(b *testing.B) {
			report(b, cnt, func() {
				ms := make([]string, 10)
				for i := range ms {
					ms[i], next = member(next), next+1
				}
				if n, err := c.SAdd(ctx, p+"s", ms...); err != nil || n != 10 {
					b.Fatal(n, err)
				}
			})
		})
		b.Run(name+"/SIsMember", func(b *testing.B) {
			report(b, cnt, func() {
				if ok, err := c.SIsMember(ctx, p+"s", member(1000)); err != nil || !ok {
					b.Fatal(ok, err)
				}
			})
		})
		b.Run(name+"/ZRange0to99", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRangeWithScores(ctx, z, 0, 99); err != nil || len(r) != 100 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(name+"/ZRevRangeTop10", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRevRangeWithScores(ctx, z, 0, 9); err != nil || len(r) != 10 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(name+"/ZRank", func(b *testing.B) {
			report(b, cnt, func() {
				if _, ok, err := c.ZRank(ctx, z, member(55)); err != nil || !ok {
					b.Fatal(ok, err)
				}
			})
		})
	}
}
