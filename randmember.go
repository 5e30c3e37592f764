package redimo

// Uniform random members of a set (SRANDMEMBER, SPOP).
//
// A set member's sort key starts with the first 7 bytes of its SHA-256
// ("Set members" in internal/model/keys.go), a 56-bit position spread uniformly over the
// set's part of the table. The positions are cut into B = 2^b equal
// buckets, b chosen from the cardinality N so that a bucket holds λ = N/B
// members on average, 8 ≤ λ < 16. A trial picks a bucket uniformly, reads
// it (one Query of the table, at most model.BucketCap+1 items) and draws u
// uniformly in [0, model.BucketCap): when u is less than the m members the
// bucket holds, the trial returns the u-th of them, otherwise it returns
// nothing. Every member is returned by a trial with probability exactly
// 1/(B·model.BucketCap), whatever the gaps between the positions: the draw is
// exactly uniform as long as no bucket holds more than model.BucketCap members.
// The hashes make that overwhelmingly likely (with λ < 16, a bucket
// exceeds 48 members with probability below 3·10⁻¹¹, so a
// 1,000,000-member set has such a bucket with probability below 10⁻⁶);
// and a trial that meets one sees it (the Query returns model.BucketCap+1
// items), and the draw falls back to reading the whole set. Members
// chosen to share a bucket (it takes about 2^b tries per member to find
// them) make the draws read the whole set, still uniform.
//
// A trial succeeds with probability λ/model.BucketCap (1/6 to 1/3), so a draw
// takes 3 to 6 trials on average. Trials of one call run in parallel
// rounds, and a bucket read twice in a call is read once: the picks are
// independent given the set, so reusing what a bucket held changes
// nothing. When the trials' expected Queries (|count|·model.BucketCap/λ, a read
// unit each) reach the read units of the whole set (about SCARD/80),
// reading the whole set is cheaper and just as uniform: redimo does that.

import (
	"bytes"
	"context"
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
	m, err := c.typedMeta(ctx, key, model.TypeSet)
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
	b := model.BucketBits(m.Card)
	if c.tx != nil || b == 0 || model.ExpectedTrials(m.Card, b, n) >= m.Card/model.EntriesPerUnit {
		return c.randomFromWhole(ctx, key, n, distinct)
	}
	out, ok, err := c.randomFromBuckets(ctx, key, m.Card, b, n, distinct, map[uint64][]string{})
	if err != nil || ok {
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

// drawFrom draws n members of all (not empty, which it may reorder) as
// randomMembers: distinct ones, whole when that is all of them, or
// independent draws.
func drawFrom(all []string, n int64, distinct bool) ([]string, bool) {
	if distinct {
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		if n >= int64(len(all)) {
			return all, true
		}
		return all[:n], false
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[rand.IntN(len(all))]
	}
	return out, false
}

// randomFromBuckets runs trials (see the file comment) on the 2^b buckets
// of key, a set of about card members, until it has n members. ok is false when a bucket holds more than
// model.BucketCap members (or after model.MaxRandRounds rounds): the caller reads the
// whole set instead. read holds the buckets already read (bucket → its
// members), normally those of this call.
func (c *Client) randomFromBuckets(ctx context.Context, key string, card int64, b int, n int64, distinct bool, read map[uint64][]string) (out []string, ok bool, err error) {
	var (
		chosen = map[string]bool{}
		mu     sync.Mutex
	)
	for range model.MaxRandRounds {
		// As many trials as give the members still needed on average:
		// often one round, two at most most of the time.
		need := n - int64(len(out))
		trials := make([]uint64, min(model.ExpectedTrials(card, b, need), 512))
		var fresh []uint64
		for i := range trials {
			trials[i] = rand.Uint64() >> (64 - b)
			if _, seen := read[trials[i]]; !seen {
				read[trials[i]] = nil
				fresh = append(fresh, trials[i])
			}
		}
		err := c.st.Parallel(len(fresh), func(i int) error {
			ctx := c.labelled(ctx)
			ms, err := c.readBucket(ctx, key, b, fresh[i])
			mu.Lock()
			read[fresh[i]] = ms
			mu.Unlock()
			return err
		})
		if err != nil {
			return nil, false, err
		}
		for _, j := range trials {
			ms := read[j]
			if len(ms) > model.BucketCap {
				return nil, false, nil
			}
			u := rand.IntN(model.BucketCap)
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

// readBucket reads the members of bucket j of 2^b (at most model.BucketCap+1):
// the set members whose position (internal/model/keys.go) is in [j, j+1)·2^(56-b).
func (c *Client) readBucket(ctx context.Context, key string, b int, j uint64) ([]string, error) {
	const posBits = 8 * model.SetHashLen
	lo := j << (posBits - b)
	hi := lo | (1<<(posBits-b) - 1)
	// The last sort key at position hi: every member's sort key is at most
	// as long (model.LongSKLen), so 0xFF bytes to that length end the bucket.
	end := append(model.SetSKAt(hi), bytes.Repeat([]byte{0xFF}, model.LongSKLen-1-model.SetHashLen)...)
	in := &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)),
			":lo": model.Bin(model.SetSKAt(lo)), ":hi": model.Bin(end)},
	}
	return c.queryMembers(ctx, in, model.TypeSet, model.BucketCap+1, 0)
}
