package redimo

// Benchmarks of the SET family against DynamoDB Local. Each reports
// DynamoDB requests (and items read) per operation, and times the
// straightforward approach in the same run (the baseline: one PutItem per
// member, a Query COUNT for the cardinality, loading every set for an
// intersection) so that redimo's wall time is a ratio, not an absolute.
//
//	make bench BENCHFLAGS='-bench BenchmarkS -benchtime 1x'

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

func benchMembers(prefix string, n int) []string {
	return numbered(prefix+"%06d", n)
}

// fill adds members to the set at key, stopping the benchmark on an
// error, and starts the benchmark's timer again.
func fill(b *testing.B, ctx context.Context, c *Client, key string, members ...string) {
	b.Helper()
	if _, err := c.SAdd(ctx, key, members...); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
}

// baselinePutAll writes members as plain items, one PutItem each, 8 at a
// time (what a hand-written client would do).
func baselinePutAll(b *testing.B, cnt *counter, key string, members []string) {
	ctx := context.Background()
	sem := make(chan struct{}, 8)
	errs := make(chan error, len(members))
	for _, m := range members {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			cnt.requests.Add(1)
			it := model.ItemKey(key, model.MemberSK(model.TypeSet, m))
			_, err := testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: it})
			errs <- err
		}()
	}
	for range members {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// baselineLoad reads a whole set with a plain paginated Query.
func baselineLoad(b *testing.B, c *Client, key string) map[string]bool {
	out := map[string]bool{}
	for it, err := range c.view().memberItems(context.Background(), key, model.TypeSet, "") {
		if err != nil {
			b.Fatal(err)
		}
		m, _, _ := model.MemberOf(it)
		out[m] = true
	}
	return out
}

// compare runs redimo's operation and the baseline's, once each per b.N,
// and reports requests, items read and the wall-time ratio.
func compare(b *testing.B, cnt *counter, redimo, baseline func()) {
	var rt, bt time.Duration
	var rReq, bReq, rReads, bReads int64
	var rUnits float64
	for range b.N {
		cnt.reset()
		start := time.Now()
		redimo()
		rt += time.Since(start)
		rReq, rReads = rReq+cnt.requests.Load(), rReads+cnt.reads.Load()
		rUnits += cnt.units()

		cnt.reset()
		start = time.Now()
		baseline()
		bt += time.Since(start)
		bReq, bReads = bReq+cnt.requests.Load(), bReads+cnt.reads.Load()
	}
	n := float64(b.N)
	b.ReportMetric(float64(rReq)/n, "requests/op")
	b.ReportMetric(float64(rReads)/n, "items-read/op")
	b.ReportMetric(rUnits/n, "capacity-units/op")
	b.ReportMetric(float64(bReq)/n, "baseline-requests/op")
	b.ReportMetric(float64(bReads)/n, "baseline-items-read/op")
	b.ReportMetric(float64(rt.Microseconds())/n/1000, "ms/op")
	b.ReportMetric(float64(bt.Microseconds())/n/1000, "baseline-ms/op")
	b.ReportMetric(float64(rt)/float64(bt), "time-ratio")
}

func BenchmarkSAdd1000(b *testing.B) {
	c, cnt, p := newTestClient(b)
	members := benchMembers("m", 1000)
	round := 0
	compare(b, cnt, func() {
		round++
		n, err := c.SAdd(context.Background(), fmt.Sprintf("%sredimo%d", p, round), members...)
		if err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}, func() {
		baselinePutAll(b, cnt, fmt.Sprintf("%sbaseline%d", p, round), members)
	})
}

func BenchmarkSCard10000(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	key := p + "big"
	fill(b, ctx, c, key, benchMembers("m", 10000)...)
	compare(b, cnt, func() {
		n, err := c.SCard(ctx, key)
		if err != nil || n != 10000 {
			b.Fatal(n, err)
		}
	}, func() {
		n, err := c.queryCount(ctx, &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :s)"),
			ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
			ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":s": model.Bin([]byte{'s'})},
		})
		if err != nil || n != 10000 {
			b.Fatal(n, err)
		}
	})
}

func BenchmarkSInter100x10000(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	big, small := p+"big", p+"small"
	fill(b, ctx, c, big, benchMembers("m", 10000)...)
	var sm []string
	for i := range 100 {
		sm = append(sm, fmt.Sprintf("m%06d", i*150)) // 67 of them are in big
	}
	if _, err := c.SAdd(ctx, small, sm...); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	compare(b, cnt, func() {
		got, err := c.SInter(ctx, big, small)
		if err != nil || len(got) != 67 {
			b.Fatal(len(got), err)
		}
	}, func() {
		a, bb := baselineLoad(b, c, big), baselineLoad(b, c, small)
		n := 0
		for m := range bb {
			if a[m] {
				n++
			}
		}
		if n != 67 {
			b.Fatal(n)
		}
	})
}

func BenchmarkSIsMember(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	key := p + "s"
	fill(b, ctx, c, key, benchMembers("m", 100)...)
	compare(b, cnt, func() {
		ok, err := c.SIsMember(ctx, key, "m000042")
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}, func() {
		cnt.requests.Add(1)
		out, err := testDB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &testTable, Key: model.ItemKey(key, model.MemberSK(model.TypeSet, "m000042"))})
		if err != nil || out.Item == nil {
			b.Fatal(err)
		}
	})
}
