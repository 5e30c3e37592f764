package redimo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/store"
	"github.com/stretchr/testify/require"
)

// refuser stands in front of DynamoDB Local and answers every
// TransactWriteItems itself with answer (given the request's actions),
// counting them; other requests pass.
type refuser struct {
	answer  func(actions []map[string]json.RawMessage) *http.Response
	refused atomic.Int64
}

func (r *refuser) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.Header.Get("X-Amz-Target"), "TransactWriteItems") {
		return http.DefaultTransport.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	var in struct{ TransactItems []map[string]json.RawMessage }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	r.refused.Add(1)
	return r.answer(in.TransactItems), nil
}

// cancelled is a TransactionCanceledException whose reason for each action
// is code(action).
func cancelled(actions []map[string]json.RawMessage, code func(action map[string]json.RawMessage) string) *http.Response {
	reasons := make([]map[string]string, len(actions))
	for i, a := range actions {
		reasons[i] = map[string]string{"Code": code(a)}
	}
	return jsonError(400, "TransactionCanceledException", "Transaction cancelled (injected)",
		map[string]any{"CancellationReasons": reasons})
}

// refuseConflict answers a TransactionConflictException.
func refuseConflict([]map[string]json.RawMessage) *http.Response {
	return jsonError(400, "TransactionConflictException", "injected", nil)
}

// refuseThrottled cancels the transaction for throttling of its first action.
func refuseThrottled(actions []map[string]json.RawMessage) *http.Response {
	first := true
	return cancelled(actions, func(map[string]json.RawMessage) string {
		if first {
			first = false
			return "ThrottlingError"
		}
		return "None"
	})
}

// refuseTaken cancels the transaction as if another client had popped
// every member it deletes.
func refuseTaken(actions []map[string]json.RawMessage) *http.Response {
	return cancelled(actions, func(a map[string]json.RawMessage) string {
		if _, ok := a["Delete"]; ok {
			return "ConditionalCheckFailed"
		}
		return "None"
	})
}

// refusedClient is a client on the test table whose transactions are all
// answered by answer, with the SDK's retries off (every attempt is
// redimo's) and Options.MaxAttempts attempts.
func refusedClient(answer func([]map[string]json.RawMessage) *http.Response, attempts int) (*Client, *refuser) {
	r := &refuser{answer: answer}
	db := local.Client(testEndpoint, attrChecker{next: r}, func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	// Member items: the refusals are of transactions (smallset.go, smallz.go).
	return NewClient(db, func(o *Options) {
		o.TableName, o.MaxAttempts, o.DisableSmallSets, o.DisableSmallSortedSets = testTable, attempts, true, true
	}), r
}

// The retry policy (internal/store): a command that keeps losing, to conflicts,
// throttling or other clients taking its picks, makes exactly
// Options.MaxAttempts attempts, then returns ErrContention and has written
// nothing.
func TestRetryPolicy(t *testing.T) {
	ctx, clean, _, p := setup(t, func(o *Options) { o.DisableSmallSets = true; o.DisableSmallSortedSets = true })
	members := []string{"a", "b", "c", "d", "e"}
	for _, tc := range []struct {
		name   string
		answer func([]map[string]json.RawMessage) *http.Response
		run    func(c *Client, key string) (done int, err error) // done: members written or popped
		card   int64                                             // of key afterwards
	}{
		{"SAdd/TransactionConflictException", refuseConflict, func(c *Client, key string) (int, error) {
			n, err := c.SAdd(ctx, key, "x", "y")
			return int(n), err
		}, 5},
		{"ZAdd/TransactionConflictException", refuseConflict, func(c *Client, key string) (int, error) {
			n, err := c.ZAdd(ctx, key+"z", Z{1, "x"})
			return int(n), err
		}, 5},
		{"SRem/cancelled-ThrottlingError", refuseThrottled, func(c *Client, key string) (int, error) {
			n, err := c.SRem(ctx, key, "a")
			return int(n), err
		}, 5},
		{"SPopN/picks-taken", refuseTaken, func(c *Client, key string) (int, error) {
			ms, err := c.SPopN(ctx, key, 2)
			return len(ms), err
		}, 5},
		{"SPop/picks-taken", refuseTaken, func(c *Client, key string) (int, error) {
			_, ok, err := c.SPop(ctx, key)
			return btoi(ok), err
		}, 5},
		{"ZPopMin/picks-taken", refuseTaken, func(c *Client, key string) (int, error) {
			zs, err := c.ZPopMin(ctx, key+"z", 2)
			return len(zs), err
		}, 5},
		{"ZMPop/picks-taken", refuseTaken, func(c *Client, key string) (int, error) {
			_, zs, err := c.ZMPop(ctx, PopMax, 1, key+"none", key+"z")
			return len(zs), err
		}, 5},
	} {
		for _, attempts := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/MaxAttempts=%d", tc.name, attempts), func(t *testing.T) {
				key := fmt.Sprintf("%s%s:%d", p, tc.name, attempts)
				_, err := clean.SAdd(ctx, key, members...)
				require.NoError(t, err)
				zs := byIndex(members)
				_, err = clean.ZAdd(ctx, key+"z", zs...)
				require.NoError(t, err)

				c, r := refusedClient(tc.answer, attempts)
				done, err := tc.run(c, key)
				require.ErrorIs(t, err, ErrContention)
				require.Zero(t, done)
				require.EqualValues(t, attempts, r.refused.Load(), "one transaction an attempt, Options.MaxAttempts attempts")
				n, err := clean.SCard(ctx, key)
				require.NoError(t, err)
				require.Equal(t, tc.card, n, "nothing written")
				n, err = clean.ZCard(ctx, key+"z")
				require.NoError(t, err)
				require.Equal(t, tc.card, n, "nothing written")
			})
		}
	}
}

// ShardedSet.Pop runs out as SPop does: ErrContention, after
// Options.MaxAttempts attempts.
func TestShardedPopContention(t *testing.T) {
	ctx, clean, _, p := setup(t, func(o *Options) { o.DisableSmallSets = true; o.DisableSmallSortedSets = true })
	_, err := clean.ShardedSet(p+"s", 4).Add(ctx, "a", "b", "c", "d", "e", "f", "g", "h")
	require.NoError(t, err)
	c, r := refusedClient(refuseTaken, 3)
	m, ok, err := c.ShardedSet(p+"s", 4).Pop(ctx)
	require.ErrorIs(t, err, ErrContention)
	require.False(t, ok)
	require.Empty(t, m)
	require.EqualValues(t, 3, r.refused.Load())
	n, err := clean.ShardedSet(p+"s", 4).Card(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, store.Sleep(ctx, 7), context.Canceled)
	require.NoError(t, store.Sleep(context.Background(), 1))
}
