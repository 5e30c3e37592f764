package redimo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// trips is a DynamoDBAPI that measures round trips: the longest chain of
// requests each sent after the one before it had its answer (a request's
// depth is one more than the deepest request answered before it was
// sent), so requests sent together count once. DynamoDB Local answers
// in a millisecond, less than a loaded machine may take to start the
// goroutines of one round's requests: latency, when set, delays every
// answer as real DynamoDB's network does, so they are not counted as
// rounds of their own.
type trips struct {
	DynamoDBAPI
	latency  time.Duration
	mu       sync.Mutex
	answered int // the depth of the deepest request answered
	deepest  int
}

func (t *trips) enter() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.answered + 1
	t.deepest = max(t.deepest, d)
	return d
}

func (t *trips) leave(d int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answered = max(t.answered, d)
}

// rounds is the round trips since the last reset.
func (t *trips) rounds() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.deepest
}

func (t *trips) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answered, t.deepest = 0, 0
}

func tripped[I, O any](t *trips, send func(context.Context, I, ...func(*dynamodb.Options)) (O, error), ctx context.Context, in I, o ...func(*dynamodb.Options)) (O, error) {
	d := t.enter()
	defer t.leave(d)
	time.Sleep(t.latency)
	return send(ctx, in, o...)
}

func (t *trips) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return tripped(t, t.DynamoDBAPI.GetItem, ctx, in, o...)
}

func (t *trips) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return tripped(t, t.DynamoDBAPI.Query, ctx, in, o...)
}

func (t *trips) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return tripped(t, t.DynamoDBAPI.BatchGetItem, ctx, in, o...)
}

func (t *trips) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return tripped(t, t.DynamoDBAPI.TransactWriteItems, ctx, in, o...)
}

func (t *trips) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return tripped(t, t.DynamoDBAPI.UpdateItem, ctx, in, o...)
}

// meteredClient is a fresh Client (a process that just started: no
// hints) on the test table, with its request counter and round-trip meter.
func meteredClient(tb testing.TB, optFns ...func(*Options)) (*Client, *counter, *trips) {
	tb.Helper()
	needDB(tb)
	cnt := &counter{db: testDB}
	tr := &trips{DynamoDBAPI: cnt}
	opts := append([]func(*Options){func(o *Options) { o.TableName = testTable }}, optFns...)
	return NewClient(tr, opts...), cnt, tr
}

// bigSet makes the set at key of n members v000000... (member items).
func bigSet(t *testing.T, key string, n int) []string {
	t.Helper()
	c, _, _ := newTestClient(t)
	ms := benchMembers("v", n)
	added, err := c.SAdd(context.Background(), key, ms...)
	require.NoError(t, err)
	require.EqualValues(t, n, added)
	return ms
}

// sharedBig is the set of 10,000 members (v000000...) that the tests of
// draws share (sharedBigSet): built once a run, not once a test.
var sharedBig struct {
	once sync.Once
	key  string
	err  error
}

// sharedBigSet returns the key of a set of 10,000 members v000000...
// (member items), built by its first caller. Tests draw from it and
// read its size with SCARD; one that pops from it stays serial, so that
// the size a parallel test reads holds while it runs.
func sharedBigSet(t *testing.T) string {
	t.Helper()
	needDB(t)
	sharedBig.once.Do(func() {
		sharedBig.key = "shared:big:" + randomHex(3)
		c := NewClient(testDB, func(o *Options) { o.TableName = testTable })
		_, sharedBig.err = c.SAdd(context.Background(), sharedBig.key, benchMembers("v", 10_000)...)
	})
	require.NoError(t, sharedBig.err)
	return sharedBig.key
}

// TestSetReadRequests pins the request counts of issue 34's read-path
// regressions (figures in BENCHMARKS.md, "Set reads at one round trip").
func TestSetReadRequests(t *testing.T) {
	ctx := context.Background()
	p := t.Name() + ":" + randomHex(3) + ":"
	big, small := p+"big", p+"small"
	bigSet(t, big, model.SmallMaxMembers+1)
	c0, _, _ := newTestClient(t)
	_, err := c0.SAdd(ctx, small, "a", "b")
	require.NoError(t, err)

	t.Run("SISMEMBER", func(t *testing.T) {
		for _, noExpiry := range []bool{false, true} {
			for _, key := range []string{big, small} {
				// A fresh Client, then the same one warm.
				c, cnt, tr := meteredClient(t, func(o *Options) { o.DisableKeyExpiry = noExpiry })
				for _, warm := range []bool{false, true} {
					for _, m := range []string{"v000003", "a", "nope"} {
						cnt.reset()
						tr.reset()
						in, err := c.SIsMember(ctx, key, m)
						require.NoError(t, err)
						require.Equal(t, key == big && m == "v000003" || key == small && m == "a", in)
						what := fmt.Sprintf("DisableKeyExpiry=%v %s warm=%v %s", noExpiry, key[len(p):], warm, m)
						require.EqualValues(t, 1, cnt.requests.Load(), "%s: %v", what, cnt)
						require.Equal(t, 1, tr.rounds(), what)
					}
				}
			}
		}
	})

	t.Run("first SADD after a read", func(t *testing.T) {
		// A fresh Client learns the encoding from any read of the set:
		// its first SADD is then the member-item transaction alone.
		for _, read := range []func(c *Client) error{
			func(c *Client) error { _, err := c.SCard(ctx, big); return err },
			func(c *Client) error { _, err := c.SIsMember(ctx, big, "x"); return err },
			func(c *Client) error { _, err := c.SRandMemberN(ctx, big, 2); return err },
		} {
			c, cnt, _ := meteredClient(t)
			require.NoError(t, read(c))
			cnt.reset()
			n, err := c.SAdd(ctx, big, "new"+randomHex(3))
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
			require.Equal(t, "1 requests (TransactWriteItems=1), 0 items read", cnt.String(), "no refused UpdateItem")
		}
	})
}

