package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// program is redimo-server's run, running in-process.
type program struct {
	addr string
	exit chan int // run's exit code
	logs chan []string
}

// start runs the program with args plus --addr 127.0.0.1:0 and waits
// until it listens.
func start(t *testing.T, args ...string) *program {
	t.Helper()
	logR, logW := io.Pipe()
	p := &program{exit: make(chan int, 1), logs: make(chan []string, 1)}
	go func() {
		p.exit <- run(append([]string{"--addr", "127.0.0.1:0"}, args...), logW)
		logW.Close()
	}()
	lines := bufio.NewScanner(logR)
	re := regexp.MustCompile(`msg="redimo-server listening" addr=(\S+)`)
	for p.addr == "" && lines.Scan() {
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			p.addr = m[1]
		}
	}
	require.NotEmpty(t, p.addr, "no listening line in the log")
	go func() {
		var rest []string
		for lines.Scan() {
			rest = append(rest, lines.Text())
		}
		p.logs <- rest
	}()
	return p
}

// holdingProxy is a reverse proxy to DynamoDB that adds latency to every
// request, and while hold is set holds every response before it goes back:
// commands stay in flight as long as a test needs.
type holdingProxy struct {
	*httptest.Server
	hold    atomic.Bool
	release chan struct{}
	held    atomic.Int64
	total   atomic.Int64
	once    sync.Once
}

// letGo stops holding and lets the held responses go.
func (p *holdingProxy) letGo() {
	p.once.Do(func() {
		p.hold.Store(false)
		close(p.release)
	})
}

