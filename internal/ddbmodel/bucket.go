package ddbmodel

import "time"

// bucket is a token bucket: the capacity units one partition key can still
// spend. It refills at rate units a second up to max; a read may overdraw it
// (its cost is known only from the response), after which the partition is
// throttled until the debt is repaid.
type bucket struct {
	tokens, rate, max float64
	at                time.Time
}

func newBucket(rate float64, burst time.Duration, now time.Time) *bucket {
	max := rate * burst.Seconds()
	return &bucket{tokens: max, rate: rate, max: max, at: now}
}

func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.at).Seconds(); d > 0 {
		b.tokens = min(b.max, b.tokens+d*b.rate)
	}
	b.at = now
}

// bucket returns the budget of kind ('r' or 'w') of a partition; m.mu must
// be held.
func (m *Model) bucket(kind byte, partition string, now time.Time) *bucket {
	k := string(kind) + partition
	b := m.buckets[k]
	if b == nil {
		rate := m.cfg.PartitionWCU
		if kind == 'r' {
			rate = m.cfg.PartitionRCU
		}
		b = newBucket(rate, m.cfg.Burst, now)
		m.buckets[k] = b
	}
	b.refill(now)
	return b
}

// canRead reports whether the bucket holds the smallest read, half a unit.
func (b *bucket) canRead() bool { return b.tokens >= min(0.5, b.max) }
