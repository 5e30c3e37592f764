package server_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func goRedis(tb testing.TB, addr string, protocol int, password string) *redis.Client {
	// A read may wait long on a busy machine: go-redis's 3 s default
	// timed out a pipeline of 50 SADDs under make test.
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: protocol, Password: password, MaxRetries: -1, ReadTimeout: 30 * time.Second})
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}

// eachRESP runs test in RESP3 (go-redis's default) and RESP2, each a
// subtest with a go-redis client of a server on the run's table and a key
// prefix of its own starting with prefix.
func eachRESP(t *testing.T, prefix string, test func(t *testing.T, ctx context.Context, rdb *redis.Client, k string)) {
	ts := startServer(t, nil, server.Config{})
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			test(t, context.Background(), goRedis(t, ts.addr, proto, ""), prefix+randomHex(4)+":")
		})
	}
}

// TestGoRedis drives the server with go-redis in RESP3 (its default) and
// RESP2: commands, a pipeline, and concurrent clients.
func TestGoRedis(t *testing.T) {
	eachRESP(t, "goredis:", func(t *testing.T, ctx context.Context, rdb *redis.Client, k string) {
		require.Equal(t, "PONG", rdb.Ping(ctx).Val())
		require.Equal(t, int64(3), rdb.SAdd(ctx, k+"s", "a", "b", "c").Val())
		ms, err := rdb.SMembers(ctx, k+"s").Result()
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c"}, ms)
		require.True(t, rdb.SIsMember(ctx, k+"s", "a").Val())
		require.Equal(t, []bool{true, false}, rdb.SMIsMember(ctx, k+"s", "b", "z").Val())
		require.Equal(t, "set", rdb.Type(ctx, k+"s").Val())
		require.Equal(t, "none", rdb.Type(ctx, k+"none").Val())
		_, err = rdb.SRandMember(ctx, k+"none").Result()
		require.ErrorIs(t, err, redis.Nil)
		keys, cursor, err := rdb.SScan(ctx, k+"s", 0, "[ab]", 10).Result()
		require.NoError(t, err)
		require.Equal(t, uint64(0), cursor)
		require.Equal(t, []string{"a", "b"}, keys)
		var all []string
		for it := rdb.SScan(ctx, k+"s", 0, "", 1).Iterator(); it.Next(ctx); {
			all = append(all, it.Val())
		}
		require.Equal(t, []string{"a", "b", "c"}, all)
		require.Equal(t, int64(3), rdb.SInterCard(ctx, 0, k+"s", k+"s").Val())
		err = rdb.Do(ctx, "NOSUCH", "x").Err()
		require.EqualError(t, err, "ERR unknown command 'NOSUCH', with args beginning with: 'x' ")
		name, err := rdb.ClientGetName(ctx).Result()
		require.ErrorIs(t, err, redis.Nil, name)

		// A pipeline: 100 commands in one write, replies in order.
		cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 50 {
				p.SAdd(ctx, k+"p", fmt.Sprint(i))
				p.SCard(ctx, k+"p")
			}
			return nil
		})
		require.NoError(t, err)
		for i := range 50 {
			require.Equal(t, int64(1), cmds[2*i].(*redis.IntCmd).Val())
			require.Equal(t, int64(i+1), cmds[2*i+1].(*redis.IntCmd).Val())
		}
		require.Equal(t, int64(2), rdb.Del(ctx, k+"s", k+"p", k+"none").Val())
	})
}

