package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/redimo-go/redimo"
)

// leaderboardStory: several games in one table, score upserts, top 3, a
// player's rank, and dropping players not seen since a cut-off.
func leaderboardStory(w *walk) {
	ctx, rdb := w.ctx, w.rdb
	games := []string{"game:1", "game:2"}
	seen := "game:1:last-seen" // member → unix time of last score
	now := w.clock.Now().Unix()
	plays := []struct {
		game   int
		player string
		points float64
		ago    int64 // seconds
	}{
		{0, "ann", 120, 7200}, {0, "bob", 80, 30}, {0, "cyd", 95, 20}, {0, "dee", 60, 10},
		{0, "bob", 50, 5}, {1, "ann", 10, 5}, {1, "eve", 300, 5},
	}
	w.say("players score points; ZINCRBY adds them to the player's score (the first time, from 0)")
	for _, p := range plays {
		g := games[p.game]
		w.do(fmt.Sprintf("ZINCRBY %s %v %s", g, p.points, p.player), "", func() (any, error) {
			return rdb.ZIncrBy(ctx, g, p.points, p.player)
		})
		if p.game == 0 {
			w.do(fmt.Sprintf("ZADD %s %d %s", seen, now-p.ago, p.player), "remember when (the score is a unix time)", func() (any, error) {
				return rdb.ZAdd(ctx, seen, redimo.Z{Score: float64(now - p.ago), Member: p.player})
			})
		}
	}
	for _, g := range games {
		w.do("ZREVRANGE "+g+" 0 2 WITHSCORES", "the top 3, best first", func() (any, error) { return rdb.ZRevRangeWithScores(ctx, g, 0, 2) })
	}
	w.do("ZREVRANK "+games[0]+" cyd", "cyd's place, counting from 0", func() (any, error) {
		r, ok, err := rdb.ZRevRank(ctx, games[0], "cyd")
		return fmt.Sprintf("%d (found=%v)", r, ok), err
	})
	w.do("ZSCORE "+games[0]+" bob", "", func() (any, error) {
		s, ok, err := rdb.ZScore(ctx, games[0], "bob")
		return fmt.Sprintf("%v (found=%v)", s, ok), err
	})

	w.say("drop the players of game 1 not seen in the last hour")
	cutoff := strconv.FormatInt(now-3600, 10)
	stale := w.do("ZRANGEBYSCORE "+seen+" -inf ("+cutoff, "members whose time is before the cut-off (\"(\" excludes it)", func() (any, error) {
		return rdb.ZRangeByScore(ctx, seen, &redimo.ZRangeBy{Min: "-inf", Max: "(" + cutoff})
	}).([]string)
	if len(stale) > 0 {
		w.do(fmt.Sprintf("ZREM %s %v", games[0], stale), "", func() (any, error) { return rdb.ZRem(ctx, games[0], stale...) })
	}
	w.do("ZREMRANGEBYSCORE "+seen+" -inf ("+cutoff, "", func() (any, error) {
		return rdb.ZRemRangeByScore(ctx, seen, "-inf", "("+cutoff)
	})
	w.do("ZREVRANGE "+games[0]+" 0 -1 WITHSCORES", "the whole board", func() (any, error) { return rdb.ZRevRangeWithScores(ctx, games[0], 0, -1) })
	w.do("ZCARD "+games[0], "", func() (any, error) { return rdb.ZCard(ctx, games[0]) })
	w.do("EXPIRE "+games[1]+" 3600", "delete game:2 in an hour", func() (any, error) { return rdb.Expire(ctx, games[1], time.Hour) })
	w.do("TTL "+games[1], "time left", func() (any, error) { return rdb.TTL(ctx, games[1]) })
}
