package redimo

// Fault injection: an http.RoundTripper in front of the real DynamoDB
// Local drops responses after the server applied the request, answers
// with 500s, throttling and transaction conflicts, or adds latency. Under
// each fault a concurrent workload must end with every set, sorted set and
// count equal to the model built from the replies.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/stretchr/testify/require"
)

type faultMode string

const (
	dropResponse faultMode = "drop-response" // applied by the server, lost on the way back
	serverError  faultMode = "http-500"
	throttling   faultMode = "throttling"  // ThrottlingException and ProvisionedThroughputExceededException
	conflicts    faultMode = "tx-conflict" // TransactionConflictException and TransactionCanceled{TransactionConflict}
	slow         faultMode = "latency"
)

// faulty injects mode into a share of requests and counts what it did.
type faulty struct {
	next     http.RoundTripper
	mode     faultMode
	share    float64
	injected sync.Map // kind → *atomic.Int64
	tokens   sync.Map // ClientRequestToken → seen before
	reused   atomic.Int64
}

// noteToken counts TransactWriteItems requests that repeat a token: the
// SDK's retries of a transaction whose response was lost.
func (f *faulty) noteToken(r *http.Request) {
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), "TransactWriteItems") || r.Body == nil {
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in struct{ ClientRequestToken string }
	_ = json.Unmarshal(body, &in)
	if _, seen := f.tokens.LoadOrStore(in.ClientRequestToken, true); seen {
		f.reused.Add(1)
	}
}

func (f *faulty) count(kind string) {
	v, _ := f.injected.LoadOrStore(kind, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (f *faulty) summary() string {
	var parts []string
	f.injected.Range(func(k, v any) bool {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	return strings.Join(parts, " ")
}

func jsonError(status int, typ, msg string, extra map[string]any) *http.Response {
	body := map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg}
	for k, v := range extra {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	return &http.Response{
		StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}, "X-Amzn-Requestid": {"fault"}},
		Body:   io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)),
	}
}

func (f *faulty) RoundTrip(r *http.Request) (*http.Response, error) {
	f.noteToken(r)
	target := r.Header.Get("X-Amz-Target")
	if rand.Float64() >= f.share || strings.HasSuffix(target, "DescribeTable") {
		return f.next.RoundTrip(r)
	}
	switch f.mode {
	case dropResponse:
		resp, err := f.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		f.count("dropped")
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	case serverError:
		f.count("500")
		return jsonError(500, "InternalServerError", "injected", nil), nil
	case throttling:
		if rand.IntN(2) == 0 {
			f.count("ThrottlingException")
			return jsonError(400, "ThrottlingException", "injected", nil), nil
		}
		f.count("ProvisionedThroughputExceededException")
		return jsonError(400, "ProvisionedThroughputExceededException", "injected", nil), nil
	case conflicts:
		if !strings.HasSuffix(target, "TransactWriteItems") {
			return f.next.RoundTrip(r)
		}
		body, _ := io.ReadAll(r.Body)
		var in struct{ TransactItems []json.RawMessage }
		_ = json.Unmarshal(body, &in)
		if rand.IntN(2) == 0 {
			f.count("TransactionConflictException")
			return jsonError(400, "TransactionConflictException", "injected", nil), nil
		}
		reasons := make([]map[string]string, len(in.TransactItems))
		for i := range reasons {
			reasons[i] = map[string]string{"Code": "None"}
		}
		reasons[rand.IntN(len(reasons))] = map[string]string{"Code": "TransactionConflict", "Message": "injected"}
		f.count("TransactionCanceled{TransactionConflict}")
		return jsonError(400, "TransactionCanceledException", "Transaction cancelled (injected)", map[string]any{"CancellationReasons": reasons}), nil
	case slow:
		f.count("delayed")
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
	}
	return f.next.RoundTrip(r)
}

