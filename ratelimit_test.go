package redimo

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is an injectable clock for Options.Now.
func TestRateLimiterConcurrent(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	lim := c.RateLimiter(10, time.Minute)
	key := p + "otp:+15550100"

	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := lim.Allow(ctx, key)
			require.NoError(t, err)
			if r.Allowed {
				allowed.Add(1)
			} else {
				require.Equal(t, 0, r.Remaining)
				require.Positive(t, r.RetryAfter)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 10, allowed.Load(), "exactly limit allowances")

	clock.Add(30 * time.Second)
	r, err := lim.Allow(ctx, key)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.Equal(t, 30*time.Second, r.RetryAfter, "the oldest slot frees a window after it was used")

	clock.Add(30 * time.Second) // a full window since the burst
	for i := range 10 {
		r, err := lim.Allow(ctx, key)
		require.NoError(t, err)
		require.True(t, r.Allowed, "after the window, allowed again (%d)", i)
		require.Equal(t, 9-i, r.Remaining)
	}
	r, err = lim.Allow(ctx, key)
	require.NoError(t, err)
	require.False(t, r.Allowed)

	// Other keys are independent.
	r, err = lim.Allow(ctx, p+"otp:+15550199")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	require.Equal(t, 9, r.Remaining)
}

func TestRateLimiterSlidingWindow(t *testing.T) {
	c, cnt, p, clock := newClockedClient(t)
	ctx := context.Background()
	lim := c.RateLimiter(4, 10*time.Second)
	key := p + "k"
	allow := allower(t, lim, key)
	require.True(t, allow())
	require.True(t, allow())
	clock.Add(6 * time.Second)
	require.True(t, allow())
	require.True(t, allow())
	require.False(t, allow(), "4 in the last 10 s")
	clock.Add(4 * time.Second) // the first two are now 10 s old
	require.True(t, allow())
	require.True(t, allow())
	require.False(t, allow())

	cnt.reset()
	clock.Add(time.Hour)
	require.True(t, allow())
	require.EqualValues(t, 2, cnt.requests.Load(), "one Query and one UpdateItem: %s", cnt)

	// Bad limits are rejected before any request.
	cnt.reset()
	for _, bad := range []*RateLimiter{c.RateLimiter(0, time.Second), c.RateLimiter(MaxRateLimit+1, time.Second), c.RateLimiter(1, 0)} {
		_, err := bad.Allow(ctx, key)
		require.ErrorIs(t, err, ErrOutOfRange)
	}
	require.EqualValues(t, 0, cnt.requests.Load())
	typ, err := c.Type(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "none", typ, "rate-limit keys are apart from Redis keys")
}

// A window that is not whole milliseconds (the clock's resolution) is
// rounded up, never down: within it no more than limit are allowed.
func TestRateLimiterSubMillisecondWindow(t *testing.T) {
	c, _, p, clock := newClockedClient(t)
	for _, tc := range []struct{ window, rounded time.Duration }{
		{500 * time.Microsecond, time.Millisecond},
		{1500 * time.Microsecond, 2 * time.Millisecond},
	} {
		lim, key := c.RateLimiter(2, tc.window), p+tc.window.String()
		allow := allower(t, lim, key)
		require.True(t, allow())
		require.True(t, allow())
		require.False(t, allow(), "window %v: at most the limit at once", tc.window)
		clock.Add(tc.window)
		require.False(t, allow(), "window %v: a window later, the slots are not free yet (the window is %v)", tc.window, tc.rounded)
		clock.Add(tc.rounded - tc.window)
		require.True(t, allow(), "window %v: %v later, a slot is free", tc.window, tc.rounded)
		clock.Add(time.Second)
	}
}

// allower returns a function that asks lim to allow one more event of key
// and answers whether it did.
func allower(t *testing.T, lim *RateLimiter, key string) func() bool {
	return func() bool {
		r, err := lim.Allow(context.Background(), key)
		require.NoError(t, err)
		return r.Allowed
	}
}

// TestRateLimiterHugeWindowRetryAfter: promise (ratelimit.go:50): when denied, RetryAfter is
// "until the next slot frees": positive, at most the window. Before the fix: the
// window is rounded up to whole milliseconds (ratelimit.go:79-81) and
// RetryAfter is (oldest-cut) ms × 1e6 (ratelimit.go:136), which overflows
// int64 for the largest windows: a window of math.MaxInt64 denies with a
// negative RetryAfter. The limit itself holds.
func TestRateLimiterHugeWindowRetryAfter(t *testing.T) {
	c, _, p, _ := newClockedClient(t)
	lim := c.RateLimiter(1, time.Duration(math.MaxInt64))
	allow := func() RateLimit {
		r, err := lim.Allow(context.Background(), p+"k")
		require.NoError(t, err)
		return r
	}
	require.True(t, allow().Allowed)
	r := allow()
	require.False(t, r.Allowed)
	require.Positive(t, r.RetryAfter, "denied: RetryAfter %v", r.RetryAfter)
}

// TestRateLimiterIsolation: a limiter's
// slots are per database (WithDB), per key (a key over 2047 bytes is
// hashed: two long keys differing only in their tail stay apart), and
// apart from a Redis set of the same name.
func TestRateLimiterIsolation(t *testing.T) {
	ctx, c, _, p := setup(t)
	c1, err := c.WithDB(1)
	require.NoError(t, err)
	long := p + strings.Repeat("L", 3000)
	for _, key := range []string{p + "otp{1}", long + "a", long + "b"} {
		for _, cl := range []*Client{c, c1} {
			lim := cl.RateLimiter(1, time.Hour)
			r, err := lim.Allow(ctx, key)
			require.NoError(t, err)
			require.True(t, r.Allowed, "first of key %.40q in db %d", key, cl.DB())
			r, err = lim.Allow(ctx, key)
			require.NoError(t, err)
			require.False(t, r.Allowed, "second of key %.40q in db %d", key, cl.DB())
		}
	}
	returns(t, int64(0))(c.SCard(ctx, p+"otp{1}"))
}

// TestRateLimiterSkewRetryAfter: promise (ratelimit.go:50): RetryAfter is "until the next slot frees".
// With server A's clock an hour ahead of server B's, A's allowance holds
// its slot until B's clock reads A's time + window (ratelimit.go:103
// counts it used), but B's RetryAfter starts oldest at B's now
// (ratelimit.go:100 `oldest := now`), so a slot dated in the future
// reads as freeing a window from now: B is told to retry after 1 min and
// is denied again then.
func TestRateLimiterSkewRetryAfter(t *testing.T) {
	ctx := context.Background()
	cA, _, p, clockA := newClockedClient(t)
	cB, _, _, _ := newClockedClient(t)
	clockA.Add(time.Hour)
	key := p + "k"
	r, err := cA.RateLimiter(1, time.Minute).Allow(ctx, key)
	require.NoError(t, err)
	require.True(t, r.Allowed)
	r, err = cB.RateLimiter(1, time.Minute).Allow(ctx, key)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.Equal(t, time.Hour+time.Minute, r.RetryAfter, "B's slot frees at A's time + window, by B's clock")
}