// TestConcurrentClients runs 16 connections adding to one set and to
// their own at the same time.
func TestConcurrentClients(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	k := "conc:" + randomHex(4) + ":"
	const clients, each = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rdb := redis.NewClient(&redis.Options{Addr: ts.addr, PoolSize: 1})
			defer rdb.Close()
			for i := range each {
				m := fmt.Sprintf("%d-%d", c, i)
				if err := rdb.SAdd(ctx, k+"shared", m).Err(); err != nil {
					errs <- err
				}
				if err := rdb.SAdd(ctx, fmt.Sprintf("%sown%d", k, c), m).Err(); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	rdb := goRedis(t, ts.addr, 3, "")
	require.Equal(t, int64(clients*each), rdb.SCard(ctx, k+"shared").Val())
	for c := range clients {
		require.Equal(t, int64(each), rdb.SCard(ctx, fmt.Sprintf("%sown%d", k, c)).Val())
	}
	info := rdb.Info(ctx, "stats").Val()
	require.Contains(t, info, "total_connections_received:")
}

// TestPipelineRaw writes 200 commands in one write and reads the replies
// in order, then checks that a pipeline spanning writes works too.
func TestPipelineRaw(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	k := "pipe:" + randomHex(4)
	var batch []byte
	for i := range 100 {
		batch = append(batch, encode("SADD", k, fmt.Sprint(i))...)
		batch = append(batch, encode("SISMEMBER", k, fmt.Sprint(i))...)
	}
	c.send(batch)
	for range 100 {
		require.Equal(t, ":1\r\n", string(c.read()))
		require.Equal(t, ":1\r\n", string(c.read()))
	}
	half := encode("SCARD", k)
	c.send(half[:5])
	time.Sleep(20 * time.Millisecond)
	c.send(append(half[5:], []byte("SCARD "+k+"\r\n")...))
	require.Equal(t, ":100\r\n", string(c.read()))
	require.Equal(t, ":100\r\n", string(c.read()))
	require.Equal(t, ":1\r\n", c.do("DEL", k))
}

// TestAuth: with a password, every command but AUTH, HELLO and QUIT is
// refused until the client authenticates, with Redis's errors.
func TestAuth(t *testing.T) {
	ts := startServer(t, nil, server.Config{Password: "s3cret"})
	c := dial(t, ts.addr)
	noauth := "-NOAUTH Authentication required.\r\n"
	require.Equal(t, noauth, c.do("PING"))
	require.Equal(t, noauth, c.do("SADD", "k", "a"))
	require.Equal(t, noauth, c.do("CLIENT", "SETNAME", "x"))
	require.Equal(t, "-ERR unknown command 'FOO', with args beginning with: \r\n", c.do("FOO"))
	require.Equal(t, "-ERR wrong number of arguments for 'sadd' command\r\n", c.do("SADD"))
	require.Equal(t, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n", c.do("HELLO", "3"))
	wrongpass := "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
	require.Equal(t, wrongpass, c.do("AUTH", "wrong"))
	require.Equal(t, wrongpass, c.do("AUTH", "nobody", "s3cret"))
	require.Equal(t, wrongpass, c.do("HELLO", "3", "AUTH", "default", "wrong"))
	require.Equal(t, noauth, c.do("PING"))
	// Unauthenticated clients get Redis's smaller limits.
	c.send([]byte("*11\r\n"))
	require.Equal(t, "-ERR Protocol error: unauthenticated multibulk length\r\n", c.readAll())

	c = dial(t, ts.addr)
	require.Equal(t, "+OK\r\n", c.do("AUTH", "s3cret"))
	require.Equal(t, "+PONG\r\n", c.do("PING"))
	require.Equal(t, wrongpass, c.do("AUTH", "wrong")) // and stays authenticated
	require.Equal(t, "+PONG\r\n", c.do("PING"))

	c = dial(t, ts.addr)
	require.Contains(t, c.do("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "me"), "%7\r\n$6\r\nserver")
	require.Equal(t, "$2\r\nme\r\n", c.do("CLIENT", "GETNAME"))
	require.Equal(t, "+OK\r\n", c.do("QUIT"))

	// AUTH pipelined with a big command: read one at a time until
	// authenticated, so the big argument is not held to the limit.
	c = dial(t, ts.addr)
	c.send(append(encode("AUTH", "s3cret"), encode("ECHO", strings.Repeat("x", 20000))...))
	require.Equal(t, "+OK\r\n", string(c.read()))
	require.Equal(t, 20000+len("$20000\r\n\r\n"), len(c.read()))

	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		require.Equal(t, "PONG", goRedis(t, ts.addr, proto, "s3cret").Ping(ctx).Val())
		require.ErrorContains(t, goRedis(t, ts.addr, proto, "wrong").Ping(ctx).Err(), "WRONGPASS")
	}
}

// TestDisconnectCompletes: a client that disconnects while its command
// runs does not cancel it: the command runs to its end (its reply is
// dropped), and the commands pipelined behind it are not run.
func TestDisconnectCompletes(t *testing.T) {
	needDB(t)
	g := newGate(testDB)
	ts := startServer(t, g, server.Config{})
	c := dial(t, ts.addr)
	k := "slow:" + randomHex(4)
	c.send(append(encode("SCARD", k), encode("SADD", k, "a")...))
	<-g.entered
	c.nc.Close()
	time.Sleep(200 * time.Millisecond) // the server sees the disconnect
	require.Equal(t, 0, g.cancelledCalls(), "the disconnect cancelled the command")
	close(g.release)
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, 0, g.cancelledCalls())
	// The SADD read ahead behind it did not run: the disconnect was seen
	// while the SCARD ran, and did not cut it short.
	require.Equal(t, ":0\r\n", dial(t, ts.addr).do("EXISTS", k))
}

// TestCommandTimeout: Config.CommandTimeout bounds a started command (it
// is cancelled, with an error reply), but not a blocking command's wait,
// which its own timeout bounds: a BZPOPMIN with timeout 0 is still served
// after it.
func TestCommandTimeout(t *testing.T) {
	needDB(t)
	g := newGate(testDB)
	ts := startServer(t, g, server.Config{CommandTimeout: 200 * time.Millisecond})
	c := dial(t, ts.addr)
	require.Equal(t, "-ERR command cancelled: context deadline exceeded\r\n", c.do("SCARD", "slow:"+randomHex(4)))
	require.Equal(t, 1, g.cancelledCalls())

	k := "timeout:" + randomHex(4)
	waiter := dial(t, ts.addr)
	waiter.send(encode("BZPOPMIN", k, "0"))
	time.Sleep(500 * time.Millisecond)
	// Another Client's ZADD, not bounded by the server's CommandTimeout.
	other := redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = testTable })
	_, err := other.ZAdd(context.Background(), k, redimo.Z{Score: 1, Member: "m"})
	require.NoError(t, err)
	require.Equal(t, "*3\r\n$"+fmt.Sprint(len(k))+"\r\n"+k+"\r\n$1\r\nm\r\n$1\r\n1\r\n", string(waiter.read()))
}

