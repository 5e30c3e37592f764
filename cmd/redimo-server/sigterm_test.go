package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// binary is the redimo-server program running in a process of its own.
type binary struct {
	cmd  *exec.Cmd
	addr string
	exit chan error // Wait's result
	mu   sync.Mutex
	log  strings.Builder
}

func (b *binary) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.Write(p)
}

func (b *binary) logs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.String()
}

// startBinary builds and starts redimo-server on a free port over a fresh
// table at endpoint, and waits until it listens.
func startBinary(t *testing.T, endpoint, table string, args ...string) *binary {
	t.Helper()
	b := &binary{addr: testenv.FreeAddr(), exit: make(chan error, 1)}
	b.cmd = exec.Command(testenv.BuildServer(t), append([]string{"--addr", b.addr, "--endpoint", endpoint, "--table", table, "--create-table"}, args...)...)
	b.cmd.Stdout, b.cmd.Stderr = b, b
	require.NoError(t, b.cmd.Start())
	go func() { b.exit <- b.cmd.Wait() }()
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	require.True(t, testenv.WaitListening(b.addr, time.Minute), "redimo-server does not listen:\n%s", b.logs())
	return b
}

// pending is a command sent on a connection of its own, and its reply
// once it comes.
type pending struct {
	nc    net.Conn
	reply chan []byte // nil: the connection ended without one
	at    time.Time   // when the reply came
}

// send sends args on a new connection and reads its reply meanwhile.
func send(t *testing.T, addr string, args ...string) *pending {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	p := &pending{nc: nc, reply: make(chan []byte, 1)}
	_, err = nc.Write(resp.Append(nil, resp.Strings(args), 2))
	require.NoError(t, err)
	go func() {
		_ = nc.SetReadDeadline(time.Now().Add(2 * time.Minute))
		raw, _, err := resp.NewReader(bufio.NewReader(nc)).ReadRawReply()
		if err != nil {
			raw = nil
		}
		p.at = time.Now()
		p.reply <- raw
	}()
	return p
}

// replied reports whether the reply has come, without waiting.
func (p *pending) replied() bool { return len(p.reply) > 0 }

// wait returns the reply ("" when the connection ended without one).
func (p *pending) wait(t *testing.T) string {
	t.Helper()
	select {
	case raw := <-p.reply:
		return string(raw)
	case <-time.After(2 * time.Minute):
		t.Fatal("no reply in 2 minutes")
		return ""
	}
}

