package main

import (
	"fmt"
	"slices"
)

func setsStory(w *walk) {
	ctx, rdb := w.ctx, w.rdb
	post, other := "post:1:tags", "post:2:tags"

	w.do("SADD "+post+" go redis dynamodb go", "add members; the reply counts the new ones (go twice counts once)", func() (any, error) {
		return rdb.SAdd(ctx, post, "go", "redis", "dynamodb", "go")
	})
	w.do("SADD "+other+" go aws", "", func() (any, error) { return rdb.SAdd(ctx, other, "go", "aws") })
	w.do("SCARD "+post, "how many members: one read of the key's count", func() (any, error) { return rdb.SCard(ctx, post) })
	w.do("SISMEMBER "+post+" redis", "is redis a member?", func() (any, error) { return rdb.SIsMember(ctx, post, "redis") })
	w.do("SMEMBERS "+post, "all members (a set has no order: these come in byte order)", func() (any, error) { return rdb.SMembers(ctx, post) })
	w.do("SINTER "+post+" "+other, "members in both sets", func() (any, error) { return rdb.SInter(ctx, post, other) })
	w.do("SUNION "+post+" "+other, "members in either set", func() (any, error) {
		u, err := rdb.SUnion(ctx, post, other)
		slices.Sort(u)
		return u, err
	})
	w.do("SDIFF "+post+" "+other, "members of the first set only", func() (any, error) { return rdb.SDiff(ctx, post, other) })
	w.do("SRANDMEMBER "+post+" 2", "two members at random", func() (any, error) { return rdb.SRandMemberN(ctx, post, 2) })
	w.do("SREM "+post+" redis nope", "remove members; the reply counts those that were there", func() (any, error) {
		return rdb.SRem(ctx, post, "redis", "nope")
	})

	big := "big"
	members := make([]string, 1000)
	for i := range members {
		members[i] = fmt.Sprintf("member-%04d", i)
	}
	w.do("SADD "+big+" member-0000 ... member-0999",
		"1000 members: 11 transactions of at most 99 members (+1 count item each)", func() (any, error) { return rdb.SAdd(ctx, big, members...) })
	w.do("SCARD "+big, "still one read, however big the set", func() (any, error) { return rdb.SCard(ctx, big) })
	w.do("SINTERCARD 0 "+post+" "+big, "how many members in both, reading the smaller set", func() (any, error) { return rdb.SInterCard(ctx, 0, post, big) })

	w.do("SPOP "+other+" 5", "remove and return up to 5 random members", func() (any, error) { return rdb.SPopN(ctx, other, 5) })
	w.do("EXISTS "+other, "the last member out deleted the key, as in Redis", func() (any, error) { return rdb.Exists(ctx, other) })
	w.do("TYPE "+post, "", func() (any, error) { return rdb.Type(ctx, post) })
	w.do("DEL "+post+" "+big, "delete keys: every member item goes", func() (any, error) { return rdb.Del(ctx, post, big) })
}