// TestSRandMemberRequests: SRANDMEMBER and SPOP of count 10 on a set of
// 10,000 members read in one round of Queries after the metadata item.
func TestSRandMemberRequests(t *testing.T) {
	ctx := context.Background()
	key := sharedBigSet(t)
	c, cnt, tr := meteredClient(t)
	tr.latency = 25 * time.Millisecond
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	// draw runs what (SRANDMEMBER or SPOP of 10) times times: 10
	// distinct members each time, in at most requests requests and rounds
	// round trips, never reading the whole set.
	draw := func(what string, times int, requests int64, rounds int, run func() ([]string, error)) {
		t.Helper()
		for range times {
			cnt.reset()
			tr.reset()
			ms, err := run()
			require.NoError(t, err)
			require.Len(t, model.Dedupe(ms), 10)
			t.Logf("%s 10: %v, %d round trips, %.1f units", what, cnt, tr.rounds(), cnt.units())
			require.LessOrEqual(t, cnt.requests.Load(), requests, "%v", cnt)
			require.LessOrEqual(t, tr.rounds(), rounds)
			require.Less(t, cnt.reads.Load(), card, "not the whole set")
		}
	}
	draw("SRANDMEMBER", 5, 12, 3, func() ([]string, error) { return c.SRandMemberN(ctx, key, 10) })
	draw("SPOP", 3, 13, 4, func() ([]string, error) { return c.SPopN(ctx, key, 10) })
	// A fresh Client's SPOP reads the metadata item once: the small-set
	// attempt's read serves the draw.
	fresh, cnt, _ := meteredClient(t)
	ms, err := fresh.SPopN(ctx, key, 10)
	require.NoError(t, err)
	require.Len(t, model.Dedupe(ms), 10)
	cnt.mu.Lock()
	gets := cnt.byOp["GetItem"]
	cnt.mu.Unlock()
	require.EqualValues(t, 1, gets, "%v", cnt)
}

// memberLost answers the first BatchGetItem it sees without its member
// items: as a BatchGetItem that read them before a conversion committed
// and the metadata item after (it reads its items one by one).
type memberLost struct {
	next http.RoundTripper
	done atomic.Bool
}

func (h *memberLost) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if err != nil || !strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".BatchGetItem") || !h.done.CompareAndSwap(false, true) {
		return resp, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out map[string]any
	_ = json.Unmarshal(body, &out)
	for table, items := range out["Responses"].(map[string]any) {
		var kept []any
		for _, it := range items.([]any) {
			if _, member := it.(map[string]any)["t"]; member { // the metadata item
				kept = append(kept, it)
			}
		}
		out["Responses"].(map[string]any)[table] = kept
	}
	body, _ = json.Marshal(out)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("X-Amz-Crc32")
	return resp, nil
}

// TestSIsMemberAcrossConversion: a fresh Client's SISMEMBER whose one
// BatchGetItem met a conversion half-way (the member item read before it,
// the metadata item after) still finds the member: the set converted
// minutes ago or less, the members not found are read again. A set
// converted long ago is not read twice.
func TestSIsMemberAcrossConversion(t *testing.T) {
	ctx := context.Background()
	p := t.Name() + ":" + randomHex(3) + ":"
	k := p + "s"
	c0, cnt0, _ := newTestClient(t)
	_, err := c0.SAdd(ctx, k, "a")
	require.NoError(t, err)
	_, err = c0.SAdd(ctx, k, numbered("x%03d", 100)...) // converts it
	require.NoError(t, err)
	small, _ := smallRaw(t, c0, k)
	require.False(t, small)

	h := &memberLost{next: http.DefaultTransport}
	c := faultyClient(t, h)
	in, err := c.SIsMember(ctx, k, "a")
	require.NoError(t, err)
	require.True(t, h.done.Load())
	require.True(t, in, "a member of the set before and after its conversion")

	// The Client that converted it knows it converted: one request.
	cnt0.reset()
	in, err = c0.SIsMember(ctx, k, "nope")
	require.NoError(t, err)
	require.False(t, in)
	require.EqualValues(t, 1, cnt0.requests.Load())

	// Converted long ago: no second read (the clock of the reader moved).
	c2, cnt, _ := meteredClient(t, func(o *Options) {})
	_, err = testDB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &testTable, Key: model.MetaKey(k),
		UpdateExpression: aws.String("SET #cs = :old"), ExpressionAttributeNames: map[string]string{"#cs": model.AttrConverted},
		ExpressionAttributeValues: model.Item{":old": model.Num(time.Now().Add(-time.Hour).UnixMilli())}})
	require.NoError(t, err)
	in, err = c2.SIsMember(ctx, k, "nope")
	require.NoError(t, err)
	require.False(t, in)
	require.EqualValues(t, 1, cnt.requests.Load())
}
