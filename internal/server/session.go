package server

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Session is the state of one client: its connection's, or the CLI's.
type Session struct {
	id      int64
	addr    string // client address ("" in-process)
	laddr   string
	created time.Time

	// inProcess: the CLI's session, which has no connection to push
	// invalidations on (CLIENT TRACKING is refused).
	inProcess bool

	proto  atomic.Int32
	authed atomic.Bool
	quit   atomic.Bool
	// blocked: the session waits in a blocking command (CLIENT LIST's
	// flag b, as Redis's).
	blocked atomic.Bool

	mu      sync.Mutex // guards what CLIENT LIST reads from other connections
	name    string
	libName string
	libVer  string
	lastCmd string
	lastAt  time.Time

	track tracking     // CLIENT TRACKING (tracking.go)
	multi multiState   // MULTI/EXEC/WATCH: used by the session's own goroutine only
	db    atomic.Int32 // the selected database (SELECT)
}

func (s *Server) newSession(addr, laddr string) *Session {
	now := time.Now()
	sess := &Session{id: s.nextID.Add(1), addr: addr, laddr: laddr, created: now, lastAt: now, lastCmd: "NULL"}
	sess.proto.Store(2)
	sess.authed.Store(s.cfg.Password == "")
	return sess
}

// NewSession returns the session of an in-process client, such as the
// CLI: authenticated, RESP2 until HELLO 3.
func (s *Server) NewSession() *Session {
	sess := s.newSession("", "")
	sess.authed.Store(true)
	sess.inProcess = true
	return sess
}

// Proto returns the protocol version, 2 or 3.
func (sess *Session) Proto() int { return int(sess.proto.Load()) }

// Authenticated reports whether the client may run commands.
func (sess *Session) Authenticated() bool { return sess.authed.Load() }

func (sess *Session) quitting() bool { return sess.quit.Load() }

func (sess *Session) setName(name string) {
	sess.mu.Lock()
	sess.name = name
	sess.mu.Unlock()
}

func (sess *Session) getName() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.name
}

// info is the session's line of CLIENT INFO and CLIENT LIST, with the
// fields Redis 7.0 prints (those redimo does not track are 0).
func (sess *Session) info() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	now := time.Now()
	var b strings.Builder
	flags := "N"
	if sess.blocked.Load() {
		flags = "b"
	}
	fmt.Fprintf(&b, "id=%d addr=%s laddr=%s fd=-1 name=%s age=%d idle=%d flags=%s db=%d sub=0 psub=0 ssub=0 multi=-1 "+
		"qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=default redir=-1 resp=%d",
		sess.id, sess.addr, sess.laddr, sess.name, int(now.Sub(sess.created).Seconds()), int(now.Sub(sess.lastAt).Seconds()), flags, sess.db.Load(),
		sess.lastCmd, sess.proto.Load())
	if sess.libName != "" || sess.libVer != "" {
		fmt.Fprintf(&b, " lib-name=%s lib-ver=%s", sess.libName, sess.libVer)
	}
	return b.String()
}