func newHoldingProxy(t *testing.T, endpoint string, latency time.Duration) *holdingProxy {
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	p := &holdingProxy{release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.total.Add(1)
		time.Sleep(time.Duration(rand.Int64N(int64(latency))))
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		if p.hold.Load() {
			p.held.Add(1)
			<-p.release
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(func() { p.letGo(); p.Close() })
	return p
}

// sent is one command a load client sent: SADD or ZADD of members no
// other command uses, and its reply if one came.
type sent struct {
	args      []string
	key       string
	zset      bool
	members   []string
	reply     []byte // nil: no reply
	afterTerm bool   // the reply came after SIGTERM was sent
}

// TestShutdownUnderLoad: 16 clients send SADD and ZADD of 3 to 250
// members (several transactions for more than 99) to redimo-server, some
// two commands at a time, through a proxy that slows DynamoDB down. In the
// middle the proxy starts holding DynamoDB's responses, and SIGTERM comes
// once one is held; the test then waits for the listener to close before
// it lets them go. The program must stop accepting
// connections, let the commands in flight finish and reply, run nothing
// more, and exit 0 within the time the held commands need. On the table:
// every command that got a reply is there in full, with the reply's count;
// every command that did not is not there at all; and every key's count
// (SCARD, ZCARD) equals its members.
func TestShutdownUnderLoad(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	proxy := newHoldingProxy(t, endpoint, 20*time.Millisecond)
	table := "redimo_shutdown_test_" + strconv.Itoa(rand.IntN(1e9))
	p := start(t, "--endpoint", proxy.URL, "--table", table, "--create-table", "--shutdown-timeout", "30s")

	const clients = 16
	var (
		mu       sync.Mutex
		commands []*sent
		termSent atomic.Bool
		wg       sync.WaitGroup
	)
	sizes := []int{2, 5, 10, 20, 120}
	for c := range clients {
		nc, err := net.Dial("tcp", p.addr)
		require.NoError(t, err)
		defer nc.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := resp.NewReader(bufio.NewReader(nc))
			depth := 1 + c%2 // odd clients pipeline two commands
			for i := 0; ; i += depth {
				batch := make([]*sent, depth)
				var out []byte
				for j := range batch {
					s := &sent{key: fmt.Sprintf("c%d:%d", c, (i+j)%3), zset: (i+j)%2 == 1}
					n := sizes[rand.IntN(len(sizes))]
					s.args = []string{"SADD", s.key}
					if s.zset {
						s.key = "z" + s.key
						s.args = []string{"ZADD", s.key}
					}
					for k := range n {
						m := fmt.Sprintf("%d-%d", i+j, k)
						s.members = append(s.members, m)
						if s.zset {
							s.args = append(s.args, strconv.Itoa(k))
						}
						s.args = append(s.args, m)
					}
					batch[j] = s
					out = resp.Append(out, resp.Strings(s.args), 2)
				}
				mu.Lock()
				commands = append(commands, batch...)
				mu.Unlock()
				_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err := nc.Write(out); err != nil {
					return
				}
				for _, s := range batch {
					raw, _, err := r.ReadRawReply()
					if err != nil {
						return
					}
					mu.Lock()
					s.reply, s.afterTerm = raw, termSent.Load()
					mu.Unlock()
				}
			}
		}()
	}

	time.Sleep(time.Second) // load runs
	// Hold DynamoDB's responses, so that the commands waiting for them
	// cannot finish, and send SIGTERM once one is held.
	proxy.hold.Store(true)
	require.Eventually(t, func() bool { return proxy.held.Load() > 0 }, 10*time.Second, time.Millisecond, "no DynamoDB request in flight")
	termSent.Store(true)
	term := time.Now()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	// The listener closes while the commands in flight are held.
	require.Eventually(t, func() bool {
		nc, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err != nil {
			return true
		}
		nc.Close()
		return false
	}, 5*time.Second, 5*time.Millisecond, "the server still accepts connections after SIGTERM")
	refused := time.Since(term)
	select {
	case code := <-p.exit:
		t.Fatalf("exited (%d) while commands were held in flight", code)
	case <-time.After(100 * time.Millisecond):
	}
	held, proxied := proxy.held.Load(), proxy.total.Load()
	proxy.letGo()
	released := time.Since(term)
	select {
	case code := <-p.exit:
		require.Equal(t, 0, code)
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
	exited := time.Since(term)
	wg.Wait()
	logs := <-p.logs
	require.Contains(t, logs[len(logs)-1], "msg=bye")

	// The table, read directly.
	ctx := context.Background()
	db := redimo.NewClient(local.Client(endpoint, nil), func(o *redimo.Options) { o.TableName = table })
	var replied, unreplied, repliedAfter int
	present := map[string]map[string]bool{}
	for _, s := range commands {
		if present[s.key] == nil {
			var ms []string
			var err error
			if s.zset {
				ms, err = db.ZRange(ctx, s.key, 0, -1)
			} else {
				ms, err = db.SMembers(ctx, s.key)
			}
			require.NoError(t, err)
			var card int64
			if s.zset {
				card, err = db.ZCard(ctx, s.key)
			} else {
				card, err = db.SCard(ctx, s.key)
			}
			require.NoError(t, err)
			require.EqualValues(t, len(ms), card, "%s: the stored count equals the members", s.key)
			present[s.key] = map[string]bool{}
			for _, m := range ms {
				present[s.key][m] = true
			}
		}
		var in []string
		for _, m := range s.members {
			if present[s.key][m] {
				in = append(in, m)
			}
		}
		if s.reply == nil {
			unreplied++
			require.Zero(t, len(in), "%s %s (%d members) got no reply, yet %d of its members are stored", s.args[0], s.key, len(s.members), len(in))
			continue
		}
		replied++
		if s.afterTerm {
			repliedAfter++
		}
		require.Equal(t, fmt.Sprintf(":%d\r\n", len(s.members)), string(s.reply), "%s %s of %d new members", s.args[0], s.key, len(s.members))
		require.Len(t, in, len(s.members), "%s %s replied %q: every member is stored", s.args[0], s.key, s.reply)
	}
	require.Positive(t, repliedAfter, "commands in flight at SIGTERM finished and replied")
	require.True(t, slices.ContainsFunc(commands, func(s *sent) bool { return len(s.members) > 99 && s.reply != nil }), "some replied commands took several transactions")
	t.Logf("%d commands replied (%d of them after SIGTERM), %d sent but not run; %d DynamoDB requests, %d held at SIGTERM; listener closed %v after SIGTERM, exit 0 %v after SIGTERM (%v after the held requests were let go)",
		replied, repliedAfter, unreplied, proxied, held, refused.Round(time.Millisecond), exited.Round(time.Millisecond), (exited - released).Round(time.Millisecond))
}
