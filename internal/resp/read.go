package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/redimo-go/redimo/internal/redisarg"
)

// Limits of a command, as Redis's defaults.
const (
	// MaxInlineSize bounds an inline command line and every length line
	// (Redis's PROTO_INLINE_MAX_SIZE); it is also the Reader's buffer size.
	MaxInlineSize = 64 * 1024
	// MaxBulkLen bounds one argument (Redis's proto-max-bulk-len).
	MaxBulkLen = 512 * 1024 * 1024
	// MaxArgs bounds the arguments of one command (Redis's INT_MAX is
	// more than any DynamoDB-backed command can use).
	MaxArgs = 1024 * 1024
	// MaxUnauthArgs and MaxUnauthBulkLen bound the commands of a client
	// that has not authenticated yet, as in Redis 7.
	MaxUnauthArgs    = 10
	MaxUnauthBulkLen = 16384
)

// ProtocolError is a malformed command. The server replies
// "-ERR Protocol error: <Msg>" and closes the connection, as Redis does.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// Reader reads commands (a server's input) or replies (a client's input)
// from a byte stream.
type Reader struct {
	br      *bufio.Reader
	capture *[]byte // when set, every byte consumed is appended to it
}

// NewReader returns a Reader over r with a MaxInlineSize buffer.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, MaxInlineSize)}
}

// Buffered returns how many bytes are read from the stream but not yet
// consumed: a server flushes its replies when no pipelined command is
// waiting.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// ReadCommand reads the next command: a RESP array of bulk strings, or an
// inline command (a line of space-separated arguments, quotes as in
// redis-cli), as Redis's processMultibulkBuffer and processInlineBuffer.
// Empty commands (an empty line, "*0") are skipped. strict applies the
// limits of a client that has not authenticated. A malformed command
// returns a *ProtocolError; the stream cannot be read further.
func (r *Reader) ReadCommand(strict bool) ([]string, error) {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return nil, err
		}
		var args []string
		if b[0] == '*' {
			args, err = r.readMultibulk(strict)
		} else {
			args, err = r.readInline()
		}
		if err != nil || len(args) > 0 {
			return args, err
		}
	}
}

// readLine returns the next line without its "\r\n" (or "\n"); tooBig is
// the protocol error of a line longer than MaxInlineSize.
func (r *Reader) readLine(tooBig string) (string, error) {
	line, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", &ProtocolError{tooBig}
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	if r.capture != nil {
		*r.capture = append(*r.capture, line...)
	}
	n := len(line) - 1
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return string(line[:n]), nil
}

func (r *Reader) readInline() ([]string, error) {
	line, err := r.readLine("too big inline request")
	if err != nil {
		return nil, err
	}
	args, ok := SplitArgs(line)
	if !ok {
		return nil, &ProtocolError{"unbalanced quotes in request"}
	}
	return args, nil
}

func (r *Reader) readMultibulk(strict bool) ([]string, error) {
	line, err := r.readLine("too big mbulk count string")
	if err != nil {
		return nil, err
	}
	n, ok := redisarg.Int(line[1:])
	if !ok || n > math.MaxInt32 {
		return nil, &ProtocolError{"invalid multibulk length"}
	}
	if strict && n > MaxUnauthArgs {
		return nil, &ProtocolError{"unauthenticated multibulk length"}
	}
	if n > MaxArgs {
		return nil, &ProtocolError{"invalid multibulk length"}
	}
	if n <= 0 {
		return nil, nil
	}
	args := make([]string, 0, min(n, 1024))
	for range n {
		line, err := r.readLine("too big bulk count string")
		if err != nil {
			return nil, unexpected(err)
		}
		if line == "" || line[0] != '$' {
			c := byte('\n')
			if line != "" {
				c = line[0]
			}
			return nil, &ProtocolError{fmt.Sprintf("expected '$', got '%c'", c)}
		}
		size, ok := redisarg.Int(line[1:])
		if !ok || size < 0 || size > MaxBulkLen {
			return nil, &ProtocolError{"invalid bulk length"}
		}
		if strict && size > MaxUnauthBulkLen {
			return nil, &ProtocolError{"unauthenticated bulk length"}
		}
		arg, err := r.readBulk(size)
		if err != nil {
			return nil, unexpected(err)
		}
		args = append(args, arg)
	}
	return args, nil
}

