package redimo

// Fault injection: an http.RoundTripper in front of the real DynamoDB
// Local drops responses after the server applied the request, answers
// with 500s, throttling and transaction conflicts, or adds latency. Under
// each fault a concurrent workload must end with every set, sorted set and
// count equal to the model built from the replies.

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

type faultMode string

const (
	dropResponse faultMode = "drop-response"    // applied by the server, lost on the way back
	appliedThen5 faultMode = "applied-then-500" // applied by the server, answered with a 500
	serverError  faultMode = "http-500"
	throttling   faultMode = "throttling"  // ThrottlingException, ProvisionedThroughputExceededException, TransactionInProgressException
	conflicts    faultMode = "tx-conflict" // TransactionConflictException, TransactionCanceled{TransactionConflict|ThrottlingError}
	slow         faultMode = "latency"
	// freshToken is the negative control: responses are dropped as in
	// dropResponse, and a resent transaction gets a new idempotency token,
	// as if redimo made one per HTTP attempt. The workload's model must
	// then break: proof that it would catch a token that is not kept.
	freshToken faultMode = "control:fresh-token-on-resend"
)

// faulty injects mode into a share of requests and counts what it did.
type faulty struct {
	next     http.RoundTripper
	mode     faultMode
	share    float64
	injected sync.Map // kind → *atomic.Int64
	tokens   sync.Map // ClientRequestToken → seen before
	reused   atomic.Int64
	inflight sync.WaitGroup // requests sent and not yet answered
}

// settle waits for the requests still on their way: a command whose
// context ended returns at once, but a request it had sent (or that the
// slow mode still holds) reaches DynamoDB and applies later.
func (f *faulty) settle() { f.inflight.Wait() }

// RoundTrip sends r, with a fault of f's mode for f's share of requests.
// A request once sent is waited for even when its context ends (and then
// answered with the context's error): the server applies it either way,
// and settle must know when it has.
func (f *faulty) RoundTrip(r *http.Request) (*http.Response, error) {
	f.inflight.Add(1)
	defer f.inflight.Done()
	resp, err := f.roundTrip(r.WithContext(context.WithoutCancel(r.Context())))
	if cerr := r.Context().Err(); cerr != nil && err == nil {
		resp.Body.Close()
		return nil, cerr
	}
	return resp, err
}

