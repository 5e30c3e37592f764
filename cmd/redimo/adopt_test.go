package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fix: --help shows -no-raw with its text whole (a backquoted word in a
// flag's usage became its argument name: "-no-raw (integer) 2").
func TestCLIHelpNoRaw(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &out))
	require.Contains(t, out.String(), "  -no-raw\n    \tprint replies formatted, as (integer) 2 and 1) \"a\", even when stdout is not a terminal\n")
}

// Fix: help @sorted_set, redis-cli's name of the group, lists it.
func TestCLIHelpSortedSetGroup(t *testing.T) {
	for _, g := range []string{"@sorted_set", "@sorted-set", "@SORTED_SET"} {
		var out bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"help", g}, strings.NewReader(""), &out, &out))
		require.Contains(t, out.String(), "  ZADD ", g)
		require.NotContains(t, out.String(), "SADD ", g)
	}
}

// Fix: --endpoint without http:// is one line naming the URL to pass.
func TestCLIEndpointWithoutScheme(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", "127.0.0.1:8000", "SCARD", "k"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Equal(t, "redimo: --endpoint 127.0.0.1:8000 has no scheme: pass --endpoint http://127.0.0.1:8000 (env REDIMO_ENDPOINT)\n", stderr.String())
}
