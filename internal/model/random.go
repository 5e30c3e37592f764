package model

import (
	"math"
	"math/bits"
)

const (
	// BucketCap is the most members a bucket may hold for the draw to be
	// exactly uniform (see above); a trial reads at most BucketCap+1.
	BucketCap = 48
	// BucketMinMean is the least average occupancy of a bucket: buckets
	// hold between BucketMinMean and 2·BucketMinMean members on average.
	BucketMinMean = 8
	// EntriesPerUnit is about how many member items of a set one read
	// unit reads (4 KB): it decides when reading the whole set is cheaper.
	EntriesPerUnit = 80
	// MaxRandRounds bounds the rounds of trials of one call before it
	// reads the whole set instead (reached only with odds far below 10⁻⁹).
	MaxRandRounds = 32
)

// BucketBits is b, for a set of n members: 2^b buckets of 8 to 16 members
// on average; 0 for a set of fewer than 16 members (one bucket: the set).
// At most 8·SetHashLen: a bucket is at least one position.
func BucketBits(n int64) int {
	if n < 2*BucketMinMean {
		return 0
	}
	return min(bits.Len64(uint64(n/BucketMinMean))-1, 8*SetHashLen)
}

// ExpectedTrials is the average number of trials (one Query each) that
// draw n members from a set of card members in 2^b buckets.
// It saturates at math.MaxInt64 instead of overflowing.
func ExpectedTrials(card int64, b int, n int64) int64 {
	if t := math.Ceil(float64(n) * BucketCap * math.Ldexp(1, b) / float64(card)); t < math.MaxInt64/2 {
		return int64(t)
	}
	return math.MaxInt64
}
