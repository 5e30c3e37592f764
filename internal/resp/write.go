package resp

import (
	"strconv"
)

// Append appends the encoding of v in protocol version proto (2 or 3) to
// dst and returns the extended buffer.
func Append(dst []byte, v Value, proto int) []byte {
	switch v.Kind {
	case SimpleString:
		return appendLine(append(dst, '+'), v.Str)
	case Error:
		return appendLine(append(dst, '-'), v.Str)
	case Integer:
		return appendInt(dst, ':', v.Int)
	case BulkString:
		return appendBulk(dst, v.Str)
	case Null:
		if proto >= 3 {
			return append(dst, "_\r\n"...)
		}
		return append(dst, "$-1\r\n"...)
	case NullArray:
		if proto >= 3 {
			return append(dst, "_\r\n"...)
		}
		return append(dst, "*-1\r\n"...)
	case Double:
		s := v.Str
		if s == "" {
			s = FormatDouble(v.Float)
		}
		if proto >= 3 {
			return appendLine(append(dst, ','), s)
		}
		return appendBulk(dst, s)
	case Boolean:
		if proto >= 3 {
			if v.Int != 0 {
				return append(dst, "#t\r\n"...)
			}
			return append(dst, "#f\r\n"...)
		}
		return appendInt(dst, ':', v.Int)
	case Verbatim:
		if proto >= 3 {
			dst = appendInt(dst, '=', int64(len(v.Str)+4))
			return append(append(append(dst, "txt:"...), v.Str...), '\r', '\n')
		}
		return appendBulk(dst, v.Str)
	case Array, Set, Map, Push:
		prefix, n := byte('*'), len(v.Elems)
		if proto >= 3 {
			switch v.Kind {
			case Set:
				prefix = '~'
			case Push:
				prefix = '>'
			case Map:
				prefix, n = '%', n/2
			}
		}
		dst = appendInt(dst, prefix, int64(n))
		for _, e := range v.Elems {
			dst = Append(dst, e, proto)
		}
		return dst
	}
	return appendLine(append(dst, '-'), "ERR internal error: reply of unknown kind")
}

func appendLine(dst []byte, s string) []byte {
	return append(append(dst, s...), '\r', '\n')
}

func appendInt(dst []byte, prefix byte, n int64) []byte {
	return append(strconv.AppendInt(append(dst, prefix), n, 10), '\r', '\n')
}

func appendBulk(dst []byte, s string) []byte {
	dst = appendInt(dst, '$', int64(len(s)))
	return append(append(dst, s...), '\r', '\n')
}
