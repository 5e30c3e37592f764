package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fix: --endpoint without http:// ends the server at start with one line
// naming the URL to pass (not the SDK's "Failed to parse uri" later).
func TestEndpointWithoutScheme(t *testing.T) {
	var out strings.Builder
	code := run([]string{"--addr", "127.0.0.1:0", "--endpoint", "127.0.0.1:8000"}, &out)
	require.Equal(t, 1, code, out.String())
	require.Equal(t, "redimo-server: --endpoint 127.0.0.1:8000 has no scheme: pass --endpoint http://127.0.0.1:8000 (env REDIMO_ENDPOINT)\n", out.String())
}
