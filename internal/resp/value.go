// Package resp is the Redis serialization protocol (RESP2 and RESP3) as
// redimo's server and CLI speak it: a Value type for replies, their
// encoding in either protocol version, a reader of commands (multibulk and
// inline) and of replies, and the rendering of replies the way redis-cli
// prints them.
package resp

import (
	"math"
	"strconv"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of Value. Kinds that exist only in RESP3 are written in RESP2
// the way Redis writes them: a Double as a bulk string, a Boolean as an
// integer, a Map as a flat array of keys and values, a Set as an array, a
// Verbatim string as a bulk string, and both nulls as RESP2's null bulk
// string ($-1) or null array (*-1).
const (
	SimpleString Kind = iota + 1 // +OK
	Error                        // -ERR message
	Integer                      // :1
	BulkString                   // $1 a
	Array                        // *2 ...
	Null                         // RESP2 $-1, RESP3 _
	NullArray                    // RESP2 *-1, RESP3 _
	Double                       // RESP3 ,1.5
	Boolean                      // RESP3 #t
	Map                          // RESP3 %1 key value
	Set                          // RESP3 ~2 ...
	Verbatim                     // RESP3 =15 txt:...
	Push                         // RESP3 >2 ... (out of band: CLIENT TRACKING's invalidate); an array in RESP2
)

// Value is one reply (or, read from the wire, one reply of a server).
type Value struct {
	Kind Kind
	// Str is the text of a SimpleString, Error (with its prefix, "ERR
	// ..."), BulkString or Verbatim string, and of a Double as written.
	Str string
	// Int is an Integer, or a Boolean as 0/1.
	Int int64
	// Float is a Double.
	Float float64
	// Elems are the elements of an Array or Set, or of a Map its keys and
	// values alternating.
	Elems []Value
}

// OK is the +OK reply.
var OK = Value{Kind: SimpleString, Str: "OK"}

// Simple returns a simple string reply (+s).
func Simple(s string) Value { return Value{Kind: SimpleString, Str: s} }

// Err returns an error reply; msg starts with its code: "ERR syntax error",
// "WRONGTYPE Operation...". Line breaks in msg are replaced by spaces, as
// Redis does, so the reply stays one line.
func Err(msg string) Value { return Value{Kind: Error, Str: oneLine(msg)} }

// Int returns an integer reply.
func Int(n int64) Value { return Value{Kind: Integer, Int: n} }

// Bool returns 1 or 0 as an integer, as Redis's RESP2-era commands
// (SISMEMBER, SMOVE) do in both protocols.
func Bool(b bool) Value {
	if b {
		return Int(1)
	}
	return Int(0)
}

// Bulk returns a bulk string reply.
func Bulk(s string) Value { return Value{Kind: BulkString, Str: s} }

// Nil returns the null reply of a missing string ($-1 in RESP2).
func Nil() Value { return Value{Kind: Null} }

// NilArray returns the null reply of a missing array (*-1 in RESP2).
func NilArray() Value { return Value{Kind: NullArray} }

// Dbl returns a double reply: a bulk string in RESP2, as Redis's
// addReplyDouble.
func Dbl(f float64) Value { return Value{Kind: Double, Float: f, Str: FormatDouble(f)} }

// Arr returns an array of vs.
func Arr(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{Kind: Array, Elems: vs}
}

// Strings returns an array of bulk strings.
func Strings(ss []string) Value { return Arr(bulks(ss)...) }

// SetOf returns a set of bulk strings (an array in RESP2).
func SetOf(ss []string) Value { return Value{Kind: Set, Elems: bulks(ss)} }

// MapOf returns a map of alternating keys and values (a flat array in RESP2).
func MapOf(kv ...Value) Value {
	if kv == nil {
		kv = []Value{}
	}
	return Value{Kind: Map, Elems: kv}
}

// Verb returns a verbatim text string (a bulk string in RESP2).
func Verb(s string) Value { return Value{Kind: Verbatim, Str: s} }

func bulks(ss []string) []Value {
	out := make([]Value, len(ss))
	for i, s := range ss {
		out[i] = Bulk(s)
	}
	return out
}

// IsError reports whether v is an error reply.
func (v Value) IsError() bool { return v.Kind == Error }

// FormatDouble formats f as Redis 7.0 replies with a double: "inf",
// "-inf", otherwise printf's "%.17g" (0.1 is "0.10000000000000001", 1e308
// is "1e+308"); zero is "0" whatever its sign.
func FormatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		return "0"
	}
	// Go's 'g' with an explicit precision follows C's %g: exponent form
	// when the exponent is < -4 or >= the precision, trailing zeros
	// removed, at least two exponent digits.
	return strconv.FormatFloat(f, 'g', 17, 64)
}

func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] == '\r' || b[j] == '\n' {
					b[j] = ' '
				}
			}
			return string(b)
		}
	}
	return s
}