// faultyClient is a redimo client on the test table behind transport, with
// a retryer generous enough for the injected failure rates.
func faultyClient(t *testing.T, transport http.RoundTripper) *Client {
	db := local.Client(testEndpoint, transport, func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = 25
			so.MaxBackoff = 20 * time.Millisecond
			so.RateLimiter = ratelimit.None
		})
	})
	return NewClient(db, func(o *Options) { o.TableName = testTable })
}

func TestFaults(t *testing.T) {
	needDB(t)
	for _, mode := range []faultMode{dropResponse, serverError, throttling, conflicts, slow} {
		t.Run(string(mode), func(t *testing.T) {
			f := &faulty{next: http.DefaultTransport, mode: mode, share: 0.2}
			c := faultyClient(t, f)
			clean, _, p := newTestClient(t)
			ctx := context.Background()
			set, zset := p+"set", p+"zset"

			const workers, rounds = 8, 20
			var (
				mu     sync.Mutex
				net    = map[string]int64{}
				total  int64
				zAdded int64
				incrs  int64
				wg     sync.WaitGroup
			)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 1))
					for i := range rounds {
						m := fmt.Sprint("m", r.IntN(10))
						var n int64
						var err error
						if r.IntN(2) == 0 {
							n, err = c.SAdd(ctx, set, m)
						} else {
							n, err = c.SRem(ctx, set, m)
							n = -n
						}
						require.NoError(t, err)
						zn, err := c.ZAdd(ctx, zset, Z{Score: float64(i), Member: fmt.Sprintf("w%d-%d", w, i%7)})
						require.NoError(t, err)
						_, err = c.ZIncrBy(ctx, zset, 1, "shared")
						require.NoError(t, err)
						mu.Lock()
						net[m] += n
						total += n
						zAdded += zn
						incrs++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			t.Logf("injected (%s, 20%% of requests): %s; transactions resent with their token: %d", mode, f.summary(), f.reused.Load())
			if mode == dropResponse {
				require.Positive(t, f.reused.Load(), "lost responses were retried with the same idempotency token")
			}

			members, err := clean.SMembers(ctx, set)
			require.NoError(t, err)
			card, err := clean.SCard(ctx, set)
			require.NoError(t, err)
			require.EqualValues(t, len(members), card, "SCARD = |SMEMBERS|")
			require.Equal(t, total, card, "Σ SADD − Σ SREM = SCARD: nothing lost or counted twice")
			for m, n := range net {
				require.Contains(t, []int64{0, 1}, n, m)
			}
			zcard, err := clean.ZCard(ctx, zset)
			require.NoError(t, err)
			require.Equal(t, zAdded+1, zcard, "Σ ZADD + the shared member = ZCARD")
			all, err := clean.ZRange(ctx, zset, 0, -1)
			require.NoError(t, err)
			require.Len(t, all, int(zcard))
			score, _, err := clean.ZScore(ctx, zset, "shared")
			require.NoError(t, err)
			require.Equal(t, float64(incrs), score, "every ZINCRBY counted exactly once")
		})
	}
}

func TestCancellation(t *testing.T) {
	c, _, p := newTestClient(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := c.SAdd(cancelled, p+"k", "a")
	require.ErrorIs(t, err, context.Canceled)
	_, err = c.ZRange(cancelled, p+"k", 0, -1)
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), time.Second, "a cancelled context stops work at once")

	// Deadlines in the middle of a slow workload leave counts exact.
	f := &faulty{next: http.DefaultTransport, mode: slow, share: 1}
	slowClient := faultyClient(t, f)
	key := p + "deadline"
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+i%20)*time.Millisecond)
				_, err := slowClient.SAdd(ctx, key, fmt.Sprint(w, "-", i), fmt.Sprint("shared", i%5))
				cancel()
				if err != nil {
					require.True(t, errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline") || strings.Contains(err.Error(), "canceled"), err.Error())
				}
			}
		}()
	}
	wg.Wait()
	ctx := context.Background()
	members, err := c.SMembers(ctx, key)
	require.NoError(t, err)
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, len(members), card, "whatever the deadlines cut, the count matches the members")
	t.Logf("%d members written before their deadlines", card)
}