// noteToken counts the requests that repeat a token: TransactWriteItems
// with its ClientRequestToken (the SDK's retries of a transaction), and
// the single-item writes of small sets and sorted sets with their write
// token (:tk, model.WriteToken; resent by smallUpdate). In freshToken mode
// it gives them a new one.
func (f *faulty) noteToken(r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	tx := strings.HasSuffix(target, "TransactWriteItems")
	if !tx && !strings.HasSuffix(target, "UpdateItem") || r.Body == nil {
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in struct {
		ClientRequestToken        string
		ExpressionAttributeValues map[string]struct{ B string }
	}
	_ = json.Unmarshal(body, &in)
	tok, fresh := in.ClientRequestToken, model.Token()
	if !tx {
		tok = in.ExpressionAttributeValues[":tk"].B
		raw, _ := base64.StdEncoding.DecodeString(tok)
		if len(raw) > 8 {
			_, _ = cryptorand.Read(raw[8:]) // the time of the first send kept
		}
		fresh = base64.StdEncoding.EncodeToString(raw)
	}
	if _, seen := f.tokens.LoadOrStore(tok, true); tok != "" && seen {
		f.reused.Add(1)
		if f.mode == freshToken {
			body = bytes.Replace(body, []byte(tok), []byte(fresh), 1)
			f.count("token replaced")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
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
	slices.Sort(parts)
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

func (f *faulty) roundTrip(r *http.Request) (*http.Response, error) {
	f.noteToken(r)
	target := r.Header.Get("X-Amz-Target")
	if rand.Float64() >= f.share || strings.HasSuffix(target, "DescribeTable") {
		return f.next.RoundTrip(r)
	}
	tx := strings.HasSuffix(target, "TransactWriteItems")
	switch f.mode {
	case dropResponse, freshToken, appliedThen5:
		resp, err := f.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if f.mode == appliedThen5 {
			f.count("applied, then 500")
			return jsonError(500, "InternalServerError", "injected after the request was applied", nil), nil
		}
		f.count("dropped")
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	case serverError:
		f.count("500")
		return jsonError(500, "InternalServerError", "injected", nil), nil
	case throttling:
		switch n := rand.IntN(3); {
		case n == 0 && tx:
			// Real DynamoDB's answer to a resent token while the first
			// request is still running.
			f.count("TransactionInProgressException")
			return jsonError(400, "TransactionInProgressException", "injected", nil), nil
		case n == 1:
			f.count("ThrottlingException")
			return jsonError(400, "ThrottlingException", "injected", nil), nil
		}
		f.count("ProvisionedThroughputExceededException")
		return jsonError(400, "ProvisionedThroughputExceededException", "injected", nil), nil
	case conflicts:
		if !tx {
			return f.next.RoundTrip(r)
		}
		body, _ := io.ReadAll(r.Body)
		var in struct{ TransactItems []json.RawMessage }
		_ = json.Unmarshal(body, &in)
		if rand.IntN(3) == 0 {
			f.count("TransactionConflictException")
			return jsonError(400, "TransactionConflictException", "injected", nil), nil
		}
		reasons := make([]map[string]string, len(in.TransactItems))
		for i := range reasons {
			reasons[i] = map[string]string{"Code": "None"}
		}
		code := []string{"TransactionConflict", "ThrottlingError"}[rand.IntN(2)]
		reasons[rand.IntN(len(reasons))] = map[string]string{"Code": code, "Message": "injected"}
		f.count("TransactionCanceled{" + code + "}")
		return jsonError(400, "TransactionCanceledException", "Transaction cancelled (injected)", map[string]any{"CancellationReasons": reasons}), nil
	case slow:
		f.count("delayed")
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
	}
	return f.next.RoundTrip(r)
}

// faultyClient is a redimo client on the test table behind transport, with
// a retryer generous enough for the injected failure rates, and optFns.
func faultyClient(t *testing.T, transport http.RoundTripper, optFns ...func(*Options)) *Client {
	t.Helper()
	needDB(t)
	db := local.Client(testEndpoint, attrChecker{next: transport}, func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = 25
			so.MaxBackoff = 20 * time.Millisecond
			so.RateLimiter = ratelimit.None
		})
	})
	return NewClient(db, append([]func(*Options){func(o *Options) { o.TableName = testTable }}, optFns...)...)
}

// faultModes is the fault modes a test runs: every one of all in the full
// suite (make test-all), one chosen by the run's seed in the everyday one.
func faultModes(t *testing.T, all ...faultMode) []faultMode {
	t.Helper()
	if testenv.Thorough() {
		return all
	}
	i := testenv.Seed(t, 0) % uint64(len(all))
	return all[i : i+1]
}

func TestFaults(t *testing.T) {
	needDB(t)
	// Sorted sets with count items (rank.go) from 8 members, ranges of at
	// most 4: "zpop" is built before the workers start, "zset" by the
	// workers' ZRANKs.
	// Both encodings of sorted sets: member items, and small sorted sets
	// in one item (smallz.go), which have no count items.
	for _, small := range []bool{false, true} {
		t.Run(map[bool]string{false: "member items", true: "small sorted sets"}[small], func(t *testing.T) {
			workload := func(t *testing.T, c, clean *Client, p string) []string {
				c.ranks.max, c.ranks.min = 4, 8
				clean.ranks.max, clean.ranks.min = 4, 8
				c.opts.DisableSmallSortedSets, clean.opts.DisableSmallSortedSets = !small, !small
				return faultWorkload(t, c, clean, p)
			}
			faultMatrix(t, []faultMode{dropResponse, appliedThen5, serverError, throttling, conflicts, slow}, workload, func(t *testing.T, clean *Client, p string) {
				if small {
					return
				}
				require.Positive(t, checkRankItems(t, clean, p+"zset"), "zset was ranked by the workers' ZRANKs")
				checkRankItems(t, clean, p+"zpop") // 0 when popped empty
			})
		})
	}
}

// faultMatrix runs workload through a Client whose transport injects each
// of modes (the everyday suite: one, by the seed) into 20% of requests:
// the state, read through a clean Client, must be what the replies say
// (workload returns how it differs), then after checks it. The negative
// control, the same workload with tokens that change on resend, must
// break that model, or the checks prove nothing.
func faultMatrix(t *testing.T, modes []faultMode, workload func(t *testing.T, c, clean *Client, p string) []string, after func(t *testing.T, clean *Client, p string)) {
	for _, mode := range faultModes(t, modes...) {
		t.Run(string(mode), func(t *testing.T) {
			f := &faulty{next: http.DefaultTransport, mode: mode, share: 0.2}
			c, clean, p := faultyClient(t, f), cleanClient(t), t.Name()+":"+randomHex(3)+":"
			violations := workload(t, c, clean, p)
			if after != nil {
				after(t, clean, p)
			}
			t.Logf("injected (%s, 20%% of requests): %s; transactions resent with their token: %d", mode, f.summary(), f.reused.Load())
			require.Empty(t, violations, "the state differs from the model built from the replies")
			if mode == dropResponse || mode == appliedThen5 {
				require.Positive(t, f.reused.Load(), "lost responses were retried with the same idempotency token")
			}
		})
	}
	// Whether a double write shows depends on which writes lose their
	// response: the control has three runs of the workload to show one.
	t.Run(string(freshToken), func(t *testing.T) {
		for run := 1; run <= 3; run++ {
			f := &faulty{next: http.DefaultTransport, mode: freshToken, share: 0.2}
			c, clean, p := faultyClient(t, f), cleanClient(t), fmt.Sprintf("%s:%s%d:", t.Name(), randomHex(3), run)
			violations := workload(t, c, clean, p)
			t.Logf("run %d injected: %s; the model caught %d violations, e.g. %q", run, f.summary(), len(violations), first(violations))
			if len(violations) > 0 {
				return
			}
		}
		t.Fatal("writes resent with fresh tokens applied twice, yet the model saw nothing in 3 runs")
	})
}

func cleanClient(t *testing.T) *Client {
	c, _, _ := newTestClient(t)
	return c
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// faultWorkload runs 8 concurrent workers of random commands on keys under
// p through c, and returns how the final state (read through clean)
// differs from the model built from the replies:
//   - SADD/SREM of one member at a time on "set": each member is present
//     exactly when its adds minus removes is 1, and SCARD = |SMEMBERS| =
//     the sum of the replies; SADD/SREM of 2-3 members on "multi", and of
//     100-250 members (three transactions) on "bulk": the sum;
//   - SMOVE between "a" and "b" (10 members, all in "a" first): each
//     member is in the set the replies say, never in both, never lost;
//   - SPOP from "pop" and ZPOPMIN from "zpop" (40 members each): no member
//     popped twice, every member popped or still there;
//   - ZADD of per-worker members: the last score each was given;
//     ZINCRBY of shared members by whole numbers: the exact sums;
//   - EXPIRE NX and PERSIST, twice each on a fresh key: 1, 0, 1, 0;
//   - a RateLimiter with room for every call: as many slots used as calls allowed.
func faultWorkload(t *testing.T, c, clean *Client, p string) []string {
	ctx := context.Background()
	set, multi, bulk, a, b, pop, zset, zpop, limited := p+"set", p+"multi", p+"bulk", p+"a", p+"b", p+"pop", p+"zset", p+"zpop", p+"limited"
	var moving, popping []string
	var zpopping []Z
	for i := range 10 {
		moving = append(moving, fmt.Sprint("x", i))
	}
	for i := range 40 {
		popping = append(popping, fmt.Sprint("p", i))
		zpopping = append(zpopping, Z{Score: float64(i % 7), Member: fmt.Sprint("q", i)})
	}
	_, err := clean.SAdd(ctx, a, moving...)
	require.NoError(t, err)
	_, err = clean.SAdd(ctx, pop, popping...)
	require.NoError(t, err)
	_, err = clean.ZAdd(ctx, zpop, zpopping...)
	require.NoError(t, err)
	_, _, err = clean.ZRank(ctx, zpop, "q0") // count items, when clean builds them
	require.NoError(t, err)
	limiter := c.RateLimiter(MaxRateLimit, time.Hour)

	workers, rounds := 8, testenv.Budget(15, 40)
	var (
		mu                sync.Mutex
		net               = map[string]int64{} // set: adds − removes per member
		total, multiTotal int64
		bulkTotal         int64
		inB               = map[string]int64{} // moves a→b − moves b→a per member
		popped            = map[string]int{}
		zpopped           = map[string]int{}
		lastScore         = map[string]float64{}
		sums              = map[string]float64{}
		allowed           int64
		wg                sync.WaitGroup
		errs              []string
	)
	fail := func(what string, err error) {
		mu.Lock()
		errs = append(errs, fmt.Sprintf("%s: %v", what, err))
		mu.Unlock()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range rounds {
				switch r.IntN(11) {
				case 0, 1:
					m := fmt.Sprint("m", r.IntN(10))
					var n int64
					var err error
					if r.IntN(2) == 0 {
						n, err = c.SAdd(ctx, set, m)
					} else {
						n, err = c.SRem(ctx, set, m)
						n = -n
					}
					if err != nil {
						fail("SADD/SREM", err)
						continue
					}
					mu.Lock()
					net[m] += n
					total += n
					mu.Unlock()
				case 2:
					key, size, sum := multi, 2+r.IntN(2), &multiTotal
					if r.IntN(4) == 0 {
						key, size, sum = bulk, 100+r.IntN(150), &bulkTotal
					}
					ms := make([]string, size)
					for j := range ms {
						ms[j] = fmt.Sprint("m", r.IntN(3*size))
					}
					var n int64
					var err error
					if r.IntN(2) == 0 {
						n, err = c.SAdd(ctx, key, ms...)
					} else {
						n, err = c.SRem(ctx, key, ms...)
						n = -n
					}
					if err != nil {
						fail("SADD/SREM many", err)
						continue
					}
					mu.Lock()
					*sum += n
					mu.Unlock()
				case 3:
					m := moving[r.IntN(len(moving))]
					toB := r.IntN(2) == 0
					src, dst := a, b
					if !toB {
						src, dst = b, a
					}
					moved, err := c.SMove(ctx, src, dst, m)
					if err != nil {
						fail("SMOVE", err)
						continue
					}
					if moved {
						mu.Lock()
						if toB {
							inB[m]++
						} else {
							inB[m]--
						}
						mu.Unlock()
					}
				case 4:
					ms, err := c.SPopN(ctx, pop, int64(1+r.IntN(3)))
					if err != nil {
						fail("SPOP", err)
					}
					mu.Lock()
					for _, m := range ms {
						popped[m]++
					}
					mu.Unlock()
				case 5:
					zs, err := c.ZPopMin(ctx, zpop, int64(1+r.IntN(2)))
					if err != nil {
						fail("ZPOPMIN", err)
					}
					mu.Lock()
					for _, z := range zs {
						zpopped[z.Member]++
					}
					mu.Unlock()
				case 6:
					m := fmt.Sprintf("w%d-%d", w, r.IntN(5))
					if _, err := c.ZAdd(ctx, zset, Z{Score: float64(i), Member: m}); err != nil {
						fail("ZADD", err)
						continue
					}
					mu.Lock()
					lastScore[m] = float64(i)
					mu.Unlock()
					if _, _, err := c.ZRank(ctx, zset, m); err != nil { // builds count items when c does
						fail("ZRANK", err)
					}
				case 7, 8:
					m, by := fmt.Sprint("shared", r.IntN(3)), float64(1+r.IntN(5))
					if _, err := c.ZIncrBy(ctx, zset, by, m); err != nil {
						fail("ZINCRBY", err)
						continue
					}
					mu.Lock()
					sums[m] += by
					mu.Unlock()
				case 9:
					// Each expiry command on a fresh key of this worker's
					// has one right reply.
					key := fmt.Sprintf("%sexp:%d:%d", p, w, i)
					if _, err := c.SAdd(ctx, key, "x"); err != nil {
						fail("SADD", err)
						continue
					}
					for _, step := range []struct {
						name string
						call func() (bool, error)
						want bool
					}{
						{"EXPIRE NX on a key without expiry", func() (bool, error) { return c.ExpireWith(ctx, key, time.Hour, ExpireNX) }, true},
						{"EXPIRE NX on a key with expiry", func() (bool, error) { return c.ExpireWith(ctx, key, time.Hour, ExpireNX) }, false},
						{"PERSIST on a key with expiry", func() (bool, error) { return c.Persist(ctx, key) }, true},
						{"PERSIST on a key without expiry", func() (bool, error) { return c.Persist(ctx, key) }, false},
					} {
						got, err := step.call()
						if err != nil || got != step.want {
							fail(step.name, fmt.Errorf("replied %v, %v; want %v", got, err, step.want))
						}
					}
				default:
					res, err := limiter.Allow(ctx, limited)
					if err != nil {
						fail("RateLimiter.Allow", err)
						continue
					}
					if res.Allowed {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	v := errs // commands that failed are violations too: the retryer has room for every fault

	check := func(ok bool, format string, args ...any) {
		if !ok {
			v = append(v, fmt.Sprintf(format, args...))
		}
	}
	members := func(key string) []string {
		ms, err := clean.SMembers(ctx, key)
		require.NoError(t, err)
		card, err := clean.SCard(ctx, key)
		require.NoError(t, err)
		check(int64(len(ms)) == card, "%s: SCARD %d, |SMEMBERS| %d", key, card, len(ms))
		return ms
	}
	// set: per member, and the total.
	got := members(set)
	check(int64(len(got)) == total, "set: Σ SADD − Σ SREM = %d, SCARD %d", total, len(got))
	for i := range 10 {
		m := fmt.Sprint("m", i)
		check(net[m] == 0 || net[m] == 1, "set: %s added − removed = %d", m, net[m])
		check(slices.Contains(got, m) == (net[m] == 1), "set: %s present %v, replies say %d", m, slices.Contains(got, m), net[m])
	}
	check(int64(len(members(multi))) == multiTotal, "multi: Σ SADD − Σ SREM = %d, SCARD differs", multiTotal)
	check(int64(len(members(bulk))) == bulkTotal, "bulk: Σ SADD − Σ SREM = %d, SCARD differs", bulkTotal)
	// SMOVE: every member in exactly the set the replies say.
	inA, inBNow := members(a), members(b)
	for _, m := range moving {
		check(inB[m] == 0 || inB[m] == 1, "smove: %s moved a→b − b→a = %d", m, inB[m])
		check(slices.Contains(inBNow, m) == (inB[m] == 1) && slices.Contains(inA, m) == (inB[m] == 0),
			"smove: %s in a %v, in b %v, replies say moved %d", m, slices.Contains(inA, m), slices.Contains(inBNow, m), inB[m])
	}
	// SPOP and ZPOPMIN: popped once or still there.
	left := members(pop)
	for _, m := range popping {
		check(popped[m]+btoi(slices.Contains(left, m)) == 1, "spop: %s popped %d times, still there %v", m, popped[m], slices.Contains(left, m))
	}
	zleft, err := clean.ZRange(ctx, zpop, 0, -1)
	require.NoError(t, err)
	for _, z := range zpopping {
		check(zpopped[z.Member]+btoi(slices.Contains(zleft, z.Member)) == 1, "zpopmin: %s popped %d times, still there %v", z.Member, zpopped[z.Member], slices.Contains(zleft, z.Member))
	}
	// ZADD's last scores and ZINCRBY's sums.
	all, err := clean.ZRangeWithScores(ctx, zset, 0, -1)
	require.NoError(t, err)
	zcard, err := clean.ZCard(ctx, zset)
	require.NoError(t, err)
	check(int64(len(all)) == zcard && len(all) == len(lastScore)+len(sums), "zset: ZCARD %d, ZRANGE %d, members written %d", zcard, len(all), len(lastScore)+len(sums))
	for _, z := range all {
		want, ok := lastScore[z.Member]
		if !ok {
			want, ok = sums[z.Member]
		}
		check(ok && z.Score == want, "zset: %s has score %v, the replies say %v", z.Member, z.Score, want)
	}
	// The rate limiter: slots taken = calls allowed.
	var slots int64
	for it, err := range clean.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.LimiterPK(limited))},
	}, 0) {
		require.NoError(t, err)
		if _, ok := it[model.AttrAt]; ok {
			slots++
		}
	}
	check(slots == allowed, "rate limiter: %d slots taken, %d calls allowed", slots, allowed)
	return v
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Every command given an already-cancelled context fails at once with an
// error that wraps context.Canceled, and writes nothing.
func TestCancellation(t *testing.T) {
	ctx, c, _, p := setup(t)
	s, z, d := p+"s", p+"z", p+"d"
	_, err := c.SAdd(ctx, s, "a", "b")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"})
	require.NoError(t, err)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	x := cancelled
	calls := map[string]func() error{
		"SADD":             func() error { _, err := c.SAdd(x, s, "c"); return err },
		"SREM":             func() error { _, err := c.SRem(x, s, "a"); return err },
		"SCARD":            func() error { _, err := c.SCard(x, s); return err },
		"SISMEMBER":        func() error { _, err := c.SIsMember(x, s, "a"); return err },
		"SMISMEMBER":       func() error { _, err := c.SMIsMember(x, s, "a", "b"); return err },
		"SMEMBERS":         func() error { _, err := c.SMembers(x, s); return err },
		"SSCAN":            func() error { return firstErr(c.SScan(x, s, "a*")) },
		"SRANDMEMBER":      func() error { _, err := c.SRandMemberN(x, s, -3); return err },
		"SPOP":             func() error { _, err := c.SPopN(x, s, 1); return err },
		"SMOVE":            func() error { _, err := c.SMove(x, s, d, "a"); return err },
		"SINTER":           func() error { _, err := c.SInter(x, s, d); return err },
		"SINTERCARD":       func() error { _, err := c.SInterCard(x, 0, s, d); return err },
		"SUNION":           func() error { _, err := c.SUnion(x, s, d); return err },
		"SDIFF":            func() error { _, err := c.SDiff(x, s, d); return err },
		"SUNIONSTORE":      func() error { _, err := c.SUnionStore(x, d, s); return err },
		"DEL":              func() error { _, err := c.Del(x, s); return err },
		"EXISTS":           func() error { _, err := c.Exists(x, s); return err },
		"TYPE":             func() error { _, err := c.Type(x, s); return err },
		"EXPIRE":           func() error { _, err := c.Expire(x, s, time.Hour); return err },
		"TTL":              func() error { _, err := c.TTL(x, s); return err },
		"PERSIST":          func() error { _, err := c.Persist(x, s); return err },
		"ZADD":             func() error { _, err := c.ZAdd(x, z, Z{3, "c"}); return err },
		"ZADD INCR":        func() error { _, _, err := c.ZAddArgsIncr(x, z, ZAddArgs{Members: []Z{{1, "a"}}}); return err },
		"ZINCRBY":          func() error { _, err := c.ZIncrBy(x, z, 1, "a"); return err },
		"ZREM":             func() error { _, err := c.ZRem(x, z, "a"); return err },
		"ZSCORE":           func() error { _, _, err := c.ZScore(x, z, "a"); return err },
		"ZMSCORE":          func() error { _, _, err := c.ZMScore(x, z, "a"); return err },
		"ZCARD":            func() error { _, err := c.ZCard(x, z); return err },
		"ZCOUNT":           func() error { _, err := c.ZCount(x, z, "-inf", "+inf"); return err },
		"ZLEXCOUNT":        func() error { _, err := c.ZLexCount(x, z, "-", "+"); return err },
		"ZRANK":            func() error { _, _, err := c.ZRank(x, z, "b"); return err },
		"ZRANGE":           func() error { _, err := c.ZRange(x, z, 0, -1); return err },
		"ZRANGEBYSCORE":    func() error { _, err := c.ZRangeByScore(x, z, &ZRangeBy{Min: "-inf", Max: "+inf"}); return err },
		"ZRANGEBYLEX":      func() error { _, err := c.ZRangeByLex(x, z, &ZRangeBy{Min: "-", Max: "+"}); return err },
		"ZRANGESTORE":      func() error { _, err := c.ZRangeStore(x, d, ZRangeArgs{Key: z, Start: "0", Stop: "-1"}); return err },
		"ZREMRANGEBYSCORE": func() error { _, err := c.ZRemRangeByScore(x, z, "-inf", "+inf"); return err },
		"ZREMRANGEBYRANK":  func() error { _, err := c.ZRemRangeByRank(x, z, 0, -1); return err },
		"ZPOPMIN":          func() error { _, err := c.ZPopMin(x, z); return err },
		"ZSCAN":            func() error { return firstErr(c.ZScan(x, z, "")) },
		"ZRANDMEMBER":      func() error { _, err := c.ZRandMember(x, z, 2); return err },
		"ZUNION":           func() error { _, err := c.ZUnion(x, ZStore{Keys: []string{z, s}}); return err },
		"ZINTERSTORE":      func() error { _, err := c.ZInterStore(x, d, &ZStore{Keys: []string{z, s}}); return err },
		"ZDIFF":            func() error { _, err := c.ZDiff(x, z, s); return err },
		"ZINTERCARD":       func() error { _, err := c.ZInterCard(x, 0, z, s); return err },
		"RateLimiter":      func() error { _, err := c.RateLimiter(3, time.Minute).Allow(x, p+"rl"); return err },
	}
	before := scanTable(t, p)
	start := time.Now()
	for name, call := range calls {
		require.ErrorIs(t, call(), context.Canceled, name)
	}
	require.Less(t, time.Since(start), time.Second, "a cancelled context stops every command at once")
	require.Equal(t, before, scanTable(t, p), "nothing written")
}

// Deadlines that expire in the middle of a slow concurrent workload leave
// every count exact: SCARD = |SMEMBERS|, ZCARD = |ZRANGE|, whatever was cut.
func TestDeadlines(t *testing.T) {
	c, _, p := newTestClient(t)
	f := &faulty{next: http.DefaultTransport, mode: slow, share: 0.5}
	slowClient := faultyClient(t, f)
	set, zset := p+"set", p+"zset"
	var cut atomic.Int64
	runWorkers(8, func(w int) {
		for i := range 30 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+(i*37)%120)*time.Millisecond)
			var err error
			switch i % 3 {
			case 0:
				_, err = slowClient.SAdd(ctx, set, fmt.Sprint(w, "-", i), fmt.Sprint("shared", i%5))
			case 1:
				_, err = slowClient.ZAdd(ctx, zset, Z{Score: float64(i), Member: fmt.Sprint(w, "-", i)}, Z{Score: 1, Member: fmt.Sprint("shared", i%5)})
			default:
				_, err = slowClient.SRem(ctx, set, fmt.Sprint("shared", i%5))
			}
			cancel()
			if err != nil {
				cut.Add(1)
				require.True(t, errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline") || strings.Contains(err.Error(), "canceled"), err.Error())
			}
		}
	})
	f.settle() // the requests the deadlines abandoned on their way apply first
	ctx := context.Background()
	members, err := c.SMembers(ctx, set)
	require.NoError(t, err)
	card, err := c.SCard(ctx, set)
	require.NoError(t, err)
	require.EqualValues(t, len(members), card, "whatever the deadlines cut, SCARD matches the members")
	zs, err := c.ZRange(ctx, zset, 0, -1)
	require.NoError(t, err)
	zcard, err := c.ZCard(ctx, zset)
	require.NoError(t, err)
	require.EqualValues(t, len(zs), zcard, "whatever the deadlines cut, ZCARD matches the members")
	t.Logf("%d of 240 commands cut by their deadlines; %d set and %d sorted-set members written before theirs; %s", cut.Load(), card, zcard, f.summary())
}