// readBulk reads size bytes and the two that end them (not checked, as in
// Redis). Memory grows with the bytes that arrive, not with the length a
// client announces.
func (r *Reader) readBulk(size int64) (string, error) {
	var sb strings.Builder
	sb.Grow(int(min(size, 1<<20)))
	if _, err := io.CopyN(&sb, r.br, size); err != nil {
		return "", err
	}
	var crlf [2]byte
	if _, err := io.ReadFull(r.br, crlf[:]); err != nil {
		return "", err
	}
	if r.capture != nil {
		*r.capture = append(append(*r.capture, sb.String()...), crlf[:]...)
	}
	return sb.String(), nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ReadReply reads one reply of a server, in either protocol version.
func (r *Reader) ReadReply() (Value, error) {
	line, err := r.readLine("too big reply line")
	if err != nil {
		return Value{}, err
	}
	if line == "" {
		return Value{}, &ProtocolError{"empty reply line"}
	}
	body := line[1:]
	count := func() (int64, error) {
		n, ok := redisarg.Int(body)
		if !ok || n < -1 || n > MaxArgs*2 {
			return 0, &ProtocolError{fmt.Sprintf("bad length %q", line)}
		}
		return n, nil
	}
	switch line[0] {
	case '+':
		return Simple(body), nil
	case '-':
		return Value{Kind: Error, Str: body}, nil
	case ':':
		n, ok := redisarg.Int(body)
		if !ok {
			return Value{}, &ProtocolError{fmt.Sprintf("bad integer %q", line)}
		}
		return Int(n), nil
	case '_':
		return Nil(), nil
	case '#':
		v := Value{Kind: Boolean}
		if body == "t" {
			v.Int = 1
		}
		return v, nil
	case ',':
		f, _ := strconv.ParseFloat(body, 64)
		return Value{Kind: Double, Str: body, Float: f}, nil
	case '(':
		return Value{Kind: BulkString, Str: body}, nil // big number: kept as text
	case '$', '=':
		n, err := count()
		if err != nil {
			return Value{}, err
		}
		if n < 0 {
			return Nil(), nil
		}
		s, err := r.readBulk(n)
		if err != nil {
			return Value{}, unexpected(err)
		}
		if line[0] == '=' {
			if len(s) >= 4 {
				s = s[4:] // "txt:" or "mkd:"
			}
			return Verb(s), nil
		}
		return Bulk(s), nil
	case '*', '~', '%', '>':
		n, err := count()
		if err != nil {
			return Value{}, err
		}
		if n < 0 {
			return NilArray(), nil
		}
		kind := map[byte]Kind{'*': Array, '~': Set, '%': Map, '>': Array}[line[0]]
		if kind == Map {
			n *= 2
		}
		elems := make([]Value, 0, min(n, 1024))
		for range n {
			e, err := r.ReadReply()
			if err != nil {
				return Value{}, unexpected(err)
			}
			elems = append(elems, e)
		}
		return Value{Kind: kind, Elems: elems}, nil
	}
	return Value{}, &ProtocolError{fmt.Sprintf("unknown reply type %q", line[0])}
}

// ReadRawReply reads one reply and returns its bytes as the server sent
// them, with their decoding.
func (r *Reader) ReadRawReply() ([]byte, Value, error) {
	var raw []byte
	r.capture = &raw
	defer func() { r.capture = nil }()
	v, err := r.ReadReply()
	return raw, v, err
}

// SplitArgs splits an inline command as Redis's sdssplitargs: arguments
// separated by spaces, "double quotes" with \n \r \t \b \a \xHH and \"
// escapes, 'single quotes' with \' only; a closing quote must be followed
// by a space or the end. ok is false for unbalanced quotes.
func SplitArgs(line string) (args []string, ok bool) {
	if i := strings.IndexByte(line, 0); i >= 0 { // a C string ends there
		line = line[:i]
	}
	p := 0
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	for {
		for p < len(line) && redisarg.IsSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			if args == nil {
				args = []string{}
			}
			return args, true
		}
		var cur []byte
		var quote byte // the open quote, '"' or '\'', or 0
		for done := false; !done; {
			c := at(p)
			switch {
			case quote == '"' && c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
				cur = append(cur, unhex(at(p+2))<<4|unhex(at(p+3)))
				p += 3
			case quote == '"' && c == '\\' && at(p+1) != 0:
				p++
				switch e := at(p); e {
				case 'n':
					cur = append(cur, '\n')
				case 'r':
					cur = append(cur, '\r')
				case 't':
					cur = append(cur, '\t')
				case 'b':
					cur = append(cur, '\b')
				case 'a':
					cur = append(cur, '\a')
				default:
					cur = append(cur, e)
				}
			case quote == '\'' && c == '\\' && at(p+1) == '\'':
				p++
				cur = append(cur, '\'')
			case quote != 0 && c == quote:
				if n := at(p + 1); n != 0 && !redisarg.IsSpace(n) {
					return nil, false
				}
				done = true
			case quote != 0 && c == 0:
				return nil, false
			case quote != 0:
				cur = append(cur, c)
			case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0:
				done = true
			case c == '"' || c == '\'':
				quote = c
			default:
				cur = append(cur, c)
			}
			if p < len(line) {
				p++
			}
		}
		args = append(args, string(cur))
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
