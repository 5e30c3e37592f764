package resp

import (
	"fmt"
	"strconv"
	"strings"
)

// Render formats v as redis-cli prints a reply on a terminal (its
// cliFormatReplyTTY): `(integer) 2`, `"a"` with escapes, `(nil)`,
// `(error) ERR ...`, numbered and indented arrays, `1# "k" => v` for
// maps, `1~ "a"` for sets, `(double) 1.5`. The result ends with a newline.
//
// v should be a reply as a client received it: Normalize a server-side
// Value first, so that RESP3 kinds become what RESP2 makes of them.
func Render(v Value) string { return render(v, "") }

func render(v Value, prefix string) string {
	switch v.Kind {
	case Error:
		return "(error) " + v.Str + "\n"
	case SimpleString, Verbatim:
		return v.Str + "\n"
	case Integer:
		return "(integer) " + strconv.FormatInt(v.Int, 10) + "\n"
	case Double:
		return "(double) " + v.Str + "\n"
	case BulkString:
		return Quote(v.Str) + "\n"
	case Null, NullArray:
		return "(nil)\n"
	case Boolean:
		if v.Int != 0 {
			return "(true)\n"
		}
		return "(false)\n"
	case Array, Set, Map:
		if len(v.Elems) == 0 {
			return map[Kind]string{Array: "(empty array)\n", Set: "(empty set)\n", Map: "(empty hash)\n"}[v.Kind]
		}
		n := len(v.Elems)
		if v.Kind == Map {
			n /= 2
		}
		width := len(strconv.Itoa(n))
		sep := map[Kind]byte{Array: ')', Set: '~', Map: '#'}[v.Kind]
		inner := prefix + strings.Repeat(" ", width+2)
		var b strings.Builder
		for i := 0; i < len(v.Elems); i++ {
			idx := i + 1
			if v.Kind == Map {
				idx = i/2 + 1
			}
			if i > 0 {
				b.WriteString(prefix)
			}
			fmt.Fprintf(&b, "%*d%c ", width, idx, sep)
			s := render(v.Elems[i], inner)
			if v.Kind == Map { // "key => value"
				i++
				s = strings.TrimSuffix(s, "\n") + " => " + render(v.Elems[i], inner)
			}
			b.WriteString(s)
		}
		return b.String()
	}
	return "(error) unknown reply type\n"
}

// RenderRaw formats v as redis-cli prints a reply with --raw or when its
// output is not a terminal: strings as they are, integers as numbers,
// array elements one per line, nil as an empty line.
func RenderRaw(v Value) string {
	var b strings.Builder
	renderRaw(&b, v)
	if v.Kind == Error {
		b.WriteByte('\n') // redis-cli ends an error with an empty line
	}
	b.WriteByte('\n')
	return b.String()
}

func renderRaw(b *strings.Builder, v Value) {
	switch v.Kind {
	case Error, SimpleString, BulkString, Verbatim, Double:
		b.WriteString(v.Str)
	case Integer:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case Boolean:
		if v.Int != 0 {
			b.WriteString("(true)")
		} else {
			b.WriteString("(false)")
		}
	case Array, Set:
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte('\n')
			}
			renderRaw(b, e)
		}
	case Map:
		for i := 0; i+1 < len(v.Elems); i += 2 {
			if i > 0 {
				b.WriteByte('\n')
			}
			renderRaw(b, v.Elems[i])
			b.WriteByte(' ')
			renderRaw(b, v.Elems[i+1])
		}
	}
}

// Quote returns s in double quotes with redis-cli's escapes (sdscatrepr):
// \\ \" \n \r \t \a \b, other bytes outside ASCII's printable range as \xHH.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Normalize returns v as a client speaking protocol proto receives it:
// encoded and decoded again, so that in RESP2 a Double becomes a bulk
// string, a Map a flat array, a Set an array.
func Normalize(v Value, proto int) Value {
	r := NewReader(strings.NewReader(string(Append(nil, v, proto))))
	out, err := r.ReadReply()
	if err != nil {
		return Err("ERR " + err.Error())
	}
	return out
}
