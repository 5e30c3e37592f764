package main

import (
	"fmt"
	"time"
)

// visitorsStory: counting unique daily visitors on a sharded set (Redis in
// Action 9.2.2): a visit counts only when Add reports the visitor new.
func visitorsStory(w *walk) {
	ctx := w.ctx
	today := w.rdb.ShardedSet(w.key("visitors:2026-11-22"), 16)
	unique := 0
	for _, v := range []string{"alice", "bob", "alice", "carol", "bob", "dave"} {
		n := w.do(fmt.Sprintf("visit %-5s  (ShardedSet.Add)", v), func() (any, error) { return today.Add(ctx, v) })
		if n.(int64) == 1 {
			unique++
		}
	}
	w.say("%d unique visitors counted from Add's replies", unique)
	w.do("ShardedSet.Card (16 shards, one BatchGetItem)", func() (any, error) { return today.Card(ctx) })
	w.do("ShardedSet.IsMember carol", func() (any, error) { return today.IsMember(ctx, "carol") })
	w.do("ShardedSet opened with 8 shards: Add", func() (any, error) {
		return w.rdb.ShardedSet(w.key("visitors:2026-11-22"), 8).Add(ctx, "eve")
	})
}

// otpStory: at most 3 OTPs per phone number per 2 seconds, across servers:
// the check and the add are one conditional write.
func otpStory(w *walk) {
	ctx := w.ctx
	limiter := w.rdb.RateLimiter(3, 2*time.Second)
	phone := w.key("otp:+15550100")
	for i := 1; i <= 4; i++ {
		w.do(fmt.Sprintf("OTP request %d  (RateLimiter.Allow)", i), func() (any, error) {
			r, err := limiter.Allow(ctx, phone)
			return fmt.Sprintf("allowed=%v remaining=%d retry-after=%v", r.Allowed, r.Remaining, r.RetryAfter.Round(time.Millisecond)), err
		})
	}
	w.say("waiting 2 s for the window to slide")
	time.Sleep(2 * time.Second)
	w.do("OTP request 5  (RateLimiter.Allow)", func() (any, error) {
		r, err := limiter.Allow(ctx, phone)
		return fmt.Sprintf("allowed=%v remaining=%d", r.Allowed, r.Remaining), err
	})
}

// expiringStory: "who is online": members expire one by one.
func expiringStory(w *walk) {
	ctx := w.ctx
	online := w.rdb.ExpiringSet(w.key("online"))
	w.do("ExpiringSet.Add ttl=1s alice bob", func() (any, error) { return online.Add(ctx, time.Second, "alice", "bob") })
	w.do("ExpiringSet.Add ttl=1m carol", func() (any, error) { return online.Add(ctx, time.Minute, "carol") })
	w.do("ExpiringSet.Card", func() (any, error) { return online.Card(ctx) })
	w.say("waiting 1.1 s: alice and bob expire")
	time.Sleep(1100 * time.Millisecond)
	w.do("ExpiringSet.IsMember alice", func() (any, error) { return online.IsMember(ctx, "alice") })
	w.do("ExpiringSet.Card", func() (any, error) { return online.Card(ctx) })
	w.do("ExpiringSet.Add ttl=1m dave (sweeps the expired)", func() (any, error) { return online.Add(ctx, time.Minute, "dave") })
	w.do("ZCARD (the key is a sorted set scored by expiry)", func() (any, error) { return w.rdb.ZCard(ctx, w.key("online")) })
}
