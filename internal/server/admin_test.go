package server_test

// CLIENT, COMMAND and CONFIG GET (admin.go) byte for byte against
// redis-server.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/stretchr/testify/require"
)

// CLIENT LIST ignored its arguments, listing every
// connection ("$252\r\nid=1 addr=..."); redis-server 7.0 filters and checks
// them: ID 999999 "$0\r\n\r\n", ID x "-ERR Invalid client ID\r\n", TYPE foo
// "-ERR Unknown client type 'foo'\r\n", TYPE / ID / FOO "-ERR syntax
// error\r\n". A client reading its own line (CLIENT LIST ID <id>) got all.
func TestServerClientListArguments(t *testing.T) {
	requireSameReplies(t, nil, "CLIENT LIST ID 999999", "CLIENT LIST ID x", "CLIENT LIST TYPE foo", "CLIENT LIST TYPE",
		"CLIENT LIST ID", "CLIENT LIST FOO")
}

// CLIENT LIST listed connections in random order (a map);
// redis-server lists them in the order they connected (ascending id),
// mostly: its clientsCron rotates the list now and then, so a busy
// redis-server listed "08 00 01 ... 07 09 ..." once. redimo-server lists
// by id always; only its order is checked.
func TestServerClientListOrder(t *testing.T) {
	ids := regexp.MustCompile(`(?m)^id=(\d+) .* name=client-(\d+) `)
	onBothServers(t, "order", func(addr, _ string) {
		if addr == redisAddr {
			return // the oracle's order is not a promise (above)
		}
		var first *client
		for i := range 16 {
			c := dial(t, addr)
			require.Equal(t, "+OK\r\n", c.do("CLIENT", "SETNAME", fmt.Sprintf("client-%02d", i)))
			if first == nil {
				first = c
			}
		}
		var names []string
		for _, m := range ids.FindAllStringSubmatch(first.do("CLIENT", "LIST"), -1) {
			names = append(names, m[2])
		}
		require.Len(t, names, 16)
		require.True(t, slices.IsSorted(names), "%s lists %v", addr, names)
	})
}

// COMMAND INFO of an unknown command: redis-server answers a
// null in the array ("*1\r\n$-1\r\n", RESP3 "*1\r\n_\r\n"), redimo-server
// answered a null array ("*1\r\n*-1\r\n").
func TestServerCommandInfoUnknown(t *testing.T) {
	requireSameReplies(t, nil, "COMMAND INFO nosuchcommand", "COMMAND INFO nosuch client|nosuch")
}

// COMMAND LIST ignored its arguments, listing every command
// ("*117\r\n$4\r\nauth\r\n..."); redis-server 7.0 answers "COMMAND LIST
// FILTERBY" and "... FILTERBY foo bar" "-ERR syntax error\r\n", and
// "... FILTERBY PATTERN zrangeby*" the names zrangebylex, zrangebyscore.
func TestServerCommandListFilterBy(t *testing.T) {
	ts := pairedServer(t)
	requireSameReplies(t, ts, "COMMAND LIST FILTERBY", "COMMAND LIST FILTERBY foo bar")
	for _, proto := range []int{2, 3} {
		want, got := repliesOfBoth(t, ts, proto, "COMMAND LIST FILTERBY PATTERN zrangeby*")
		require.Equal(t, sorted(want[0], proto), sorted(got[0], proto))
	}
}

// CONFIG GET DATABASES: redis-server 7.0 replies the name
// as asked ("*2\r\n$9\r\nDATABASES\r\n$2\r\n16\r\n"), redimo-server
// replied it lower-cased: a client reading the reply as a map missed it.
func TestServerConfigGetExactName(t *testing.T) {
	requireSameReplies(t, nil, "CONFIG GET DATABASES", "CONFIG GET MaxMemory")
}

// COMMAND INFO's entry in RESP3: redis-server 7.0 sends the
// tips, key specifications and subcommands (8th to 10th elements) as sets
// (for ZCARD "~0\r\n~1\r\n%3\r\n$5\r\nflags...~0\r\n"); redimo-server sent
// arrays ("*0\r\n*0\r\n*0\r\n"), another type to a RESP3 client decoding
// COMMAND (redis-cli, cluster clients reading key positions). The other
// elements' kinds were Redis's.
func TestServerCommandInfoResp3Kinds(t *testing.T) {
	ts := pairedServer(t)
	kinds := func(raw string) []resp.Kind {
		v, err := resp.NewReader(strings.NewReader(raw)).ReadReply()
		require.NoError(t, err)
		require.Len(t, v.Elems, 1)
		var out []resp.Kind
		for _, e := range v.Elems[0].Elems {
			out = append(out, e.Kind)
		}
		return out
	}
	for _, name := range []string{"zcard", "sadd"} {
		want, got := repliesOfBoth(t, ts, 3, "COMMAND INFO "+name)
		require.Equal(t, kinds(want[0]), kinds(got[0]), "COMMAND INFO %s: redis %q, redimo %q", name, want[0], got[0])
	}
}
