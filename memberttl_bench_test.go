package redimo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// BenchmarkSCardMemberExpiry: a 100,000-member set, 50,000 of whose
// members expire at random times within one minute (500 groups of 100,
// each its own time). Through that minute, with no write (sweep-free),
// SCARD is checked against the exact number of live members at 61
// moments, and its requests and read units are counted, and those of a
// new Client's first SCARD at the end. Then the
// transactions of SEXPIRE of 1,000 members and of SCOLLECT of the expired
// ones are counted.
//
//	make bench BENCHFLAGS='-bench SCardMemberExpiry -benchtime 1x'
func BenchmarkSCardMemberExpiry(b *testing.B) {
	for range b.N {
		c, cnt, p, clock := newClockedClient(b)
		ctx := context.Background()
		k := p + "visitors"
		const size, expiring, group = 100_000, 50_000, 100
		members := make([]string, size)
		for i := range members {
			members[i] = fmt.Sprintf("visitor-%06d", i)
		}
		for i := 0; i < size; i += 5_000 {
			if _, err := c.SAdd(ctx, k, members[i:i+5_000]...); err != nil {
				b.Fatal(err)
			}
		}
		start := clock.Now()
		r := rand.New(rand.NewPCG(1, 2))
		perm := r.Perm(size)[:expiring]
		var exps []int64
		for i := 0; i < expiring; i += group {
			at := start.Add(time.Duration(1+r.IntN(59_999)) * time.Millisecond)
			ms := make([]string, group)
			for j := range ms {
				ms[j] = members[perm[i+j]]
			}
			cnt.reset()
			got, err := c.SPExpireAt(ctx, k, at, ExpireAlways, ms...)
			if err != nil {
				b.Fatal(err)
			}
			for _, g := range got {
				if g != MemberExpirySet {
					b.Fatalf("SPEXPIREAT reply %d", g)
				}
			}
			for range group {
				exps = append(exps, at.UnixMilli())
			}
		}
		sort.Slice(exps, func(i, j int) bool { return exps[i] < exps[j] })
		var maxReq int64
		var sumReq int64
		var sumRCU, maxRCU float64
		for s := 0; s <= 60; s++ {
			now := clock.Now().UnixMilli()
			expired := sort.Search(len(exps), func(i int) bool { return exps[i] > now })
			cnt.reset()
			n, err := c.SCard(ctx, k)
			if err != nil {
				b.Fatal(err)
			}
			if n != int64(size-expired) {
				b.Fatalf("at +%ds SCARD = %d, want %d", s, n, size-expired)
			}
			req, rcu := cnt.requests.Load(), cnt.units()
			sumReq += req
			sumRCU += rcu
			maxReq, maxRCU = max(maxReq, req), max(maxRCU, rcu)
			clock.Add(time.Second)
		}
		b.ReportMetric(float64(sumReq)/61, "requests/SCARD")
		b.ReportMetric(float64(maxReq), "max-requests/SCARD")
		b.ReportMetric(sumRCU/61, "RCU/SCARD")
		b.ReportMetric(maxRCU, "max-RCU/SCARD")
		// A Client that never counted the key (another app server) counts
		// every expired member once.
		fresh := &counter{db: testDB}
		fc := NewClient(fresh, func(o *Options) { o.TableName = testTable; o.Now = clock.Now })
		if n, err := fc.SCard(ctx, k); err != nil || n != size-expiring {
			b.Fatalf("a new Client's SCARD: %d, %v", n, err)
		}
		b.ReportMetric(float64(fresh.requests.Load()), "requests/SCARD-new-client")
		b.ReportMetric(fresh.units(), "RCU/SCARD-new-client")
		cnt.reset()
		got, err := c.SExpire(ctx, k, time.Hour, ExpireAlways, members[:1000]...)
		if err != nil || len(got) != 1000 {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cnt.byOp["TransactWriteItems"]), "tx/SEXPIRE-1000")
		cnt.reset()
		if err := c.SCollect(ctx, k); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cnt.byOp["TransactWriteItems"]), "tx/SCOLLECT")
		cnt.reset()
		n, err := c.SCard(ctx, k)
		if err != nil || n != size-expiring {
			b.Fatalf("after SCOLLECT: SCARD %d, %v", n, err)
		}
		b.ReportMetric(float64(cnt.requests.Load()), "requests/SCARD-after-collect")
	}
}