// TestGracefulShutdown: Shutdown waits for the command in flight, which
// replies; new connections are refused; a Shutdown whose context ends
// cancels what still runs.
func TestGracefulShutdown(t *testing.T) {
	needDB(t)
	g := newGate(testDB)
	ts := startServer(t, g, server.Config{})
	busy, idle := dial(t, ts.addr), dial(t, ts.addr)
	require.Equal(t, "+PONG\r\n", idle.do("PING"))
	busy.send(encode("SCARD", "slow:"+randomHex(4)))
	<-g.entered
	shut := make(chan error, 1)
	go func() { shut <- ts.Shutdown(context.Background()) }()
	require.Equal(t, "", idle.readAll()) // the idle connection is closed at once
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a command in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	_, err := net.DialTimeout("tcp", ts.addr, time.Second)
	require.Error(t, err, "the listener is closed")
	close(g.release)
	require.Equal(t, ":0\r\n", string(busy.read()))
	require.Equal(t, "", busy.readAll())
	require.NoError(t, <-shut)
	require.Equal(t, 0, g.cancelledCalls())

	g = newGate(testDB)
	ts = startServer(t, g, server.Config{})
	busy = dial(t, ts.addr)
	busy.send(encode("SCARD", "slow:"+randomHex(4)))
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, ts.Shutdown(ctx), context.DeadlineExceeded)
	require.Equal(t, 1, g.cancelledCalls())
}

// TestMaxClients refuses connections beyond MaxClients with Redis's error.
func TestMaxClients(t *testing.T) {
	ts := startServer(t, nil, server.Config{MaxClients: 1})
	c := dial(t, ts.addr)
	require.Equal(t, "+PONG\r\n", c.do("PING"))
	require.Equal(t, "-ERR max number of clients reached\r\n", dial(t, ts.addr).readAll())
}

