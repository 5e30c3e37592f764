package main

import (
	"fmt"
	"time"

	"github.com/redimo-go/redimo"
)

// visitorsStory: counting unique daily visitors on a sharded set (Redis in
// Action 9.2.2): a visit counts only when Add reports the visitor new.
func visitorsStory(w *walk) {
	ctx := w.ctx
	today := w.rdb.ShardedSet("visitors:2026-11-22", 16)
	unique := 0
	for _, v := range []string{"alice", "bob", "alice", "carol", "bob", "dave"} {
		n := w.do(fmt.Sprintf("ShardedSet.Add %s", v), "1: a new visitor, 0: seen today already", func() (any, error) { return today.Add(ctx, v) })
		if n.(int64) == 1 {
			unique++
		}
	}
	w.say("%d unique visitors counted from Add's replies", unique)
	w.do("ShardedSet.Card", "the 16 shards' counts, in one batch read", func() (any, error) { return today.Card(ctx) })
	w.do("ShardedSet.IsMember carol", "", func() (any, error) { return today.IsMember(ctx, "carol") })
	w.do("ShardedSet.Add eve, opened with 8 shards", "a handle with another shard count is refused, not split", func() (any, error) {
		return w.rdb.ShardedSet("visitors:2026-11-22", 8).Add(ctx, "eve")
	})
}

// otpStory: at most 3 OTPs per phone number per 2 seconds, across servers:
// the check and the add are one conditional write.
func otpStory(w *walk) {
	ctx := w.ctx
	limiter := w.rdb.RateLimiter(3, 2*time.Second)
	phone := "otp:+15550100"
	for i := 1; i <= 4; i++ {
		w.do(fmt.Sprintf("RateLimiter.Allow %s  (request %d)", phone, i), "", func() (any, error) {
			r, err := limiter.Allow(ctx, phone)
			return fmt.Sprintf("allowed=%v remaining=%d retry-after=%v", r.Allowed, r.Remaining, r.RetryAfter.Round(time.Millisecond)), err
		})
	}
	w.say("2 seconds later (the walk-through moves its clock, Options.Now, instead of waiting)")
	w.clock.advance(2 * time.Second)
	w.do(fmt.Sprintf("RateLimiter.Allow %s  (request 5)", phone), "", func() (any, error) {
		r, err := limiter.Allow(ctx, phone)
		return fmt.Sprintf("allowed=%v remaining=%d", r.Allowed, r.Remaining), err
	})
}

// expiringStory: "who is online": members of a plain set expire one by
// one (Redis 8.12's SEXPIRE family, Dragonfly's SADDEX).
func expiringStory(w *walk) {
	ctx := w.ctx
	w.do("SADDEX online 1 alice bob", "each member gets a TTL of 1 s", func() (any, error) {
		return w.rdb.SAddEx(ctx, "online", time.Second, false, "alice", "bob")
	})
	w.do("SADD online carol", "", func() (any, error) { return w.rdb.SAdd(ctx, "online", "carol") })
	w.do("SEXPIRE online 60 MEMBERS 1 carol", "", func() (any, error) {
		return w.rdb.SExpire(ctx, "online", time.Minute, redimo.ExpireAlways, "carol")
	})
	w.do("SCARD online", "", func() (any, error) { return w.rdb.SCard(ctx, "online") })
	w.say("1.1 seconds later: alice and bob have expired")
	w.clock.advance(1100 * time.Millisecond)
	w.do("SISMEMBER online alice", "", func() (any, error) { return w.rdb.SIsMember(ctx, "online", "alice") })
	w.do("SCARD online", "expired members are not counted, even before they are deleted", func() (any, error) { return w.rdb.SCard(ctx, "online") })
	w.do("STTL online MEMBERS 2 carol alice", "", func() (any, error) { return w.rdb.STTL(ctx, "online", "carol", "alice") })
	w.do("SCOLLECT online", "deletes the expired members now (writes that meet one delete it too)", func() (any, error) {
		return "OK", w.rdb.SCollect(ctx, "online") // redimo-server's reply
	})
	w.do("SCARD online", "", func() (any, error) { return w.rdb.SCard(ctx, "online") })
}
