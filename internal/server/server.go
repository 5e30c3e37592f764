// Package server runs Redis commands against redimo: the command table
// (argument parsing, replies and errors as Redis 7.0 gives them) and a
// RESP2/RESP3 TCP server. cmd/redimo-server serves it on a port;
// cmd/redimo runs the same table in-process.
package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// Defaults of Config.
const (
	// DefaultMaxClients bounds the open connections (Redis's maxclients).
	DefaultMaxClients = 10000
	// RedisVersion is the Redis version the server reports (HELLO, INFO):
	// replies follow Redis 7.0.
	RedisVersion = "7.0.15"
	// DefaultCommandTimeout bounds how long a command may run once
	// started (Config.CommandTimeout).
	DefaultCommandTimeout = 10 * time.Minute
	// pipelineDepth is how many commands of one connection are read ahead
	// of the one running.
	pipelineDepth = 128
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("redimo-server: server closed")

// Config configures a Server.
type Config struct {
	// Client runs the commands. Required.
	Client *redimo.Client
	// Password, when set, must be given with AUTH (or HELLO ... AUTH)
	// before any other command, as Redis's requirepass.
	Password string
	// MaxClients bounds the open connections. Default DefaultMaxClients.
	MaxClients int
	// Logger receives connection and DynamoDB errors. Default: discarded.
	Logger *slog.Logger
	// Info are extra "key:value" lines for INFO's redimo section (table,
	// endpoint, region), in order.
	Info [][2]string
	// Port is reported by INFO as tcp_port.
	Port int
	// IdleTimeout closes a client's connection once it has been idle that
	// long (no command running, no bytes received, no reply sent), as
	// Redis's timeout; the client gets no reply, as from Redis. 0, the
	// default, never closes one. CONFIG GET timeout reports it in whole
	// seconds.
	IdleTimeout time.Duration
	// CommandTimeout bounds how long a command may run once started. A
	// started command runs to its end whatever its client does: one whose
	// client disconnects still completes (its reply is dropped), so no
	// client leaves a command half done. Blocking commands (BZPOPMIN and
	// kin) are the exception while they wait: a disconnect ends the wait,
	// and their own timeout bounds it, not this one. Default
	// DefaultCommandTimeout; negative: no bound.
	CommandTimeout time.Duration
}

// Server serves Redis commands over redimo. Create it with New.
type Server struct {
	cfg      Config
	pwHash   [32]byte
	started  time.Time
	runID    string
	nextID   atomic.Int64
	commands atomic.Int64             // total_commands_processed
	accepted atomic.Int64             // total_connections_received
	rejected atomic.Int64             // rejected_connections
	stats    stats                    // INFO commandstats
	latency  *prometheus.HistogramVec // per command, for percentiles (stats.go)
	ready    readiness                // /readyz (health.go)
	settings settings                 // CONFIG SET's values (config.go)
	// blockedClients are the connections waiting in a blocking command
	// (INFO's blocked_clients); timeoutClients those of them whose wait
	// has a timeout (clients_in_timeout_table).
	blockedClients atomic.Int64
	timeoutClients atomic.Int64
	// trackingClients are the connections with CLIENT TRACKING on (INFO's
	// tracking_clients).
	trackingClients atomic.Int64
	// dbs are the clients of databases 0 to 15 (SELECT): dbs[0] is
	// Config.Client, the others its WithDB views.
	dbs [redimo.MaxDB + 1]*redimo.Client

	// base is the parent of every connection's context and of every
	// command's; cancelling it aborts the commands in flight (a Shutdown
	// whose deadline passed).
	base      context.Context
	cancelAll context.CancelFunc
	// blocked is cancelled when Shutdown starts: blocking commands (BZPOPMIN
	// and kin) stop waiting then, instead of holding Shutdown until its
	// deadline.
	blocked       context.Context
	cancelBlocked context.CancelFunc

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	wg        sync.WaitGroup
}

// New returns a Server for cfg. It does no I/O.
func New(cfg Config) *Server {
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.CommandTimeout == 0 {
		cfg.CommandTimeout = DefaultCommandTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	id := make([]byte, 20)
	_, _ = rand.Read(id)
	s := &Server{
		cfg: cfg, pwHash: sha256.Sum256([]byte(cfg.Password)),
		started: time.Now(), runID: hex.EncodeToString(id),
		listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{},
		latency: newLatencyHistogram(),
	}
	if cfg.Client != nil {
		for n := range s.dbs {
			s.dbs[n], _ = cfg.Client.WithDB(n) // n is in range
		}
		s.dbs[0] = cfg.Client
	}
	s.base, s.cancelAll = context.WithCancel(context.Background())
	s.blocked, s.cancelBlocked = context.WithCancel(context.Background())
	return s
}

// checkPassword compares in constant time.
func (s *Server) checkPassword(pw string) bool {
	h := sha256.Sum256([]byte(pw))
	return subtle.ConstantTimeCompare(h[:], s.pwHash[:]) == 1
}

// Serve accepts connections on ln and serves each in its own goroutine
// until Shutdown; it then returns ErrServerClosed. It closes ln.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.cfg.Logger.Warn("accept", "err", err, "retry_in", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		s.accepted.Add(1)
		c := s.newConn(nc)
		if c == nil {
			continue
		}
		go c.serve()
	}
}