// TestClientCommands covers CLIENT, COMMAND, INFO and CONFIG replies that
// differ from Redis's by nature (ids, addresses, the command table).
func TestClientCommands(t *testing.T) {
	ts := startServer(t, nil, server.Config{Info: [][2]string{{"table", "t1"}}, Port: 1234})
	c := dial(t, ts.addr)
	require.Regexp(t, `^:\d+\r\n$`, c.do("CLIENT", "ID"))
	require.Equal(t, "+OK\r\n", c.do("CLIENT", "SETINFO", "LIB-NAME", "go-redis(x)"))
	require.Equal(t, "-ERR Unrecognized option 'foo'\r\n", c.do("CLIENT", "SETINFO", "foo", "x"))
	require.Regexp(t, `^\$\d+\r\nid=\d+ addr=127.0.0.1:\d+ laddr=127.0.0.1:\d+ .* cmd=client\|info .*resp=2 lib-name=go-redis\(x\) lib-ver=\n\r\n$`, c.do("CLIENT", "INFO"))
	require.Contains(t, c.do("CLIENT", "LIST"), "cmd=client|list")
	count := c.do("COMMAND", "COUNT")
	require.Regexp(t, `^:\d+\r\n$`, count)
	require.Contains(t, c.do("COMMAND", "INFO", "sadd", "nosuch", "client|id"),
		"*10\r\n$4\r\nsadd\r\n:-3\r\n*3\r\n+write\r\n+denyoom\r\n+fast\r\n:1\r\n:1\r\n:1\r\n")
	require.Contains(t, c.do("COMMAND", "DOCS", "sadd"), "$4\r\nsadd\r\n*6\r\n$7\r\nsummary\r\n")
	require.Contains(t, c.do("COMMAND"), "$5\r\nsmove\r\n:4\r\n")
	require.Contains(t, c.do("COMMAND", "LIST"), "$6\r\nsinter\r\n")
	info := c.do("INFO")
	for _, want := range []string{"# Server\r\nredis_version:7.0.15\r\n", "tcp_port:1234\r\n", "# Clients\r\nconnected_clients:1\r\n", "# Redimo\r\ntable:t1\r\n"} {
		require.Contains(t, info, want)
	}
	require.NotContains(t, c.do("INFO", "server"), "# Clients")
	require.NotContains(t, info, "# Commandstats", "only when asked for, as in Redis")
	require.Regexp(t, `# Commandstats\r\n(cmdstat_\S+\r\n)*cmdstat_client\|id:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=0,failed_calls=0,dynamodb_requests=0,rcu=0,wcu=0,conflicts=0,retries=0\r\n`,
		c.do("INFO", "commandstats"))
	c.do("SADD", "k")
	require.Contains(t, c.do("INFO", "all"), "cmdstat_sadd:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0,")
	require.Equal(t, "*4\r\n$10\r\nappendonly\r\n$2\r\nno\r\n$4\r\nsave\r\n$0\r\n\r\n", c.do("CONFIG", "GET", "save", "append*"))
	require.Regexp(t, `^\*2\r\n\$10\r\n\d{10}\r\n\$\d+\r\n\d+\r\n$`, c.do("TIME"))
	require.Contains(t, c.do("HELLO", "3"), "%7\r\n")
	require.Regexp(t, `^=\d+\r\ntxt:id=`, c.do("CLIENT", "INFO"))
	require.Equal(t, "%1\r\n$4\r\nsave\r\n$0\r\n\r\n", c.do("CONFIG", "GET", "save"))
}

