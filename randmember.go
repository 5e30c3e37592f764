package redimo

// Uniform random members of a set (SRANDMEMBER, SPOP).
//
// A set member's sort key starts with the first 7 bytes of its SHA-256
// ("Set members" in internal/model/keys.go), a 56-bit position spread
// uniformly over the set's part of the table. The positions are cut into
// B = 2^b equal buckets, b chosen from the cardinality N so that a bucket
// holds λ = N/B members on average, 128 ≤ λ < 256. A trial picks a bucket
// uniformly, reads it and draws u uniformly in [0, K), K =
// model.TrialCap(N, b): when u is less than the m members the bucket
// holds, the trial returns the u-th of them, otherwise nothing. Every
// member is returned by a trial with probability exactly 1/(B·K),
// whatever the gaps between the positions: the draw is exactly uniform as
// long as no bucket holds more than K members. K is the least bound that
// the hashes keep every bucket under but with probability below 10⁻⁹ for
// the whole set (246 for 10,000 members, 365 for 1,000,000; at most
// model.BucketCap, 384, which it reaches above ~8 million members: the
// odds are then below 10⁻⁶ up to ~8 billion); a bucket found over it
// makes the draw read the
// whole set, and so do members chosen to share a bucket (it takes about
// 2^b tries per member to find them), still uniform.
//
// A trial succeeds with probability λ/K, about 2/3, so a draw takes about
// 1.5 trials. Trials are taken in the order they are drawn, each
// independent of the others, none dropped; what is planned is only which
// buckets are read ahead of them. A round draws the trials the members
// still needed take on average, and half as many again; it reads the
// buckets of as many of the first of them as fit one round of Queries
// (at least those of the trials expected; a trial whose bucket is not
// read waits for the next round). A later round that needs only a few
// members draws the trials that get them but with odds below 10⁻⁴ and
// reads as many as fit a quarter of the Queries: SRANDMEMBER 10 of
// 10,000 members takes a second round in about 1 call of 20, of one or
// two Queries, and a third almost never. The buckets are read joining
// neighbours into
// one Query where that costs few read units (planArcs: a Query costs at
// least a read unit, a bucket of ~200 members 2 to 4); then takes the
// trials in order, and draws on while new trials land in buckets already
// read. A bucket read twice in a call is read once: the picks are
// independent given the set, so reusing what a bucket held, or reading
// more than the trials use, changes nothing. SRANDMEMBER 10 of a
// 10,000-member set is then the metadata item and one round of at most
// Options.Parallelism Queries (BENCHMARKS.md, "Set reads at one round
// trip"). When the trials' read units reach those of the whole set
// (about SCARD/80), reading the whole set is cheaper and just as
// uniform: redimo does that.

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

// randomMembers draws n members of the set at key uniformly: distinct ones
// (min(n, SCARD) of them) when distinct is set, else n independent draws
// that may repeat. whole reports that the result is the entire set (a
// distinct draw of at least SCARD members). A missing key gives none.
func (c *Client) randomMembers(ctx context.Context, key string, n int64, distinct bool) (out []string, whole bool, err error) {
	return c.randomMembersOf(ctx, key, nil, n, distinct)
}

// randomMembersOf is randomMembers for a caller that has just read key's
// metadata item (read, as stored; nil: not read).
func (c *Client) randomMembersOf(ctx context.Context, key string, read *model.Meta, n int64, distinct bool) (out []string, whole bool, err error) {
	var m model.Meta
	if read == nil {
		m, err = c.typedMeta(ctx, key, model.TypeSet)
	} else {
		m, err = c.ofType(ctx, key, read.Live(c.nowMs()), model.TypeSet)
	}
	if err == nil {
		m, err = c.settle(ctx, key, m, true) // the live count
	}
	if err != nil || m.Typ == model.TypeNone || n == 0 {
		return nil, false, err
	}
	if m.Small != nil { // in the metadata item just read
		out, whole := drawFrom(slices.Clone(m.Small), n, distinct)
		return out, whole, nil
	}
	if distinct {
		n = min(n, m.Card) // a distinct draw of SCARD or more is the whole set
	}
	if out, ok, err := c.view().bucketDraw(ctx, key, m, n, distinct); err != nil || ok {
		return out, false, err
	}
	return c.randomFromWhole(ctx, key, n, distinct)
}

// randomFromWhole reads the whole set and draws from it.
func (c *Client) randomFromWhole(ctx context.Context, key string, n int64, distinct bool) ([]string, bool, error) {
	all, err := c.members(ctx, key, model.TypeSet)
	if err != nil || len(all) == 0 {
		return nil, false, err
	}
	out, whole := drawFrom(all, n, distinct)
	return out, whole, nil
}

