package server_test

// A connection's edges (connection.go) against redis-server: HELLO's
// options, blocking commands and MULTI, a too-big inline request.

import (
	"strings"
	"testing"
)

// HELLO applies its options in order, as redis-server 7.0
// (AUTH and SETNAME act as parsed); redimo-server parsed them all first:
//
//	HELLO 2 SETNAME foo FOO; CLIENT GETNAME
//	    redis: "-ERR Syntax error in HELLO option 'FOO'\r\n", then "$3\r\nfoo\r\n"
//	    redimo: the same error, then "$-1\r\n"
//	HELLO 2 AUTH nobody x FOO
//	    redis: "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
//	    redimo: "-ERR Syntax error in HELLO option 'FOO'\r\n"
//	HELLO 2 SETNAME "a b" AUTH nobody x
//	    redis: "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"
//	    redimo: "-WRONGPASS ..."
func TestServerHelloOptionOrder(t *testing.T) {
	requireSameReplies(t, nil, "HELLO 2 SETNAME foo FOO", "CLIENT GETNAME", "HELLO 2 AUTH nobody x FOO",
		`HELLO 2 SETNAME "a b" AUTH nobody x`, "CLIENT GETNAME")
}

// What a connection meets around blocking and MULTI. A BZPOPMIN
// pipelined before a ZADD to its key on the same connection times out
// before the ZADD runs (null, then :1), as in Redis; BZPOPMIN and BZMPOP
// with timeout 0 inside MULTI answer null at once (RESP3 "_"); QUIT inside
// MULTI is not queued (+OK, then the connection closes); a too-big inline
// request (70,000 bytes, no newline) is refused and the connection closed.
func TestServerConnectionEdges(t *testing.T) {
	ts := pairedServer(t)
	p := "diff:conn:" + randomHex(4) + ":"
	for _, in := range []string{
		"BZPOPMIN " + p + "bz 0.3\r\nZADD " + p + "bz 1 a\r\nZCARD " + p + "bz\r\nDEL " + p + "bz\r\nQUIT\r\n",
		"HELLO 3\r\nMULTI\r\nBZPOPMIN " + p + "none 0\r\nBZMPOP 0 1 " + p + "none MIN\r\nEXEC\r\nQUIT\r\n",
		"MULTI\r\nSADD " + p + "q a\r\nQUIT\r\nPING\r\n",
		"MULTI\r\nMULTI\r\nWATCH " + p + "q\r\nEXEC\r\nEXEC\r\nDISCARD\r\nQUIT\r\n",
		strings.Repeat("x", 70000),
	} {
		requireSameRaw(t, ts, []byte(in))
	}
}
