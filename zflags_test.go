package redimo

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// zaddFlags is one combination of ZADD's options.
type zaddFlags struct{ nx, xx, gt, lt, ch, incr bool }

func (f zaddFlags) String() string { return strings.Join(f.names(), " ") }

// names are the options of f as ZADD takes them.
func (f zaddFlags) names() []string {
	var s []string
	for _, o := range []struct {
		on   bool
		name string
	}{{f.nx, "NX"}, {f.xx, "XX"}, {f.gt, "GT"}, {f.lt, "LT"}, {f.ch, "CH"}, {f.incr, "INCR"}} {
		if o.on {
			s = append(s, o.name)
		}
	}
	return s
}

// valid is Redis's check: NX with XX, GT with LT, NX with GT or LT are
// syntax errors.
func (f zaddFlags) valid() bool {
	return !(f.nx && f.xx) && !(f.gt && f.lt) && !(f.nx && (f.gt || f.lt))
}

func (f zaddFlags) args(members ...Z) ZAddArgs {
	return ZAddArgs{NX: f.nx, XX: f.xx, GT: f.gt, LT: f.lt, Ch: f.ch, Members: members}
}

// allZAddFlags is every combination of NX, XX, GT, LT, CH and INCR.
func allZAddFlags() []zaddFlags {
	var out []zaddFlags
	for bits := range 1 << 6 {
		b := func(i int) bool { return bits&(1<<i) != 0 }
		out = append(out, zaddFlags{b(0), b(1), b(2), b(3), b(4), b(5)})
	}
	return out
}

// zaddModel is Redis's zsetAdd (t_zset.c) for one member: from the current
// score (exists false: missing) and the given score, the score afterwards,
// what the reply counts (added, or changed with CH), and for INCR the
// reply (nilReply: Redis's nil).
func zaddModel(f zaddFlags, cur float64, exists bool, score float64) (after float64, present bool, counted int64, reply float64, nilReply bool) {
	if !exists {
		if f.xx {
			return 0, false, 0, 0, true
		}
		return score, true, 1, score, false
	}
	if f.nx {
		return cur, true, 0, 0, true
	}
	next := score
	if f.incr {
		next = cur + score
	}
	if (f.lt && next >= cur) || (f.gt && next <= cur) {
		return cur, true, 0, 0, true
	}
	if next != cur && f.ch {
		counted = 1
	}
	return next, true, counted, next, false
}

// zaddCur is the score of every existing member before ZADD in the tests
// of ZADD's options.
const zaddCur = 10.0

// zaddStates are the states of a member before ZADD: missing, or at
// zaddCur with the new score (score; incrBy for INCR) below, equal to or
// above it.
var zaddStates = []struct {
	name          string
	exists        bool
	score, incrBy float64
}{{"missing", false, 7, 7}, {"lower", true, 4, -6}, {"equal", true, zaddCur, 0}, {"higher", true, 12, 2}}

// flagMember is the member of the tests of ZADD's options for the
// combination f and the state named state.
func flagMember(f zaddFlags, state string) string { return f.String() + "|" + state }

// zaddSeed is every existing member at zaddCur: one per combination of
// options and existing state.
func zaddSeed() []Z {
	var seed []Z
	for _, f := range allZAddFlags() {
		for _, s := range zaddStates[1:] {
			seed = append(seed, Z{Score: zaddCur, Member: flagMember(f, s.name)})
		}
	}
	return seed
}

// Every combination of ZADD's options, on a missing member and on members
// whose score the new one is below, equal to and above: replies and the
// scores afterwards are Redis's (zaddModel, checked against redis-server by
// TestZRedisZAddFlags). Invalid combinations are ErrSyntax before any
// request.
func TestZAddFlagMatrix(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, zaddSeed()...)
	require.NoError(t, err)

	want := map[string]float64{}
	for _, f := range allZAddFlags() {
		if !f.valid() {
			cnt.reset()
			var err error
			if f.incr {
				_, _, err = c.ZAddArgsIncr(ctx, k, f.args(Z{Score: 1, Member: "x"}))
			} else {
				_, err = c.ZAddArgs(ctx, k, f.args(Z{Score: 1, Member: "x"}))
			}
			require.ErrorIs(t, err, ErrSyntax, f.String())
			require.ErrorIs(t, err, ErrInvalidArgument, f.String())
			require.Zero(t, cnt.requests.Load(), f.String())
			continue
		}
		if f.incr {
			for _, s := range zaddStates {
				m := flagMember(f, s.name)
				by := s.incrBy
				after, present, _, reply, isNil := zaddModel(f, zaddCur, s.exists, by)
				got, ok, err := c.ZAddArgsIncr(ctx, k, f.args(Z{Score: by, Member: m}))
				require.NoError(t, err, m)
				require.Equal(t, !isNil, ok, m)
				if ok {
					require.Equal(t, reply, got, m)
				}
				if present {
					want[m] = after
				}
			}
			continue
		}
		// All four states in one call: the counts add up.
		var zs []Z
		var total int64
		for _, s := range zaddStates {
			m := flagMember(f, s.name)
			zs = append(zs, Z{Score: s.score, Member: m})
			after, present, counted, _, _ := zaddModel(f, zaddCur, s.exists, s.score)
			total += counted
			if present {
				want[m] = after
			}
		}
		n, err := c.ZAddArgs(ctx, k, f.args(zs...))
		require.NoError(t, err, f.String())
		require.Equal(t, total, n, f.String())
	}
	// Members of invalid combinations were seeded and never touched.
	for _, f := range allZAddFlags() {
		if !f.valid() {
			for _, s := range zaddStates[1:] {
				want[flagMember(f, s.name)] = zaddCur
			}
		}
	}
	all, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	got := map[string]float64{}
	for _, z := range all {
		got[z.Member] = z.Score
	}
	require.Equal(t, want, got)
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, len(want), card)
}

// INCR that would make NaN (inf + -inf) is ErrNotFloat and writes nothing,
// GT and LT included: Redis judges the sum before them. NX on an existing
// member is nil before any sum.
func TestZAddIncrNaN(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{Score: math.Inf(1), Member: "a"})
	require.NoError(t, err)
	before := scanTable(t, p)
	for _, args := range []ZAddArgs{{}, {XX: true}, {Ch: true}, {GT: true}, {XX: true, LT: true}} {
		args.Members = []Z{{Score: math.Inf(-1), Member: "a"}}
		_, _, err := c.ZAddArgsIncr(ctx, k, args)
		require.ErrorIs(t, err, ErrNotFloat, "%+v", args)
	}
	_, err = c.ZIncrBy(ctx, k, math.Inf(-1), "a")
	require.ErrorIs(t, err, ErrNotFloat)
	require.Equal(t, before, scanTable(t, p), "nothing written")
	_, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{NX: true, Members: []Z{{Score: math.Inf(-1), Member: "a"}}})
	require.NoError(t, err)
	require.False(t, ok)
	s, _, err := c.ZScore(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, math.Inf(1), s)
}
