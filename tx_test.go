package redimo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// lostThenConflict applies the first transaction that writes marker and
// loses its answer; the SDK's resend of it (same token) is answered with a
// TransactionConflict cancellation; later requests go through.
type lostThenConflict struct {
	marker string
	seen   atomic.Int64
}

func (l *lostThenConflict) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), "TransactWriteItems") {
		return http.DefaultTransport.RoundTrip(r)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(l.marker)) {
		return http.DefaultTransport.RoundTrip(r)
	}
	switch l.seen.Add(1) {
	case 1:
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	case 2:
		var in struct{ TransactItems []json.RawMessage }
		_ = json.Unmarshal(body, &in)
		reasons := make([]map[string]string, len(in.TransactItems))
		for i := range reasons {
			reasons[i] = map[string]string{"Code": "None"}
		}
		reasons[len(reasons)-1] = map[string]string{"Code": "TransactionConflict", "Message": "injected"}
		return jsonError(400, "TransactionCanceledException", "Transaction cancelled (injected)",
			map[string]any{"CancellationReasons": reasons}), nil
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A transaction applied whose answer was lost, then answered with a
// conflict when the SDK resent it, is resent with the same token: DynamoDB
// answers success, and SADD replies 1 (a new token would re-run the
// condition against the SADD's own write and reply 0).
func TestAppliedThenConflictKeepsToken(t *testing.T) {
	needDB(t)
	for _, combine := range []bool{true, false} {
		k := t.Name() + ":" + randomHex(3)
		// Binary attributes travel base64-encoded: the key's pk marks the
		// transactions of this test.
		l := &lostThenConflict{marker: base64.StdEncoding.EncodeToString(model.PkValue(k))}
		// Member items: the fault is of transactions (smallset.go).
		c := faultyClient(t, l, func(o *Options) { o.DisableWriteCombining = !combine; o.DisableSmallSets = true })
		ctx := context.Background()
		n, err := c.SAdd(ctx, k, "m")
		require.NoError(t, err)
		require.EqualValues(t, 3, l.seen.Load(), "applied and lost, resent and cancelled, resent again")
		require.EqualValues(t, 1, n, "combining %v: the member was added by this SADD", combine)
		card, err := c.SCard(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, 1, card)
	}
}