// TestBinaryFinishesCommands runs the redimo-server program against
// DynamoDB Local and cuts commands that take several DynamoDB writes
// (everyday: SUNIONSTORE of two 1,000-member sets, SADD of 1,500
// members; the full suite 10,000 each) short:
//
//   - the client closes its socket mid-command: the command still
//     completes (a fresh Client sees it whole within a minute);
//   - SIGTERM comes mid-command: the client gets the command's full reply,
//     the program exits 0, and a fresh Client sees the command whole. A
//     BZPOPMIN blocked at SIGTERM replies nil, or a member if a ZADD sent
//     at SIGTERM reached it first; no member of that ZADD is lost either
//     way.
func TestBinaryFinishesCommands(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	n := testenv.Budget(1000, 10000)
	bulk := testenv.Budget(1500, 10000)
	table := "redimo_sigterm_test_" + testenv.RandomHex(4)
	srv := startBinary(t, endpoint, table)
	ctx := context.Background()
	fresh := func() *redimo.Client {
		return redimo.NewClient(local.Client(endpoint, nil), func(o *redimo.Options) { o.TableName = table })
	}
	numbered := func(prefix string, from, to int) []string {
		var ms []string
		for i := from; i < to; i++ {
			ms = append(ms, fmt.Sprintf("%s%06d", prefix, i))
		}
		return ms
	}
	a, b := numbered("m", 0, n), numbered("m", n/2, n+n/2)
	union := numbered("m", 0, n+n/2)
	big := numbered("b", 0, bulk)
	c := fresh()
	_, err := c.SAdd(ctx, "a", a...)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, "b", b...)
	require.NoError(t, err)
	// whole fails unless key holds exactly want (sorted).
	whole := func(key string, want []string) {
		t.Helper()
		c := fresh()
		got, err := c.SMembers(ctx, key)
		require.NoError(t, err)
		card, err := c.SCard(ctx, key)
		require.NoError(t, err)
		require.EqualValues(t, len(got), card, "%s: the count equals the members", key)
		require.Equal(t, want, got, key)
	}
	scard := func(key string) int64 {
		n, err := fresh().SCard(ctx, key)
		require.NoError(t, err)
		return n
	}

	t.Run("disconnect", func(t *testing.T) {
		for _, cmd := range [][]string{
			{"SUNIONSTORE", "u1", "a", "b"},
			append([]string{"SADD", "big1"}, big...),
		} {
			key, want := cmd[1], union
			if cmd[0] == "SADD" {
				want = big
			}
			p := send(t, srv.addr, cmd...)
			time.Sleep(300 * time.Millisecond)
			require.False(t, p.replied(), "%s finished before the client left", cmd[0])
			require.NotEqual(t, int64(len(want)), scard(key), "%s is whole before the client left", cmd[0])
			p.nc.Close()
			left := time.Now()
			require.Eventually(t, func() bool { return scard(key) == int64(len(want)) }, time.Minute, 50*time.Millisecond,
				"%s, whose client left mid-command, did not complete", cmd[0])
			whole(key, want)
			t.Logf("%s completed %v after its client left", cmd[0], time.Since(left).Round(time.Millisecond))
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		q := numbered("q", 0, 150)
		zadd := []string{"ZADD", "q"}
		for i, m := range q {
			zadd = append(zadd, fmt.Sprint(i), m)
		}
		pop := send(t, srv.addr, "BZPOPMIN", "q", "0")
		store := send(t, srv.addr, "SUNIONSTORE", "u2", "a", "b")
		add := send(t, srv.addr, append([]string{"SADD", "big2"}, big...)...)
		time.Sleep(300 * time.Millisecond)
		require.False(t, store.replied() || add.replied() || pop.replied(), "a command finished before SIGTERM")
		feed := send(t, srv.addr, zadd...)
		term := time.Now()
		require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))

		require.Equal(t, fmt.Sprintf(":%d\r\n", len(union)), store.wait(t), "SUNIONSTORE's reply")
		require.Equal(t, fmt.Sprintf(":%d\r\n", len(big)), add.wait(t), "SADD's reply")
		require.True(t, store.at.After(term) && add.at.After(term))
		popped := pop.wait(t)
		fed := feed.wait(t) // "" when SIGTERM came before the ZADD was read
		select {
		case err := <-srv.exit:
			require.NoError(t, err, "exit status\n%s", srv.logs())
		case <-time.After(time.Minute):
			t.Fatalf("no exit a minute after SIGTERM\n%s", srv.logs())
		}
		exited := time.Since(term)
		require.Contains(t, srv.logs(), "msg=bye")
		whole("u2", union)
		whole("big2", big)

		// The ZADD and BZPOPMIN: every member is in q or was popped.
		left, err := fresh().ZRange(ctx, "q", 0, -1)
		require.NoError(t, err)
		switch {
		case fed == "":
			require.Empty(t, left, "a ZADD that got no reply wrote members")
			require.Equal(t, "*-1\r\n", popped)
		case popped == "*-1\r\n":
			require.Equal(t, ":150\r\n", fed)
			require.Equal(t, q, left, "BZPOPMIN replied nil, yet members are gone")
		default:
			require.Equal(t, ":150\r\n", fed)
			require.Equal(t, "*3\r\n$1\r\nq\r\n$7\r\nq000000\r\n$1\r\n0\r\n", popped)
			require.Equal(t, q[1:], left)
		}
		t.Logf("SUNIONSTORE replied %v, SADD %v after SIGTERM; BZPOPMIN replied %q, the ZADD %q; exit 0 %v after SIGTERM",
			store.at.Sub(term).Round(time.Millisecond), add.at.Sub(term).Round(time.Millisecond), popped, fed, exited.Round(time.Millisecond))
	})
}