// isTemporary matches accept errors worth retrying (too many open files).
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops accepting connections and reading commands, lets every
// connection finish the commands it is running (and write their replies,
// also for commands whose client has gone), then closes them. Commands
// pipelined behind them are not run. Blocking commands still waiting for
// a member stop waiting and reply as at their timeout (nil), taking none.
// When ctx ends first, the commands still running are cancelled and
// Shutdown returns ctx's error once their connections are closed.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancelBlocked()
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.stop()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.cancelAll()
		s.mu.Lock()
		for c := range s.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// conn is one client connection.
type conn struct {
	srv     *Server
	nc      net.Conn
	sess    *Session
	ctx     context.Context
	cancel  context.CancelFunc
	stopped atomic.Bool // Shutdown asked this connection to stop

	// For Config.IdleTimeout: when the client last sent bytes or was sent
	// a reply (see touch), how many of its commands were read and not yet
	// answered, and the timer that looks at both.
	lastIO  atomic.Int64
	pending atomic.Int64
	idle    *time.Timer
}

// item is a command read ahead by a connection's reader, or the protocol
// error that ends the connection.
type item struct {
	args []string
	perr *resp.ProtocolError
	ack  chan struct{} // closed once run, when the reader waits for it
}

func (s *Server) newConn(nc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		nc.Close()
		return nil
	}
	if len(s.conns) >= s.cfg.MaxClients {
		s.rejected.Add(1)
		_, _ = nc.Write([]byte("-ERR max number of clients reached\r\n"))
		nc.Close()
		return nil
	}
	c := &conn{srv: s, nc: nc}
	c.touch()
	c.ctx, c.cancel = context.WithCancel(s.base)
	c.sess = s.newSession(nc.RemoteAddr().String(), nc.LocalAddr().String())
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return c
}

// stop makes the connection close after the command it is running: the
// reader is woken by a read deadline in the past and stops reading.
func (c *conn) stop() {
	c.stopped.Store(true)
	_ = c.nc.SetReadDeadline(time.Now())
}

