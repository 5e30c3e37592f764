package main

import (
	"fmt"
	"slices"
)

func setsStory(w *walk) {
	ctx, rdb := w.ctx, w.rdb
	post, other := w.key("post:1:tags"), w.key("post:2:tags")

	w.do(fmt.Sprintf("SADD %s go redis dynamodb go", post), func() (any, error) {
		return rdb.SAdd(ctx, post, "go", "redis", "dynamodb", "go")
	})
	w.do(fmt.Sprintf("SADD %s go aws", other), func() (any, error) { return rdb.SAdd(ctx, other, "go", "aws") })
	w.do("SCARD "+post, func() (any, error) { return rdb.SCard(ctx, post) })
	w.do("SISMEMBER "+post+" redis", func() (any, error) { return rdb.SIsMember(ctx, post, "redis") })
	w.do("SMEMBERS "+post, func() (any, error) { return rdb.SMembers(ctx, post) })
	w.do("SINTER "+post+" "+other, func() (any, error) { return rdb.SInter(ctx, post, other) })
	w.do("SUNION "+post+" "+other, func() (any, error) {
		u, err := rdb.SUnion(ctx, post, other)
		slices.Sort(u)
		return u, err
	})
	w.do("SDIFF "+post+" "+other, func() (any, error) { return rdb.SDiff(ctx, post, other) })
	w.do("SRANDMEMBER "+post+" 2", func() (any, error) { return rdb.SRandMemberN(ctx, post, 2) })
	w.do("SREM "+post+" redis nope", func() (any, error) { return rdb.SRem(ctx, post, "redis", "nope") })

	w.say("a 1000-member SADD goes in 11 transactions of at most 99 members each")
	big := w.key("big")
	members := make([]string, 1000)
	for i := range members {
		members[i] = fmt.Sprintf("member-%04d", i)
	}
	w.do("SADD "+big+" member-0000 ... member-0999", func() (any, error) { return rdb.SAdd(ctx, big, members...) })
	w.do("SCARD "+big, func() (any, error) { return rdb.SCard(ctx, big) })
	w.do("SINTERCARD 0 "+post+" "+big, func() (any, error) { return rdb.SInterCard(ctx, 0, post, big) })

	w.say("the last member out deletes the key, as in Redis")
	w.do("SPOP "+other+" 5", func() (any, error) { return rdb.SPopN(ctx, other, 5) })
	w.do("EXISTS "+other, func() (any, error) { return rdb.Exists(ctx, other) })
	w.do("TYPE "+post, func() (any, error) { return rdb.Type(ctx, post) })
	w.do("DEL "+post+" "+big, func() (any, error) { return rdb.Del(ctx, post, big) })
}
