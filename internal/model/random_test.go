package model

import (
	"math"
	"testing"
)

// TestSureTrials: the least t with P(Binomial(t, p) < need) ≤ eps,
// against the sum written out for small cases.
func TestSureTrials(t *testing.T) {
	short := func(tr, need int64, p float64) float64 { // P(X < need), X ~ Binomial(tr, p)
		s := 0.0
		for k := int64(0); k < need; k++ {
			c := 1.0
			for i := int64(0); i < k; i++ {
				c = c * float64(tr-i) / float64(i+1)
			}
			s += c * math.Pow(p, float64(k)) * math.Pow(1-p, float64(tr-k))
		}
		return s
	}
	for _, c := range []struct {
		need int64
		p    float64
		eps  float64
	}{{1, 0.5, 1e-4}, {1, 0.635, 1e-4}, {3, 0.635, 1e-4}, {10, 0.635, 1e-4}, {10, 0.4, 1e-2}, {25, 0.9, 1e-3}} {
		got := SureTrials(c.need, c.p, c.eps, 512)
		if short(got, c.need, c.p) > c.eps || short(got-1, c.need, c.p) <= c.eps {
			t.Errorf("SureTrials(%d, %v, %v) = %d: P(short) %g there, %g one fewer", c.need, c.p, c.eps, got, short(got, c.need, c.p), short(got-1, c.need, c.p))
		}
	}
	if got := SureTrials(1, 0.5, 1e-4, 512); got != 14 { // 2^-14 ≤ 10⁻⁴ < 2^-13
		t.Errorf("SureTrials(1, 0.5) = %d, want 14", got)
	}
	if got := SureTrials(400, 0.5, 1e-4, 512); got != 512 {
		t.Errorf("SureTrials beyond its limit = %d, want the limit", got)
	}
	if got := SureTrials(0, 0.5, 1e-4, 512); got != 0 {
		t.Errorf("SureTrials(0) = %d", got)
	}
}