// serve runs the connection: a reader goroutine parses commands ahead (so
// that pipelined commands wait in a queue and a client that disconnects is
// noticed while its command runs: the commands queued behind it are not
// run, the running ones complete under their own context, see
// commandContext), and this goroutine runs them in order and writes their
// replies, flushing when no command is waiting.
func (c *conn) serve() {
	s := c.srv
	defer func() {
		c.cancel()
		c.nc.Close()
		if c.sess.track.on() {
			s.trackingClients.Add(-1)
		}
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	if s.cfg.IdleTimeout > 0 {
		// Armed once c.idle is set, which closeIfIdle uses.
		c.idle = time.AfterFunc(math.MaxInt64, c.closeIfIdle)
		c.idle.Reset(s.cfg.IdleTimeout)
		defer c.idle.Stop()
	}
	queue := make(chan item, pipelineDepth)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		c.read(queue)
	}()
	defer func() { c.cancel(); c.nc.Close(); <-readerDone }()

	w := bufio.NewWriterSize(c.nc, 32*1024)
	defer w.Flush() // the replies of commands that ran, whatever ends the loop
	var (
		buf   []byte
		carry *item // read ahead, not part of the last run
		pl    pipeline
	)
	next := func() (item, bool) {
		if carry != nil {
			it := *carry
			carry = nil
			return it, true
		}
		it, ok := <-queue
		return it, ok
	}
	for {
		it, ok := next()
		if !ok {
			return
		}
		if c.ctx.Err() != nil || c.stopped.Load() {
			return
		}
		if it.perr != nil {
			buf = resp.Append(buf[:0], resp.Err("ERR "+it.perr.Error()), c.sess.Proto())
			_, _ = w.Write(buf)
			s.cfg.Logger.Debug("protocol error", "client", c.sess.addr, "err", it.perr)
			return
		}
		// The run: it, and the independent commands queued after it (see
		// pipeline.go).
		run := []item{it}
		if keys, ok := independentKeys(it.args); ok && !pl.inMulti {
			used := runKeys{}
			used.add(it.args, keys)
			for len(run) < maxRun && len(queue) > 0 {
				nx := <-queue
				more, ok := independentKeys(nx.args)
				if nx.perr != nil || !ok || !used.add(nx.args, more) {
					carry = &nx
					break
				}
				run = append(run, nx)
			}
		}
		replies := make([]resp.Value, len(run))
		cctx, cancel := c.commandContext()
		if len(run) == 1 {
			replies[0] = s.Do(cctx, c.sess, it.args)
		} else {
			var wg sync.WaitGroup
			share := &runShare{}
			ctx := context.WithValue(cctx, runShareKey{}, share)
			began := time.Now()
			for i := range run {
				wg.Add(1)
				go func() {
					defer wg.Done()
					replies[i] = s.Do(ctx, c.sess, run[i].args)
				}()
			}
			wg.Wait()
			share.settle(&s.stats, time.Since(began))
		}
		cancel()
		if c.ctx.Err() != nil && !c.stopped.Load() { // the client is gone
			return
		}
		for i, it := range run {
			pl.note(it.args)
			buf = resp.Append(buf[:0], replies[i], c.sess.Proto())
			if _, err := w.Write(buf); err != nil {
				return
			}
			c.touch()
			c.pending.Add(-1)
			if it.ack != nil {
				close(it.ack)
			}
		}
		if push, ok := c.sess.track.invalidation(); ok { // tracking.go
			buf = resp.Append(buf[:0], push, c.sess.Proto())
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		if c.sess.quitting() || c.stopped.Load() {
			return
		}
		if len(queue) == 0 && carry == nil {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// connKey is the context value of a command run for a connection: the
// connection's context, which ends when the client disconnects.
type connKey struct{}

// commandContext is the context of the commands a connection runs next:
// detached from the connection, so that a client that disconnects
// mid-command does not cut it in half (it completes; its reply is
// dropped), bounded by Config.CommandTimeout, and cancelled by a Shutdown
// whose deadline passed (s.base). It carries the connection's context for
// the blocking commands' wait (Server.run).
func (c *conn) commandContext() (context.Context, context.CancelFunc) {
	ctx := context.WithValue(context.WithoutCancel(c.ctx), connKey{}, c.ctx)
	var cancel context.CancelFunc
	if d := c.srv.cfg.CommandTimeout; d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	stop := context.AfterFunc(c.srv.base, cancel)
	return ctx, func() { stop(); cancel() }
}

// read parses commands into queue until the connection ends. A read error
// that Shutdown did not cause means the client is gone: the connection's
// context ends, which ends a blocking command's wait; a command in flight
// otherwise completes.
func (c *conn) read(queue chan<- item) {
	defer close(queue)
	var src io.Reader = c.nc
	if c.idle != nil {
		src = activityReader{c}
	}
	r := resp.NewReader(src)
	for {
		// Until a client authenticates, commands are read one at a time,
		// each after the previous one ran, under Redis's smaller limits.
		strict := c.srv.cfg.Password != "" && !c.sess.Authenticated()
		args, err := r.ReadCommand(strict)
		if err != nil {
			var perr *resp.ProtocolError
			switch {
			case errors.As(err, &perr):
				select {
				case queue <- item{perr: perr}:
				case <-c.ctx.Done():
				}
			case c.stopped.Load():
			default:
				if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					c.srv.cfg.Logger.Debug("read", "client", c.sess.addr, "err", err)
				}
				c.cancel()
			}
			return
		}
		it := item{args: args}
		if strict {
			it.ack = make(chan struct{})
		}
		c.pending.Add(1)
		select {
		case queue <- it:
		case <-c.ctx.Done():
			return
		}
		if it.ack != nil {
			select {
			case <-it.ack:
			case <-c.ctx.Done():
				return
			}
		}
	}
}

// touch records activity on the connection now, as time since the server
// started (a monotonic clock).
func (c *conn) touch() { c.lastIO.Store(int64(time.Since(c.srv.started))) }

// activityReader reads the connection and notes when bytes arrive, for
// Config.IdleTimeout.
type activityReader struct{ c *conn }

func (a activityReader) Read(p []byte) (int, error) {
	n, err := a.c.nc.Read(p)
	if n > 0 {
		a.c.touch()
	}
	return n, err
}

// closeIfIdle runs when the connection may have been idle for
// Config.IdleTimeout: it closes the connection if so (the reader then
// ends it), else looks again when it could be. A connection is not idle
// while one of its commands is queued or running, however long it takes,
// as Redis, which runs a command to the end before it looks at timeouts.
func (c *conn) closeIfIdle() {
	if c.ctx.Err() != nil { // the connection is over
		return
	}
	timeout := c.srv.cfg.IdleTimeout
	idle := time.Since(c.srv.started) - time.Duration(c.lastIO.Load())
	switch {
	case c.pending.Load() > 0: // its reply will be activity
		c.idle.Reset(timeout)
	case idle < timeout:
		c.idle.Reset(timeout - idle)
	default:
		c.srv.cfg.Logger.Debug("closing idle client", "client", c.sess.addr, "idle", idle.Round(time.Millisecond))
		c.nc.Close()
	}
}

// blocking is c's context for a blocking command (Server.block); inside
// MULTI (queued) the command does not wait and is not counted.
func (c *call) blocking(timeout time.Duration) (context.Context, func()) {
	if c.queued {
		return c.ctx, func() {}
	}
	return c.srv.block(c.ctx, c.sess, timeout)
}

// block returns ctx for a blocking command of sess: from the moment the
// library's command begins to wait (redimo.WithWaitNotice), the
// connection counts in INFO's blocked_clients, and in
// clients_in_timeout_table when its wait has a timeout, and CLIENT LIST
// shows it with flag b, until done runs (the command defers it). A
// command served at once is never counted, as in Redis.
func (s *Server) block(ctx context.Context, sess *Session, timeout time.Duration) (_ context.Context, done func()) {
	var waited atomic.Bool
	ctx = redimo.WithWaitNotice(ctx, func() {
		if waited.Swap(true) {
			return
		}
		if timeout > 0 {
			s.timeoutClients.Add(1)
		}
		s.blockedClients.Add(1)
		sess.blocked.Store(true)
	})
	return ctx, func() {
		if !waited.Load() {
			return
		}
		sess.blocked.Store(false)
		s.blockedClients.Add(-1)
		if timeout > 0 {
			s.timeoutClients.Add(-1)
		}
	}
}