// randomFromBuckets runs trials (see the file comment) on the 2^b buckets
// of key, a set of about card members, until it has n members. ok is false when a bucket holds more than
// model.BucketCap members (or after model.MaxRandRounds rounds): the caller reads the
// whole set instead. read holds the buckets already read (bucket → its
// members), normally those of this call.
//
// Trials are drawn in order and taken in that order, each independent
// of the others; only which buckets are read ahead of them is planned
// (planRound): a round draws the trials it may need, reads their
// buckets (joined into a few Queries when that costs few more read
// units), then takes them in order, and goes on drawing while the new
// trials land in buckets already read (they cost nothing). The first
// trial that lands in a bucket not read waits for the next round.
// Reading more buckets than the trials use changes no trial's outcome:
// the draw stays exactly as uniform.
func (c *Client) randomFromBuckets(ctx context.Context, key string, card int64, b int, n int64, distinct bool, read map[uint64][]string) (out []string, ok bool, err error) {
	chosen := map[string]bool{}
	limit := model.TrialCap(card, b)
	hit := float64(card) / math.Ldexp(1, b) / float64(limit) // a trial's odds of a member
	round := max(c.opts.Parallelism, 1)
	few := max(round/4, 1)
	var pending []uint64 // trials drawn, not yet taken, in order
	draw := func() uint64 { return rand.Uint64() >> (64 - b) }
	for r := range model.MaxRandRounds {
		need := n - int64(len(out))
		expected := min(model.ExpectedTrials(card, b, need), 512)
		// A margin of trials, read too when their buckets join the
		// Queries of one round: the round then rarely falls short.
		target, least, queries := expected*3/2, expected, round
		if r > 0 && expected <= int64(2*few) {
			// The few members an earlier round fell short of: the trials
			// that get them but with odds below randShortOdds, as many
			// as fit a quarter of the Queries (at least one).
			p := hit
			if distinct {
				p *= 1 - float64(len(chosen))/float64(card)
			}
			target, least, queries = max(expected, model.SureTrials(need, p, randShortOdds, 512)), 1, few
		}
		for int64(len(pending)) < target {
			pending = append(pending, draw())
		}
		arcs := planRound(card, b, pending, int(least), queries, read)
		if over, err := c.readArcs(ctx, key, b, limit, arcs, read); err != nil || over {
			return nil, false, err
		}
		// Take the trials in order while their buckets are read, drawing
		// more while they land in buckets read. Free trials are bounded:
		// a set emptied since its count was read (every bucket read, none
		// with members) ends the rounds.
		for i, free := 0, len(pending)+64; ; i++ {
			if i == len(pending) {
				if free--; free < 0 {
					pending = nil
					break
				}
				pending = append(pending, draw())
			}
			j := pending[i]
			if !isRead(read, j) {
				pending = pending[i:]
				break
			}
			ms := read[j]
			if len(ms) > limit { // read before this call, under another bound
				return nil, false, nil
			}
			u := rand.IntN(limit)
			if u >= len(ms) || (distinct && chosen[ms[u]]) {
				continue
			}
			chosen[ms[u]] = true
			out = append(out, ms[u])
			if int64(len(out)) == n {
				return out, true, nil
			}
		}
	}
	return nil, false, nil
}

// randShortOdds bounds the odds that a round after the first falls
// short of the few members it needs, when their buckets fit its Queries:
// each round costs a round trip.
const randShortOdds = 1e-4

// planRound chooses the buckets a round reads: those of the longest run
// of pending's first trials (at least the first least) that fits
// queries Queries (planArcs), else those of the first least. Trials are
// taken in order, so a bucket read for a later trial is read ahead of
// it, never for a trial the round skips; the trials whose buckets are
// not read wait for the next round.
func planRound(card int64, b int, pending []uint64, least, queries int, read map[uint64][]string) []arc {
	least = min(least, len(pending))
	for k := len(pending); k > least; k-- {
		if arcs, fits := planArcs(card, b, unread(pending[:k], read), queries); fits {
			return arcs
		}
	}
	arcs, _ := planArcs(card, b, unread(pending[:least], read), queries)
	return arcs
}

// isRead reports whether bucket j is in read (empty buckets are there
// with no members).
func isRead(read map[uint64][]string, j uint64) bool {
	_, ok := read[j]
	return ok
}

