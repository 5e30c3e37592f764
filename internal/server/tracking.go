package server

import (
	"strings"
	"sync"

	"github.com/redimo-go/redimo/internal/resp"
)

// CLIENT TRACKING and CLIENT CACHING: Redis's server-assisted client-side
// caching, which client libraries switch on by default (rueidis sends
// CLIENT TRACKING ON OPTIN when it connects, and refuses to run without
// it).
//
// Redis remembers the keys a tracking client read and sends it an
// invalidate push when one of them changes. redimo-server cannot: the
// data is in DynamoDB, written by every other redimo-server and library
// client too, and no process sees all the writes. So it invalidates each
// key a tracked read returns at once, in an invalidate push right after
// the reply: a client may cache the value for the moment between the two
// (as a Redis client does between a write and its invalidation), never
// longer, and every later cached read asks the server again. Caching is
// accepted but gives no hits; what the client reads is as fresh as
// without it.
//
// Supported: CLIENT TRACKING ON|OFF [OPTIN|OPTOUT] [NOLOOP], over RESP3
// (the pushes arrive on the same connection), and CLIENT CACHING YES|NO.
// Refused: REDIRECT (invalidations on another connection) and BCAST
// [PREFIX] (invalidations of keys the client never read, which needs the
// writes of other processes).

// trackMode is a session's CLIENT TRACKING mode.
type trackMode int32

const (
	trackOff     trackMode = iota
	trackDefault           // every read is tracked
	trackOptIn             // reads after CLIENT CACHING YES are tracked
	trackOptOut            // reads are tracked unless after CLIENT CACHING NO
)

// tracking is a session's tracking state.
type tracking struct {
	mu      sync.Mutex
	mode    trackMode
	caching bool     // CLIENT CACHING YES (OPTIN) or NO (OPTOUT) for the next command (or MULTI ... EXEC)
	pending []string // keys read to invalidate after the reply
}

// on reports whether the session tracks.
func (t *tracking) on() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mode != trackOff
}

// after notes that cmd ran with args (inTx: inside EXEC): the keys of a
// tracked read are to be invalidated after the reply. CLIENT CACHING's
// choice lasts for the next command, or for a MULTI ... EXEC, as Redis's.
func (t *tracking) after(cmd *Command, args []string, inTx bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mode == trackOff {
		return
	}
	tracked := t.mode == trackDefault || t.mode == trackOptIn && t.caching || t.mode == trackOptOut && !t.caching
	if tracked && cmd.has("readonly") {
		t.pending = append(t.pending, commandKeys(cmd, args)...)
	}
	if !inTx && cmd.Name != "client|caching" && cmd.Name != "multi" {
		t.caching = false
	}
}

// invalidation returns the push that invalidates the keys read since the
// last one (each once), if any.
func (t *tracking) invalidation() (resp.Value, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return resp.Value{}, false
	}
	var keys []string
	seen := map[string]bool{}
	for _, k := range t.pending {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	t.pending = nil
	return resp.Value{Kind: resp.Push, Elems: []resp.Value{resp.Bulk("invalidate"), resp.Strings(keys)}}, true
}

// clientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...]
// [BCAST] [OPTIN] [OPTOUT] [NOLOOP].
func clientTracking(c *call) resp.Value {
	var mode trackMode
	switch {
	case strings.EqualFold(c.args[2], "on"):
		mode = trackDefault
	case strings.EqualFold(c.args[2], "off"):
	default:
		return resp.Err(msgSyntax)
	}
	optin, optout := false, false
	for _, a := range c.args[3:] {
		switch strings.ToLower(a) {
		case "optin":
			optin = true
		case "optout":
			optout = true
		case "noloop":
		case "redirect", "bcast", "prefix":
			return resp.Err("ERR CLIENT TRACKING " + strings.ToUpper(a) + " is not supported by redimo-server: it cannot see the writes of other processes sharing the table; use CLIENT TRACKING ON [OPTIN|OPTOUT] over RESP3, or turn client-side caching off")
		default:
			return resp.Err(msgSyntax)
		}
	}
	switch {
	case optin && optout:
		return resp.Err("ERR You can't use both OPTIN and OPTOUT")
	case mode == trackOff:
	case c.sess.inProcess:
		return resp.Err("ERR CLIENT TRACKING needs a connection to redimo-server, on which the invalidations are pushed")
	case c.sess.Proto() < 3:
		return resp.Err("ERR CLIENT TRACKING without REDIRECT needs RESP3 (HELLO 3) on redimo-server, which sends invalidations on the same connection")
	case optin:
		mode = trackOptIn
	case optout:
		mode = trackOptOut
	}
	t := &c.sess.track
	t.mu.Lock()
	was := t.mode
	t.mode, t.caching = mode, false
	if mode == trackOff {
		t.pending = nil
	}
	t.mu.Unlock()
	switch {
	case was == trackOff && mode != trackOff:
		c.srv.trackingClients.Add(1)
	case was != trackOff && mode == trackOff:
		c.srv.trackingClients.Add(-1)
	}
	return resp.OK
}

// clientCaching is CLIENT CACHING YES|NO.
func clientCaching(c *call) resp.Value {
	yes := strings.EqualFold(c.args[2], "yes")
	if !yes && !strings.EqualFold(c.args[2], "no") {
		return resp.Err(msgSyntax)
	}
	t := &c.sess.track
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.mode != trackOptIn && t.mode != trackOptOut:
		return resp.Err("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	case yes && t.mode != trackOptIn:
		return resp.Err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	case !yes && t.mode != trackOptOut:
		return resp.Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
	}
	t.caching = true
	return resp.OK
}
