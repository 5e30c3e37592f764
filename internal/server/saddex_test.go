package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// TestSAddEx812 is Redis 8.12's SADDEX through the wire: the issue's
// done-when script, the other options, and bad input answered with Redis
// 8.12's error texts with nothing written. No redis-server here has
// SADDEX (7.0.15): the replies are those of Redis 8.12's command
// definition (src/commands/saddex.json: 1 when the members were added or
// updated, 0 when MNX or MXX did not hold) and its tests
// (tests/unit/type/set-member-expire.tcl), which are what redis.io's page
// is generated from.
func TestSAddEx812(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	k := "saddex:" + randomHex(4)
	pttl := func(member string) int64 {
		t.Helper()
		raw := c.do("SPTTL", k, "MEMBERS", "1", member)
		var n int64
		_, err := fmt.Sscanf(raw, "*1\r\n:%d\r\n", &n)
		require.NoError(t, err, raw)
		return n
	}
	members := func() string { return sorted(c.do("SMEMBERS", k), 2) }

	// The done-when checks.
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "EX", "100", "MEMBERS", "2", "a", "b"))
	for _, m := range []string{"a", "b"} {
		n := pttl(m)
		require.True(t, n > 95_000 && n <= 100_000, "%s: pttl %d", m, n)
	}
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "KEEPTTL", "MEMBERS", "1", "a"))
	n := pttl("a")
	require.True(t, n > 95_000 && n <= 100_000, "a keeps its TTL: pttl %d", n)
	require.Equal(t, ":0\r\n", c.do("SADDEX", k, "MNX", "EX", "5", "MEMBERS", "2", "a", "c"))
	require.Equal(t, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", members(), "nothing added: a exists")
	require.True(t, pttl("a") > 90_000, "a's TTL unchanged by the refused MNX")

	// MNX with none there; MXX with one missing, then with all there.
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "MNX", "PX", "50000", "MEMBERS", "2", "c", "d"))
	require.True(t, pttl("c") > 45_000 && pttl("c") <= 50_000)
	require.Equal(t, ":0\r\n", c.do("SADDEX", k, "MXX", "EX", "7", "MEMBERS", "2", "a", "nosuch"))
	require.Equal(t, ":0\r\n", c.do("SISMEMBER", k, "nosuch"))
	require.True(t, pttl("a") > 90_000, "the refused MXX changed nothing")
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "EX", "7", "MXX", "MEMBERS", "2", "a", "b")) // any order
	require.True(t, pttl("a") > 6_000 && pttl("a") <= 7_000)
	// MXX without an expiry removes it; MXX KEEPTTL keeps it.
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "MXX", "MEMBERS", "1", "a"))
	require.Equal(t, int64(-1), pttl("a"))
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "MEMBERS", "1", "b", "KEEPTTL", "MXX"))
	require.True(t, pttl("b") > 6_000)
	// No option: new members without an expiry, existing ones lose theirs.
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "MEMBERS", "2", "c", "e"))
	require.Equal(t, int64(-1), pttl("c"))
	require.Equal(t, int64(-1), pttl("e"))
	// EXAT and PXAT.
	at := time.Now().Add(time.Hour)
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "PXAT", strconv.FormatInt(at.UnixMilli(), 10), "MEMBERS", "1", "f"))
	require.Equal(t, fmt.Sprintf("*1\r\n:%d\r\n", at.UnixMilli()), c.do("SPEXPIRETIME", k, "MEMBERS", "1", "f"))
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "EXAT", strconv.FormatInt(at.Unix(), 10), "MEMBERS", "1", "f"))
	require.Equal(t, fmt.Sprintf("*1\r\n:%d\r\n", at.Unix()), c.do("SEXPIRETIME", k, "MEMBERS", "1", "f"))
	// A time not in the future deletes the members named and adds none;
	// MNX then only checks, MXX requires them all.
	require.Equal(t, ":0\r\n", c.do("SADDEX", k, "MXX", "PXAT", "1", "MEMBERS", "2", "e", "nosuch"))
	require.Equal(t, ":1\r\n", c.do("SISMEMBER", k, "e"))
	require.Equal(t, ":0\r\n", c.do("SADDEX", k, "MNX", "EX", "0", "MEMBERS", "2", "e", "nosuch"))
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "MNX", "EX", "0", "MEMBERS", "2", "x", "y"))
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "EX", "0", "MEMBERS", "2", "e", "new"))
	require.Equal(t, "*5\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\nf\r\n", members())
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "PXAT", "1", "MEMBERS", "5", "a", "b", "c", "d", "f"))
	require.Equal(t, ":0\r\n", c.do("EXISTS", k), "the last members deleted: the key is gone")
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "PXAT", "1", "MEMBERS", "1", "a"))
	require.Equal(t, ":0\r\n", c.do("EXISTS", k), "a missing key is not created")
	require.Equal(t, ":0\r\n", c.do("SADDEX", k, "MXX", "MEMBERS", "1", "a"), "MXX on a missing key")
	require.Equal(t, ":0\r\n", c.do("EXISTS", k))

	// Bad input: Redis 8.12's errors, nothing written.
	z := k + ":z"
	require.Equal(t, ":1\r\n", c.do("ZADD", z, "1", "m"))
	bad := []struct{ args, want string }{
		{"SADDEX {k} MEMBERS 1", "-ERR wrong number of arguments for 'saddex' command"},
		{"SADDEX {k} EX 100 MXX", "-ERR missing MEMBERS argument"},
		{"SADDEX {k} MEMBERS 0 a", "-ERR invalid number of members"},
		{"SADDEX {k} MEMBERS -1 a", "-ERR invalid number of members"},
		{"SADDEX {k} MEMBERS x a", "-ERR invalid number of members"},
		{"SADDEX {k} MEMBERS 3 a b", "-ERR wrong number of arguments"},
		{"SADDEX {k} MEMBERS 1 a c", "-ERR unknown argument: c"},
		{"SADDEX {k} MEMBERS 1 a MEMBERS 1 b", "-ERR MEMBERS keyword specified multiple times"},
		{"SADDEX {k} BAD MEMBERS 1 a", "-ERR unknown argument: BAD"},
		{"SADDEX {k} MXX MNX MEMBERS 1 a", "-ERR Only one of MXX or MNX arguments can be specified"},
		{"SADDEX {k} MNX MNX MEMBERS 1 a", "-ERR Only one of MXX or MNX arguments can be specified"},
		{"SADDEX {k} EX 100 PX 100 MEMBERS 1 a", "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"},
		{"SADDEX {k} EX 100 KEEPTTL MEMBERS 1 a", "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"},
		{"SADDEX {k} KEEPTTL EXAT 100 MEMBERS 1 a", "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"},
		{"SADDEX {k} MEMBERS 1 a EX", "-ERR missing expire time"},
		{"SADDEX {k} EX -1 MEMBERS 1 a", "-ERR invalid expire time, must be >= 0"},
		{"SADDEX {k} PXAT -1 MEMBERS 1 a", "-ERR invalid expire time, must be >= 0"},
		{"SADDEX {k} EX notanumber MEMBERS 1 a", "-ERR value is not an integer or out of range"},
		{"SADDEX {k} EX 1.5 MEMBERS 1 a", "-ERR value is not an integer or out of range"},
		{fmt.Sprintf("SADDEX {k} EX %d MEMBERS 1 a", (int64(1)<<48)/1000), "-ERR invalid expire time in 'saddex' command"},
		{fmt.Sprintf("SADDEX {k} PX %d MEMBERS 1 a", int64(1)<<48), "-ERR invalid expire time in 'saddex' command"},
		{"SADDEX {k} FNX MEMBERS 1 a", "-ERR unknown argument: FNX"},
		{"SADDEX {z} EX 10 MEMBERS 1 a", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"SADDEX {z} MXX MEMBERS 1 a", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	}
	for _, b := range bad {
		args := strings.Fields(strings.NewReplacer("{k}", k, "{z}", z).Replace(b.args))
		require.Equal(t, b.want+"\r\n", c.do(args...), b.args)
	}
	// MNX and MXX beyond one transaction (99 members): refused, nothing written.
	many := append([]string{"SADDEX", k, "MNX", "MEMBERS", "100"}, strings.Fields(ints(1, 100))...)
	require.True(t, strings.HasPrefix(c.do(many...), "-ERR redimo: transaction too big"), "100 members with MNX")
	require.Equal(t, ":0\r\n", c.do("EXISTS", k), "nothing written")
	require.Equal(t, ":1\r\n", c.do("ZCARD", z))

	// Dragonfly's form is still served: the third argument (fourth after
	// KEEPTTL) is an integer, which 8.12's form never has there.
	require.Equal(t, ":2\r\n", c.do("SADDEX", k, "100", "a", "b"))
	require.Equal(t, ":1\r\n", c.do("SADDEX", k, "KEEPTTL", "300", "a", "MEMBERS"))
	n = pttl("a")
	require.True(t, n > 95_000 && n <= 100_000, "pttl %d", n)
	n = pttl("MEMBERS")
	require.True(t, n > 295_000 && n <= 300_000, "pttl %d", n)
	require.Equal(t, "-ERR invalid expire time in 'saddex' command\r\n", c.do("SADDEX", k, "0", "a"))
	require.Equal(t, "-ERR wrong number of arguments for 'saddex' command\r\n", c.do("SADDEX", k, "KEEPTTL", "10"))

	// Inside MULTI: queued, and answered at EXEC seeing the earlier writes.
	k2 := k + ":tx"
	require.Equal(t, "+OK\r\n", c.do("MULTI"))
	for _, args := range [][]string{
		{"SADDEX", k2, "EX", "100", "MEMBERS", "2", "a", "b"},
		{"SADDEX", k2, "MNX", "EX", "5", "MEMBERS", "2", "a", "c"},
		{"SADDEX", k2, "MXX", "KEEPTTL", "MEMBERS", "2", "a", "b"},
		{"SADDEX", k2, "MXX", "MEMBERS", "1", "b"},
		{"SADDEX", k2, "EX", "0", "MEMBERS", "1", "a"},
		{"SCARD", k2},
		{"SADDEX", k2, "MEMBERS", "0", "a"},
	} {
		require.Equal(t, "+QUEUED\r\n", c.do(args...), args)
	}
	require.Equal(t, "*7\r\n:1\r\n:0\r\n:1\r\n:1\r\n:1\r\n:1\r\n-ERR invalid number of members\r\n", c.do("EXEC"))
	require.Equal(t, "*1\r\n$1\r\nb\r\n", c.do("SMEMBERS", k2))
	require.Equal(t, "*1\r\n:-1\r\n", c.do("SPTTL", k2, "MEMBERS", "1", "b"))

	// COMMAND INFO and COMMAND DOCS.
	info := c.do("COMMAND", "INFO", "saddex")
	require.True(t, strings.HasPrefix(info, "*1\r\n*10\r\n$6\r\nsaddex\r\n:-4\r\n"), info)
	require.Contains(t, c.do("COMMAND", "DOCS", "saddex"), "optionally sets their expiration")
}
