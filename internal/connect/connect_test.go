package connect

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/redimo-go/redimo"
	"github.com/stretchr/testify/require"
)

// Fix: an endpoint without a scheme is refused at once with the URL to
// pass, not with the SDK's "Failed to parse uri" at the first request.
func TestEndpointWithoutScheme(t *testing.T) {
	for _, e := range []string{"127.0.0.1:8000", "localhost:8000"} {
		f := Flags{Table: "t", Endpoint: e}
		_, _, err := f.Client(context.Background())
		require.Error(t, err, e)
		require.Equal(t, "--endpoint "+e+" has no scheme: pass --endpoint http://"+e+" (env REDIMO_ENDPOINT)", f.Explain(err))
	}
	f := Flags{Table: "t", Endpoint: "HTTP://127.0.0.1:8000"}
	_, _, err := f.Client(context.Background())
	require.NoError(t, err)
}

// Fix: an unreachable endpoint is told the fix for where it is: make
// ddb-local only for an endpoint on this machine, never for AWS.
func TestExplainUnreachable(t *testing.T) {
	err := &redimo.SetupError{Problem: redimo.ErrUnreachable, Table: "t",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	for _, tc := range []struct {
		endpoint string
		want     string
		local    bool
	}{
		{"", "check the network, a proxy (HTTPS_PROXY) and that the region", false},
		{"http://127.0.0.1:8000", "DynamoDB Local is running there", true},
		{"http://localhost:8000", "DynamoDB Local is running there", true},
		{"http://[::1]:8000", "DynamoDB Local is running there", true},
		{"https://dynamodb.internal.example:8000", "the network, and that DynamoDB Local or your", false},
	} {
		f := Flags{Table: "t", Endpoint: tc.endpoint}
		msg := f.Explain(err)
		require.Contains(t, msg, tc.want, tc.endpoint)
		require.Equal(t, tc.local, strings.Contains(msg, "make ddb-local"), "%s: %s", tc.endpoint, msg)
		if tc.endpoint == "" {
			require.NotContains(t, msg, "DynamoDB Local", msg)
		}
	}
}
