package server_test

import (
	"io"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// TestIdleTimeout: with Config.IdleTimeout (Redis's timeout), a
// connection that neither sends a command nor has one running for that
// long is closed without a reply; one that keeps sending commands, or
// whose command runs longer than the timeout, is not. CONFIG GET timeout
// reports it in seconds, and 0 (the default) closes nothing.
func TestIdleTimeout(t *testing.T) {
	needDB(t)
	const timeout = time.Second
	g := newGate(testDB)
	ts := startServer(t, g, server.Config{IdleTimeout: timeout})
	idle, silent, busy, slow, trickle := dial(t, ts.addr), dial(t, ts.addr), dial(t, ts.addr), dial(t, ts.addr), dial(t, ts.addr)
	require.Equal(t, "+PONG\r\n", idle.do("PING"))
	start := time.Now()
	slow.send(encode("SCARD", "slow:"+randomHex(4)))
	<-g.entered

	// busy sends a command every fifth of the timeout, for 2 timeouts;
	// trickle sends one command in pieces, as slowly.
	ping := encode("PING")
	for i := range 10 {
		require.Equal(t, "+PONG\r\n", busy.do("PING"))
		trickle.send(ping[i*len(ping)/11 : (i+1)*len(ping)/11])
		time.Sleep(timeout / 5)
	}
	requireClosed(t, idle, "the idle connection is closed, without a reply")
	requireClosed(t, silent, "so is the one that never sent anything")
	require.Equal(t, "+PONG\r\n", busy.do("PING"), "the busy connection is open")
	trickle.send(ping[10*len(ping)/11:])
	require.Equal(t, "+PONG\r\n", string(trickle.read()), "so is the one sending a command slowly")
	require.Greater(t, time.Since(start), 2*timeout)
	close(g.release) // slow's command ran 2 timeouts: its connection is open and gets the reply
	require.Equal(t, ":0\r\n", string(slow.read()))
	replied := time.Now()
	requireClosed(t, slow, "then, idle, it is closed too")
	closed := time.Since(replied)
	require.GreaterOrEqual(t, closed, timeout-50*time.Millisecond, "not before the timeout")
	require.Less(t, closed, timeout+time.Second, "nor long after it")
	t.Logf("an idle connection was closed %v after its last reply (timeout %v)", closed.Round(time.Millisecond), timeout)

	ts = startServer(t, nil, server.Config{IdleTimeout: 7 * time.Second})
	require.Equal(t, "*2\r\n$7\r\ntimeout\r\n$1\r\n7\r\n", dial(t, ts.addr).do("CONFIG", "GET", "timeout"))
	ts = startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	require.Equal(t, "*2\r\n$7\r\ntimeout\r\n$1\r\n0\r\n", c.do("CONFIG", "GET", "timeout"))
	time.Sleep(timeout + 200*time.Millisecond)
	require.Equal(t, "+PONG\r\n", c.do("PING"), "without a timeout, an idle connection stays open")
}

// requireClosed checks that the server closes c within 3 seconds, without
// sending anything.
func requireClosed(t *testing.T, c *client, msg string) {
	t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, err := c.nc.Read(make([]byte, 64))
	require.Zero(t, n, msg)
	require.ErrorIs(t, err, io.EOF, msg)
}