// TestRedisCLI drives the server with the real redis-cli and compares its
// output with redis-cli's against the reference redis-server.
func TestRedisCLI(t *testing.T) {
	cli := needBinary(t, "redis-cli")
	ts := startServer(t, nil, server.Config{})
	k := "cli:" + randomHex(4) + ":"
	run := func(addr string, stdin string, args ...string) string {
		host, port, _ := net.SplitHostPort(addr)
		cmd := exec.Command(cli, append([]string{"-h", host, "-p", port}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	redimo := func(args ...string) string { return run(ts.addr, "", args...) }
	require.Equal(t, "(integer) 3\n", redimo("--no-raw", "SADD", k+"s", "a", "b", `x"y`))
	require.Equal(t, "1) \"a\"\n2) \"b\"\n3) \"x\\\"y\"\n", redimo("--no-raw", "SMEMBERS", k+"s"))
	require.Equal(t, "1~ \"a\"\n2~ \"b\"\n3~ \"x\\\"y\"\n", redimo("-3", "--no-raw", "SMEMBERS", k+"s"))
	require.Equal(t, "a\nb\nx\"y\n", redimo("SMEMBERS", k+"s"))
	require.Equal(t, "(nil)\n", redimo("--no-raw", "SRANDMEMBER", k+"none"))
	require.Equal(t, "PONG\n", redimo("PING"))
	require.Contains(t, redimo("INFO", "server"), "redis_version:7.0.15")
	// Commands on stdin, one a line, pipelined by redis-cli.
	require.Equal(t, "1\n1\n0\n", run(ts.addr, "SISMEMBER "+k+"s a\nSISMEMBER "+k+"s b\nSISMEMBER "+k+"s z\n"))

	// Mass insertion: redis-cli --pipe writes every command, then waits
	// for the replies (it ends with an ECHO of random bytes).
	var in strings.Builder
	for i := range 300 {
		in.Write(encode("SADD", k+"mass", fmt.Sprint(i)))
	}
	out := run(ts.addr, in.String(), "--pipe")
	require.Contains(t, out, "errors: 0, replies: 300", out)
	require.Equal(t, "300\n", redimo("SCARD", k+"mass"))

	if redisAddr == "" {
		return
	}
	for _, args := range [][]string{
		{"--no-raw", "SADD", k + "d", "a", "b"},
		{"--no-raw", "SCARD", k + "d"},
		{"--no-raw", "SSCAN", k + "d", "0", "MATCH", "a"},
		{"--no-raw", "SMISMEMBER", k + "d", "a", "z"},
		{"--no-raw", "SINTER", k + "none"},
		{"-3", "--no-raw", "SINTER", k + "none"},
		{"--no-raw", "FOO", "bar"},
		{"--no-raw", "SADD", k + "d"},
		{"-3", "--no-raw", "SPOP", k + "none"},
		{"-3", "--no-raw", "SPOP", k + "none", "2"},
		{"--no-raw", "SPOP", k + "d", "-1"},
		{"--no-raw", "CLIENT", "GETNAME"},
		{"--no-raw", "TYPE", k + "d"},
		{"--no-raw", "ZADD", k + "z", "1.5", "a", "0.1", "b", "-inf", "c"},
		{"--no-raw", "ZRANGE", k + "z", "0", "-1", "WITHSCORES"},
		{"-3", "--no-raw", "ZRANGE", k + "z", "0", "-1", "WITHSCORES"},
		{"-3", "--no-raw", "ZSCORE", k + "z", "b"},
		{"--no-raw", "ZSCORE", k + "z", "b"},
		{"-3", "--no-raw", "ZPOPMIN", k + "z"},
		{"-3", "--no-raw", "ZPOPMIN", k + "z", "1"},
		{"--no-raw", "ZRANGEBYSCORE", k + "z", "x", "1"},
		{"--no-raw", "SADD", k + "z", "x"},
		{"--no-raw", "DEL", k + "d", k + "none", k + "z"},
	} {
		require.Equal(t, run(redisAddr, "", args...), redimo(args...), "%v", args)
	}
}

// TestGoRedisSortedSets drives the sorted-set commands with go-redis in
// RESP3 and RESP2, including the replies that differ between them
// (doubles, [member, score] pairs) and ZRANK WITHSCORE (Redis 7.2).
func TestGoRedisSortedSets(t *testing.T) {
	eachRESP(t, "gozset:", func(t *testing.T, ctx context.Context, rdb *redis.Client, k string) {
		require.Equal(t, int64(3), rdb.ZAdd(ctx, k+"z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 0.1, Member: "b"},
			redis.Z{Score: math.Inf(1), Member: "c"}).Val())
		require.Equal(t, 0.1, rdb.ZScore(ctx, k+"z", "b").Val())
		require.Equal(t, []redis.Z{{Score: 0.1, Member: "b"}, {Score: 1, Member: "a"}, {Score: math.Inf(1), Member: "c"}},
			rdb.ZRangeWithScores(ctx, k+"z", 0, -1).Val())
		require.Equal(t, []string{"a", "b"}, rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k + "z", Start: "(10", Stop: "-inf", ByScore: true, Rev: true}).Val())
		require.Equal(t, 3.5, rdb.ZIncrBy(ctx, k+"z", 2.5, "a").Val())
		rs, err := rdb.ZRankWithScore(ctx, k+"z", "a").Result()
		require.NoError(t, err)
		require.Equal(t, redis.RankScore{Rank: 1, Score: 3.5}, rs)
		_, err = rdb.ZRankWithScore(ctx, k+"z", "nope").Result()
		require.ErrorIs(t, err, redis.Nil)
		_, err = rdb.ZScore(ctx, k+"z", "nope").Result()
		require.ErrorIs(t, err, redis.Nil)
		require.Equal(t, []float64{3.5, 0}, rdb.ZMScore(ctx, k+"z", "a", "nope").Val())
		require.Equal(t, int64(2), rdb.ZCount(ctx, k+"z", "0", "(inf").Val())
		require.Equal(t, []redis.Z{{Score: 0.1, Member: "b"}}, rdb.ZPopMin(ctx, k+"z").Val())
		require.Equal(t, []redis.Z{{Score: math.Inf(1), Member: "c"}, {Score: 3.5, Member: "a"}}, rdb.ZPopMax(ctx, k+"z", 5).Val())
		require.Equal(t, int64(0), rdb.Exists(ctx, k+"z").Val())
		rdb.ZAdd(ctx, k+"x", redis.Z{Score: 1, Member: "m"}, redis.Z{Score: 2, Member: "n"})
		rdb.SAdd(ctx, k+"s", "n", "o")
		require.Equal(t, []redis.Z{{Score: 1, Member: "m"}, {Score: 1, Member: "o"}, {Score: 3, Member: "n"}},
			rdb.ZUnionWithScores(ctx, redis.ZStore{Keys: []string{k + "x", k + "s"}}).Val())
		require.Equal(t, int64(1), rdb.ZInterStore(ctx, k+"d", &redis.ZStore{Keys: []string{k + "x", k + "s"}, Weights: []float64{2, 1}}).Val())
		require.Equal(t, []redis.Z{{Score: 5, Member: "n"}}, rdb.ZRangeWithScores(ctx, k+"d", 0, -1).Val())
		require.ErrorContains(t, rdb.SAdd(ctx, k+"d", "x").Err(), "WRONGTYPE")
		require.Equal(t, "zset", rdb.Type(ctx, k+"d").Val())
		cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 20 {
				p.ZAdd(ctx, k+"p", redis.Z{Score: float64(i), Member: fmt.Sprint(i)})
			}
			p.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: k + "p", Start: "(15", Stop: "+inf", ByScore: true})
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []redis.Z{{Score: 16, Member: "16"}, {Score: 17, Member: "17"}, {Score: 18, Member: "18"}, {Score: 19, Member: "19"}},
			cmds[20].(*redis.ZSliceCmd).Val())
		require.Equal(t, int64(4), rdb.Del(ctx, k+"x", k+"s", k+"d", k+"p").Val())
	})
}

// A blocked BZPOPMIN (timeout 0: forever) does not hold Shutdown until its
// deadline: the wait ends when Shutdown starts, with the timeout's reply
// (nil), and nothing is popped.
func TestShutdownEndsBlockedPops(t *testing.T) {
	needDB(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := server.New(server.Config{Client: redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = testTable })})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	c := dial(t, ln.Addr().String())
	k := "blocked:" + randomHex(4)
	c.send(encode("BZPOPMIN", k, "0"))
	time.Sleep(200 * time.Millisecond) // the pop is waiting
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx), "Shutdown returned at its deadline")
	require.Less(t, time.Since(start), 5*time.Second)
	require.ErrorIs(t, <-done, server.ErrServerClosed)
	require.Equal(t, "*-1\r\n", string(c.read()), "the timeout's reply")
	require.Equal(t, "", c.readAll())
}
