package server

import (
	"errors"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/redisarg"
	"github.com/redimo-go/redimo/internal/resp"
)

// Arguments are read in internal/redisarg's grammar, the library's own.
// A range bound the library parses itself comes back as its typed error
// (ErrNotFloat, ErrSyntax), which rangeReply turns into Redis's text; the
// server checks bounds itself only where it must answer before the
// library sees them (ZRANGE's LIMIT may replace the range).

const (
	msgScoreRange = "ERR min or max is not a float"
	msgLexRange   = "ERR min or max not valid string range item"
)

// parseInt parses an integer argument as Redis's string2ll.
func parseInt(s string) (int64, bool) { return redisarg.Int(s) }

// rangeReply is reply for a command over a score or lex range the library
// parsed: a bound it refused is Redis's range error.
func rangeReply[T any](c *call, v T, err error, conv func(T) resp.Value) resp.Value {
	switch {
	case errors.Is(err, redimo.ErrNotFloat):
		return resp.Err(msgScoreRange)
	case errors.Is(err, redimo.ErrSyntax):
		return resp.Err(msgLexRange)
	}
	return reply(c, v, err, conv)
}

// checkScoreRange checks ZRANGEBYSCORE-style bounds.
func checkScoreRange(min, max string) resp.Value {
	_, _, ok1 := redisarg.ScoreBound(min)
	_, _, ok2 := redisarg.ScoreBound(max)
	if !ok1 || !ok2 {
		return resp.Err(msgScoreRange)
	}
	return resp.Value{}
}

// checkLexRange checks ZRANGEBYLEX-style bounds.
func checkLexRange(min, max string) resp.Value {
	_, ok1 := redisarg.LexBound(min)
	_, ok2 := redisarg.LexBound(max)
	if !ok1 || !ok2 {
		return resp.Err(msgLexRange)
	}
	return resp.Value{}
}
