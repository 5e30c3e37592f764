package model

import (
	"math"
	"math/bits"
)

const (
	// BucketCap is the most members a bucket may hold for the draw to be
	// exactly uniform (randmember.go); a trial reads at most BucketCap+1.
	// A bucket of 256 members on average (the most) holds more with
	// probability below 4·10⁻¹⁴.
	BucketCap = 384
	// BucketMinMean is the least average occupancy of a bucket: buckets
	// hold between BucketMinMean and 2·BucketMinMean members on average,
	// so a trial succeeds with probability 1/3 to 2/3.
	BucketMinMean = 128
	// EntriesPerUnit is about how many member items of a set one read
	// unit reads (4 KB): it decides when reading the whole set is cheaper.
	EntriesPerUnit = 80
	// MaxRandRounds bounds the rounds of trials of one call before it
	// reads the whole set instead (reached only with odds far below 10⁻⁹).
	MaxRandRounds = 32
)

// BucketBits is b, for a set of n members: 2^b buckets of 128 to 256
// members on average; 0 for a set of fewer than 256 members (one bucket:
// the set).
// At most 8·SetHashLen: a bucket is at least one position.
func BucketBits(n int64) int {
	if n < 2*BucketMinMean {
		return 0
	}
	return min(bits.Len64(uint64(n/BucketMinMean))-1, 8*SetHashLen)
}

// ExpectedTrials is the average number of trials (a bucket read each)
// that draw n members from a set of card members in 2^b buckets.
// It saturates at math.MaxInt64 instead of overflowing.
func ExpectedTrials(card int64, b int, n int64) int64 {
	if t := math.Ceil(float64(n) * float64(TrialCap(card, b)) * math.Ldexp(1, b) / float64(card)); t < math.MaxInt64/2 {
		return int64(t)
	}
	return math.MaxInt64
}

// SureTrials is the least number of trials that draw need members with
// probability at least 1-eps, when each succeeds with probability p
// (Binomial(t, p) ≥ need): at least need, at most limit (limit when even
// that many fall short more often).
func SureTrials(need int64, p, eps float64, limit int64) int64 {
	if need <= 0 || p <= 0 {
		return min(max(need, 0), limit)
	}
	if p >= 1 {
		return min(need, limit)
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	for t := max(need, int64(float64(need)/p)); t < limit; t++ {
		// P(X < need) for X ~ Binomial(t, p), term by term in log space.
		short, l := 0.0, float64(t)*lq // l: log P(X = k)
		for k := int64(0); k < need; k++ {
			short += math.Exp(l)
			l += math.Log(float64(t-k)) - math.Log(float64(k+1)) + lp - lq
		}
		if short <= eps {
			return t
		}
	}
	return limit
}

// TrialUnits is about the read units of a Query of one bucket of a set of
// card members in 2^b buckets: at least 1.
func TrialUnits(card int64, b int) float64 {
	return max(1, math.Ceil(float64(card)/math.Ldexp(1, b)/EntriesPerUnit))
}

// TrialCap is the bound a trial's draw uses for a set of card members in
// 2^b buckets: the least number of members that no bucket exceeds but
// with probability below 10⁻⁹ for the whole set (members spread by their
// hashes, Poisson with mean card/2^b a bucket), and at most BucketCap
// (reached above ~8 million members; the odds stay below 10⁻⁶ up to ~8
// billion).
// A bound near the buckets' mean makes trials succeed more often (about
// 2/3 of them for 128 to 256 members a bucket, against 1/3 to 2/3 with
// BucketCap); a bucket found over it makes the draw read the whole set.
func TrialCap(card int64, b int) int {
	if b == 0 {
		return BucketCap
	}
	mean := float64(card) / math.Ldexp(1, b)
	allowed := 1e-9 / math.Ldexp(1, b) // per bucket
	// P(X > k) for X ~ Poisson(mean), summed down from far in the tail.
	var terms []float64
	t := math.Exp(-mean)
	for k := 0; k <= BucketCap+1; k++ {
		if k > 0 {
			t *= mean / float64(k)
		}
		terms = append(terms, t)
	}
	tail := 0.0
	for k := BucketCap; k >= 0; k-- {
		tail += terms[k+1] // P(X > k) once the loop has added terms k+1 and up
		if tail >= allowed {
			return min(k+1, BucketCap)
		}
	}
	return BucketCap
}
