package resp

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected strings come from redis-server 7.0.15 and redis-cli 7.0.15.

func TestFormatDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0.1, "0.10000000000000001"}, {1e308, "1e+308"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{1.5, "1.5"}, {2, "2"}, {-2.5, "-2.5"}, {1e-5, "1.0000000000000001e-05"}, {100000, "100000"},
		{1e16, "10000000000000000"}, {1e17, "1e+17"}, {123456789012345678, "1.2345678901234568e+17"},
		{math.Copysign(0, -1), "0"}, {0, "0"}, {3.5, "3.5"}, {5e-324, "4.9406564584124654e-324"},
	} {
		require.Equal(t, tc.want, FormatDouble(tc.f), "%v", tc.f)
	}
}

func TestAppend(t *testing.T) {
	for _, tc := range []struct {
		v          Value
		resp2, out string
	}{
		{OK, "+OK\r\n", "+OK\r\n"},
		{Err("ERR a\r\nb"), "-ERR a  b\r\n", "-ERR a  b\r\n"},
		{Int(-3), ":-3\r\n", ":-3\r\n"},
		{Bulk(""), "$0\r\n\r\n", "$0\r\n\r\n"},
		{Nil(), "$-1\r\n", "_\r\n"},
		{NilArray(), "*-1\r\n", "_\r\n"},
		{Dbl(0.1), "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{Dbl(math.Inf(-1)), "$4\r\n-inf\r\n", ",-inf\r\n"},
		{Value{Kind: Boolean, Int: 1}, ":1\r\n", "#t\r\n"},
		{Arr(), "*0\r\n", "*0\r\n"},
		{Strings([]string{"a", "bc"}), "*2\r\n$1\r\na\r\n$2\r\nbc\r\n", "*2\r\n$1\r\na\r\n$2\r\nbc\r\n"},
		{SetOf([]string{"a"}), "*1\r\n$1\r\na\r\n", "~1\r\n$1\r\na\r\n"},
		{MapOf(Bulk("k"), Int(1)), "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{Verb("hi"), "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{Arr(Arr(Bulk("m"), Dbl(1))), "*1\r\n*2\r\n$1\r\nm\r\n$1\r\n1\r\n", "*1\r\n*2\r\n$1\r\nm\r\n,1\r\n"},
	} {
		require.Equal(t, tc.resp2, string(Append(nil, tc.v, 2)))
		require.Equal(t, tc.out, string(Append(nil, tc.v, 3)))
		// What a client reads back encodes the same.
		for _, proto := range []int{2, 3} {
			enc := Append(nil, tc.v, proto)
			got, err := NewReader(strings.NewReader(string(enc))).ReadReply()
			require.NoError(t, err)
			require.Equal(t, string(enc), string(Append(nil, got, proto)))
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", []string{}}, {"   ", []string{}},
		{"SADD k a", []string{"SADD", "k", "a"}},
		{"  a\t b  ", []string{"a", "b"}},
		{`"a b" 'c d'`, []string{"a b", "c d"}},
		{`"\x41\x4a\n\r\t\b\a\"\\\q"`, []string{"AJ\n\r\t\b\a\"\\q"}},
		{`"\x4"`, []string{"x4"}},
		{`'it\'s' '\n'`, []string{"it's", `\n`}},
		{`""`, []string{""}},
		{`a"b"`, []string{"ab"}}, // a quote inside a word opens a quoted part, as in Redis
		{"a\x00b c", []string{"a"}},
	} {
		got, ok := SplitArgs(tc.line)
		require.True(t, ok, tc.line)
		require.Equal(t, tc.want, got, tc.line)
	}
	for _, line := range []string{`"abc`, `'abc`, `"a"b`, `'a'b`, `"a\"`} {
		_, ok := SplitArgs(line)
		require.False(t, ok, line)
	}
}

func TestReadCommand(t *testing.T) {
	for _, tc := range []struct {
		in     string
		strict bool
		want   [][]string
		err    string // the protocol error after the commands
	}{
		{in: "PING\r\n", want: [][]string{{"PING"}}},
		{in: "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", want: [][]string{{"ECHO", ""}}},
		{in: "\r\n*0\r\n*-1\r\nPING\n", want: [][]string{{"PING"}}},
		{in: "*1\r\n$4\r\nPINGxx", want: [][]string{{"PING"}}},
		{in: "*1\r\n$3\r\na\r\n\r\n", want: [][]string{{"a\r\n"}}},
		{in: "*x\r\n", err: "invalid multibulk length"},
		{in: "*1\r\n!3\r\n", err: "expected '$', got '!'"},
		{in: "*1\r\n$-1\r\n", err: "invalid bulk length"},
		{in: "*1\r\n$536870913\r\n", err: "invalid bulk length"},
		{in: "*2147483648\r\n", err: "invalid multibulk length"},
		{in: "PING\r\nECHO \"a\r\n", want: [][]string{{"PING"}}, err: "unbalanced quotes in request"},
		{in: "*11\r\n", strict: true, err: "unauthenticated multibulk length"},
		{in: "*1\r\n$16385\r\n", strict: true, err: "unauthenticated bulk length"},
		{in: strings.Repeat("x", MaxInlineSize+1), err: "too big inline request"},
		{in: "*1\r\n$" + strings.Repeat("1", MaxInlineSize), err: "too big bulk count string"},
	} {
		r := NewReader(strings.NewReader(tc.in))
		var got [][]string
		var err error
		for {
			var args []string
			args, err = r.ReadCommand(tc.strict)
			if err != nil {
				break
			}
			got = append(got, args)
		}
		require.Equal(t, tc.want, got, "%q", tc.in)
		var perr *ProtocolError
		if tc.err == "" {
			require.ErrorIs(t, err, io.EOF, "%q", tc.in)
		} else {
			require.True(t, errors.As(err, &perr), "%q: %v", tc.in, err)
			require.Equal(t, tc.err, perr.Msg, "%q", tc.in)
		}
	}
	// A command cut short is an unexpected EOF, not a clean one.
	_, err := NewReader(strings.NewReader("*2\r\n$4\r\nECHO\r\n")).ReadCommand(false)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestRender(t *testing.T) {
	nested := Arr(Bulk("0"), Strings([]string{"a", "b"}))
	var ten []string
	for i := range 10 {
		ten = append(ten, string(rune('a'+i)))
	}
	for _, tc := range []struct {
		v         Value
		tty, raw  string
		normalize int // render as received in this protocol (0: as is)
	}{
		{v: Int(2), tty: "(integer) 2\n", raw: "2\n"},
		{v: Bulk("a\"b\x01\n\xc3\xa9"), tty: `"a\"b\x01\n\xc3\xa9"` + "\n", raw: "a\"b\x01\n\xc3\xa9\n"},
		{v: Nil(), tty: "(nil)\n", raw: "\n"},
		{v: Err("ERR x"), tty: "(error) ERR x\n", raw: "ERR x\n\n"},
		{v: OK, tty: "OK\n", raw: "OK\n"},
		{v: Arr(), tty: "(empty array)\n", raw: "\n"},
		{v: SetOf(nil), tty: "(empty array)\n", raw: "\n", normalize: 2},
		{v: SetOf(nil), tty: "(empty set)\n", raw: "\n", normalize: 3},
		{v: nested, tty: "1) \"0\"\n2) 1) \"a\"\n   2) \"b\"\n", raw: "0\na\nb\n"},
		{v: Strings(ten), tty: " 1) \"a\"\n 2) \"b\"\n 3) \"c\"\n 4) \"d\"\n 5) \"e\"\n 6) \"f\"\n 7) \"g\"\n 8) \"h\"\n 9) \"i\"\n10) \"j\"\n", raw: "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"},
		{v: Arr(Arr(Bulk("m"), Dbl(1.5))), tty: "1) 1) \"m\"\n   2) (double) 1.5\n", raw: "m\n1.5\n", normalize: 3},
		{v: Arr(Arr(Bulk("m"), Dbl(1.5))), tty: "1) 1) \"m\"\n   2) \"1.5\"\n", raw: "m\n1.5\n", normalize: 2},
		{v: MapOf(Bulk("proto"), Int(3), Bulk("modules"), Arr()), tty: "1# \"proto\" => (integer) 3\n2# \"modules\" => (empty array)\n", raw: "proto 3\nmodules \n", normalize: 3},
		{v: SetOf([]string{"a"}), tty: "1~ \"a\"\n", raw: "a\n", normalize: 3},
	} {
		v := tc.v
		if tc.normalize != 0 {
			v = Normalize(v, tc.normalize)
		}
		require.Equal(t, tc.tty, Render(v))
		require.Equal(t, tc.raw, RenderRaw(v))
	}
}

// FuzzReadCommand: no input panics the reader, and a command it reads
// encodes to a multibulk that reads back the same.
func FuzzReadCommand(f *testing.F) {
	for _, s := range []string{"PING\r\n", "*2\r\n$4\r\nECHO\r\n$1\r\na\r\n", `SET "a\x41" 'b'` + "\n", "*1\r\n$-1\r\n", "\"", "*3\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReader(strings.NewReader(in))
		for range 100 {
			args, err := r.ReadCommand(false)
			if err != nil {
				return
			}
			again, err := NewReader(strings.NewReader(string(Append(nil, Strings(args), 2)))).ReadCommand(false)
			require.NoError(t, err)
			require.Equal(t, args, again)
		}
	})
}