// unread is the buckets of trials not in read, distinct, in order.
func unread(trials []uint64, read map[uint64][]string) []uint64 {
	var out []uint64
	for _, j := range trials {
		if !isRead(read, j) {
			out = append(out, j)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// arc is the buckets lo to hi (inclusive) of a set: one Query.
type arc struct{ lo, hi uint64 }

// planArcs joins buckets (sorted, distinct) of a set of about card
// members in 2^b buckets into the arcs to read: each bucket alone costs a
// Query and at least 1 read unit though it holds about 10 members, so
// joining neighbours across a short gap costs little or nothing. Gaps
// are joined shortest first: always when that costs no read unit (a
// unit is model.EntriesPerUnit members), and while the arcs are more
// than one round of Queries (round of them), as long as the plan
// costs at most twice the read units of one Query a bucket and three
// quarters of those of reading the whole set. fits reports that the plan
// is one round.
func planArcs(card int64, b int, buckets []uint64, round int) (arcs []arc, fits bool) {
	for _, j := range buckets {
		arcs = append(arcs, arc{j, j})
	}
	per := float64(card) / math.Ldexp(1, b) // members a bucket, on average
	units := func(a arc) float64 {
		return max(1, math.Ceil(float64(a.hi-a.lo+1)*per/model.EntriesPerUnit))
	}
	var total float64
	for _, a := range arcs {
		total += units(a)
	}
	budget := min(2*total, math.Ceil(float64(card)*3/4/model.EntriesPerUnit))
	for len(arcs) > 1 {
		k := 0 // the shortest gap: between arcs k and k+1
		for i := range len(arcs) - 1 {
			if arcs[i+1].lo-arcs[i].hi < arcs[k+1].lo-arcs[k].hi {
				k = i
			}
		}
		joined := arc{arcs[k].lo, arcs[k+1].hi}
		after := total - units(arcs[k]) - units(arcs[k+1]) + units(joined)
		if after > total && (len(arcs) <= round || after > budget) {
			break
		}
		arcs[k] = joined
		arcs = slices.Delete(arcs, k+1, k+2)
		total = after
	}
	return arcs, len(arcs) <= round
}

// readArcs reads the buckets of arcs (2^b of the set at key), one Query
// each, in parallel, into read: every bucket of an arc, with its members.
// over reports a bucket of more than limit members (the caller reads the
// whole set instead); each Query stops at the first.
func (c *Client) readArcs(ctx context.Context, key string, b, limit int, arcs []arc, read map[uint64][]string) (over bool, err error) {
	var mu sync.Mutex
	err = c.st.Parallel(len(arcs), func(i int) error {
		ctx := c.labelled(ctx)
		got, full, err := c.readArc(ctx, key, b, limit, arcs[i])
		mu.Lock()
		defer mu.Unlock()
		over = over || full
		for j := arcs[i].lo; j <= arcs[i].hi; j++ {
			read[j] = got[j]
		}
		return err
	})
	return over, err
}

// readArc reads the members of buckets a.lo to a.hi of 2^b, by bucket:
// the set members whose position (internal/model/keys.go) is in
// [a.lo, a.hi+1)·2^(56-b). over reports a bucket of more than limit
// members, where it stopped; it reads at most (buckets)·limit+1 members,
// so some bucket of more is seen.
func (c *Client) readArc(ctx context.Context, key string, b, limit int, a arc) (got map[uint64][]string, over bool, err error) {
	const posBits = 8 * model.SetHashLen
	lo := a.lo << (posBits - b)
	hi := a.hi<<(posBits-b) | (1<<(posBits-b) - 1)
	// The last sort key at position hi: every member's sort key is at most
	// as long (model.LongSKLen), so 0xFF bytes to that length end the arc.
	end := append(model.SetSKAt(hi), bytes.Repeat([]byte{0xFF}, model.LongSKLen-1-model.SetHashLen)...)
	in := &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)),
			":lo": model.Bin(model.SetSKAt(lo)), ":hi": model.Bin(end)},
	}
	got = map[uint64][]string{}
	for it, err := range c.query(ctx, in, int(a.hi-a.lo+1)*limit+1) {
		if err != nil {
			return nil, false, err
		}
		m, t, _ := model.MemberOf(it)
		if t != model.TypeSet {
			return nil, false, ErrWrongType
		}
		var pos [8]byte
		copy(pos[8-model.SetHashLen:], model.BytesAttr(it, model.AttrSK)[1:1+model.SetHashLen])
		j := binary.BigEndian.Uint64(pos[:]) >> (posBits - b)
		if got[j] = append(got[j], m); len(got[j]) > limit {
			return got, true, nil
		}
	}
	return got, false, nil
}
