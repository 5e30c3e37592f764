package redimo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// smallRaw reads key's metadata item: whether it is a small set, and how
// many member items the key has.
func smallRaw(t *testing.T, c *Client, key string) (small bool, items int) {
	t.Helper()
	ctx := context.Background()
	it, err := c.st.GetItem(ctx, model.MetaKey(key), nil, nil, nil)
	require.NoError(t, err)
	for range c.query(ctx, model.MemberQuery(key, model.TypeSet, ""), 0) {
		items++
	}
	return model.SmallMembers(it) != nil, items
}

// TestSmallSetRequests: the done-when of issue 26 on DynamoDB Local: SADD
// of one member to a small set is one UpdateItem of one item, 1 write
// unit, no index entry; SISMEMBER and SCARD read one item.
func TestSmallSetRequests(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	key := p + "tags"
	n, err := c.SAdd(ctx, key, "a", "b")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	cnt.reset()
	n, err = c.SAdd(ctx, key, "c")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "1 requests (UpdateItem=1), 0 items read", cnt.String())
	require.InDelta(t, 1, cnt.units(), 0.01, "one write unit: the item is under 1 KB and no index entry is written")
	cnt.reset()
	ok, err := c.SIsMember(ctx, key, "c")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1 requests (GetItem=1), 1 items read", cnt.String())
	cnt.reset()
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, 3, card)
	require.Equal(t, "1 requests (GetItem=1), 1 items read", cnt.String())
	cnt.reset()
	m, ok, err := c.SRandMember(ctx, key)
	require.NoError(t, err)
	require.True(t, ok)
	require.Contains(t, []string{"a", "b", "c"}, m)
	require.Equal(t, "1 requests (GetItem=1), 1 items read", cnt.String())
	cnt.reset()
	n, err = c.SRem(ctx, key, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "1 requests (UpdateItem=1), 0 items read", cnt.String())
	small, items := smallRaw(t, c, key)
	require.True(t, small)
	require.Zero(t, items)
}

// TestSmallSetBigHint: a Client that saw a set made of member items
// writes and reads it as such at once (no single-item attempt refused: the
// cost of a big set is what it was before small sets), forgets that when
// it deletes the key (the next SADD starts it small), and answers right
// when the hint went stale because another client deleted and re-created
// the key small.
func TestSmallSetBigHint(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	key := p + "visitors"
	var many []string
	for i := range model.SmallMaxMembers + 1 {
		many = append(many, fmt.Sprintf("v%03d", i))
	}
	_, err := c.SAdd(ctx, key, many...)
	require.NoError(t, err)
	cnt.reset()
	n, err := c.SAdd(ctx, key, "new")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "1 requests (TransactWriteItems=1), 0 items read", cnt.String(), "no refused UpdateItem first")
	cnt.reset()
	ok, err := c.SIsMember(ctx, key, "new")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1 requests (BatchGetItem=1), 2 items read", cnt.String(), "the metadata item and the member together")
	cnt.reset()
	n, err = c.SRem(ctx, key, "new")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "1 requests (TransactWriteItems=1), 0 items read", cnt.String())

	// Deleted by this Client: the next SADD starts it small.
	_, err = c.Del(ctx, key)
	require.NoError(t, err)
	cnt.reset()
	_, err = c.SAdd(ctx, key, "a")
	require.NoError(t, err)
	require.Equal(t, "1 requests (UpdateItem=1), 0 items read", cnt.String())
	enc, _, err := c.ObjectEncoding(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "listpack", enc)

	// Deleted and re-created small by another client: the stale hint
	// costs requests, never an answer.
	_, err = c.SAdd(ctx, key, many...)
	require.NoError(t, err)
	require.True(t, c.knownBig(key))
	other := cleanClient(t)
	_, err = other.Del(ctx, key)
	require.NoError(t, err)
	_, err = other.SAdd(ctx, key, "x", "y")
	require.NoError(t, err)
	ok, err = c.SIsMember(ctx, key, "x")
	require.NoError(t, err)
	require.True(t, ok, "read from the small set the hint did not expect")
	require.False(t, c.knownBig(key))
	n, err = c.SAdd(ctx, key, "z")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, 3, card)
	members, err := c.SMembers(ctx, key)
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "z"}, members)
}

// TestSmallSetCommands: every set command on a small set, and on the same
// set converted, answers alike (the encoding is invisible but to OBJECT
// ENCODING), and conversion happens past the threshold.
func TestSmallSetCommands(t *testing.T) {
	ctx, c, _, p := setup(t)
	key, other := p+"s", p+"o"
	_, err := c.SAdd(ctx, key, "1", "2", "3")
	require.NoError(t, err)
	enc, _, err := c.ObjectEncoding(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "intset", enc)
	_, err = c.SAdd(ctx, key, "x", "y")
	require.NoError(t, err)
	enc, _, err = c.ObjectEncoding(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "listpack", enc)
	_, err = c.SAdd(ctx, other, "x", "q")
	require.NoError(t, err)

	check := func() {
		t.Helper()
		ms, err := c.SMembers(ctx, key)
		require.NoError(t, err)
		require.Equal(t, []string{"1", "2", "3", "x", "y"}, ms)
		in, err := c.SMIsMember(ctx, key, "x", "nope", "1")
		require.NoError(t, err)
		require.Equal(t, []bool{true, false, true}, in)
		inter, err := c.SInter(ctx, key, other)
		require.NoError(t, err)
		require.Equal(t, []string{"x"}, inter)
		diff, err := c.SDiff(ctx, key, other)
		require.NoError(t, err)
		require.Equal(t, []string{"1", "2", "3", "y"}, diff)
		n, err := c.SInterCard(ctx, 0, key, other)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		var scanned []string
		for m, err := range c.SScan(ctx, key, "*") {
			require.NoError(t, err)
			scanned = append(scanned, m)
		}
		slices.Sort(scanned)
		require.Equal(t, ms, scanned)
		rs, err := c.SRandMemberN(ctx, key, -20)
		require.NoError(t, err)
		require.Len(t, rs, 20)
		typ, err := c.Type(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "set", typ)
		_, err = c.ZAdd(ctx, key, Z{Member: "a"})
		require.ErrorIs(t, err, ErrWrongType)
	}
	check()
	// A long member converts the set: member items from then on.
	long := strings.Repeat("L", 2000)
	n, err := c.SAdd(ctx, key, long)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	small, items := smallRaw(t, c, key)
	require.False(t, small)
	require.Equal(t, 6, items)
	enc, _, err = c.ObjectEncoding(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "hashtable", enc)
	n, err = c.SRem(ctx, key, long, "nope")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	check()

	// Past the member threshold.
	big := p + "big"
	for i := range model.SmallMaxMembers {
		n, err := c.SAdd(ctx, big, fmt.Sprint(i))
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	}
	small, items = smallRaw(t, c, big)
	require.True(t, small)
	require.Zero(t, items)
	n, err = c.SAdd(ctx, big, "0", "new")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	small, items = smallRaw(t, c, big)
	require.False(t, small)
	require.Equal(t, model.SmallMaxMembers+1, items)
	card, err := c.SCard(ctx, big)
	require.NoError(t, err)
	require.EqualValues(t, model.SmallMaxMembers+1, card)

	// Past the byte budget.
	bytes := p + "bytes"
	for i := 0; ; i++ {
		_, err := c.SAdd(ctx, bytes, fmt.Sprintf("%050d", i))
		require.NoError(t, err)
		if small, _ := smallRaw(t, c, bytes); !small {
			require.Greater(t, 50*(i+1), model.SmallBudget(bytes))
			require.LessOrEqual(t, 50*i, model.SmallBudget(bytes))
			break
		}
	}

	// SPOP to the end deletes the key; DEL, EXPIRE.
	popped, err := c.SPopN(ctx, other, 5)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"x", "q"}, popped)
	ex, err := c.Exists(ctx, other)
	require.NoError(t, err)
	require.Zero(t, ex)
	_, err = c.SAdd(ctx, other, "a", "b", "c")
	require.NoError(t, err)
	popped, err = c.SPopN(ctx, other, 2)
	require.NoError(t, err)
	require.Len(t, popped, 2)
	n, err = c.SRem(ctx, other, "a", "b", "c")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	ex, err = c.Exists(ctx, other)
	require.NoError(t, err)
	require.Zero(t, ex)
	_, err = c.SAdd(ctx, other, "a")
	require.NoError(t, err)
	n, err = c.Del(ctx, other, p+"none")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.SAdd(ctx, other, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	returns(t, true)(c.Expire(ctx, other, time.Hour))
	returns(t, int64(1))(c.SAdd(ctx, other, "b"))
	ttl, err := c.TTL(ctx, other)
	require.NoError(t, err)
	require.Greater(t, ttl, 50*time.Minute, "SADD keeps the key's expiry")
}

// TestSmallSetExpiry: a small set's key expiry, member expiry (which
// converts it) and SMOVE between encodings.
func TestSmallSetExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	key := p + "e"
	_, err := c.SAdd(ctx, key, "a", "b")
	require.NoError(t, err)
	_, err = c.Expire(ctx, key, time.Second)
	require.NoError(t, err)
	clock.Add(2 * time.Second)
	returns(t, int64(0))(c.SCard(ctx, key))
	returns(t, int64(1))(c.SAdd(ctx, key, "c"))
	ms, err := c.SMembers(ctx, key)
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, ms, "the expired members are gone")
	ttl, err := c.TTL(ctx, key)
	require.NoError(t, err)
	require.Equal(t, TTLPersistent, ttl)

	// Member expiry converts.
	_, err = c.SAdd(ctx, key, "d")
	require.NoError(t, err)
	res, err := c.SExpire(ctx, key, time.Second, ExpireAlways, "d")
	require.NoError(t, err)
	require.Len(t, res, 1)
	small, _ := smallRaw(t, c, key)
	require.False(t, small)
	clock.Add(2 * time.Second)
	ms, err = c.SMembers(ctx, key)
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, ms)

	// SMOVE from a small set to a missing one, and back.
	src, dst := p+"src", p+"dst"
	_, err = c.SAdd(ctx, src, "m", "n")
	require.NoError(t, err)
	moved, err := c.SMove(ctx, src, dst, "m")
	require.NoError(t, err)
	require.True(t, moved)
	moved, err = c.SMove(ctx, src, dst, "m")
	require.NoError(t, err)
	require.False(t, moved)
	a, err := c.SMembers(ctx, src)
	require.NoError(t, err)
	b, err := c.SMembers(ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []string{"n"}, a)
	require.Equal(t, []string{"m"}, b)
}

// TestSmallSetExec: MULTI/EXEC and WATCH on a small set.
func TestSmallSetExec(t *testing.T) {
	ctx, c, _, p := setup(t)
	key := p + "x"
	_, err := c.SAdd(ctx, key, "a", "b")
	require.NoError(t, err)
	w, err := c.WatchKeys(ctx, key)
	require.NoError(t, err)
	var added, card int64
	require.NoError(t, c.ExecWatched(ctx, w, func(p *Pipeline) error {
		var err error
		if added, err = p.SAdd(ctx, key, "c", "a"); err != nil {
			return err
		}
		card, err = p.SCard(ctx, key)
		return err
	}))
	require.EqualValues(t, 1, added)
	require.EqualValues(t, 3, card)
	ms, err := c.SMembers(ctx, key)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, ms)

	// A write to a watched small set fails the transaction; an SADD that
	// adds nothing does not.
	other := p + "y"
	_, err = c.SAdd(ctx, other, "a")
	require.NoError(t, err)
	w, err = c.WatchKeys(ctx, other)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, other, "a")
	require.NoError(t, err)
	require.NoError(t, c.ExecWatched(ctx, w, func(p *Pipeline) error { _, err := p.SCard(ctx, other); return err }))
	w, err = c.WatchKeys(ctx, other)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, other, "b")
	require.NoError(t, err)
	require.ErrorIs(t, c.ExecWatched(ctx, w, func(p *Pipeline) error { _, err := p.SCard(ctx, other); return err }), ErrTxFailed)
}

// TestSmallSetConcurrency: 16 writers add and remove members of one set
// whose size crosses the threshold back and forth (it converts when it
// grows past it, and starts small again each time it is emptied), with
// exact replies: the final set is what the replies say, member by member.
func TestSmallSetConcurrency(t *testing.T) {
	ctx, c, _, p := setup(t)
	key := p + "hot"
	// Phases of 15 rounds: fill, drain (the everyday suite), fill, drain.
	writers, rounds := 16, testenv.Budget(30, 60)
	// 130 possible members: the set crosses model.SmallMaxMembers (99) when
	// the writers fill it, and empties when they drain it.
	universe := numbered("m%03d", 130)
	var (
		mu         sync.Mutex
		total      int64
		conversion int
		emptied    int
		wg         sync.WaitGroup
		errs       []error
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 26))
			for i := range rounds {
				phase := (i / 15) % 2 // fill, then drain, then fill...
				k := 1 + r.IntN(8)
				ms := make([]string, k)
				for j := range ms {
					ms[j] = universe[r.IntN(len(universe))]
				}
				ms = model.Dedupe(ms)
				var (
					n   int64
					err error
				)
				switch {
				case phase == 0 && r.IntN(5) > 0:
					n, err = c.SAdd(ctx, key, ms...)
					mu.Lock()
					total += n
					mu.Unlock()
				case phase == 1 && r.IntN(4) == 0:
					var popped []string
					popped, err = c.SPopN(ctx, key, int64(k))
					mu.Lock()
					total -= int64(len(popped))
					mu.Unlock()
				default:
					n, err = c.SRem(ctx, key, ms...)
					mu.Lock()
					total -= n
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				if small, _ := smallRaw(t, c, key); !small {
					mu.Lock()
					conversion++
					mu.Unlock()
				}
				if card, _ := c.SCard(ctx, key); card == 0 {
					mu.Lock()
					emptied++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	require.Empty(t, errs)
	ms, err := c.SMembers(ctx, key)
	require.NoError(t, err)
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, len(ms), card)
	require.EqualValues(t, total, card, "Σ added − Σ removed/popped equals SCARD")
	t.Logf("seen as member items %d times, empty %d times; %d members at the end", conversion, emptied, card)
	require.Positive(t, conversion, "the set crossed the threshold")
	require.Positive(t, emptied, "the set was emptied (and starts small again)")
}

// TestSmallSetFaults: the small-set writes under lost responses (applied
// by DynamoDB Local, then the connection reset or a 500: the SDK resends
// the UpdateItem, which must recognise its own write by its token), 500s,
// throttling and transaction conflicts (the conversions and the writes of
// member items), with 8 concurrent workers (every mode in the full suite,
// one chosen by the seed in the everyday one). The replies must build the
// final state exactly: per member on a small set, in sum on a set that
// crosses the threshold (converting under faults), and SPOP returns each
// member once.
func TestSmallSetFaults(t *testing.T) {
	needDB(t)
	for _, mode := range faultModes(t, dropResponse, appliedThen5, serverError, throttling, conflicts) {
		t.Run(string(mode), func(t *testing.T) {
			f := &faulty{next: http.DefaultTransport, mode: mode, share: 0.2}
			c, clean, p := faultyClient(t, f), cleanClient(t), t.Name()+":"+randomHex(3)+":"
			ctx := context.Background()
			set, grow, pop := p+"set", p+"grow", p+"pop"
			popping := numbered("p%d", 40)
			_, err := clean.SAdd(ctx, pop, popping...)
			require.NoError(t, err)
			var (
				mu        sync.Mutex
				net       = map[string]int64{}
				growTotal int64
				popped    = map[string]int{}
				errs      []string
				wg        sync.WaitGroup
			)
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 262))
					for range 40 {
						var err error
						switch r.IntN(4) {
						case 0:
							m := fmt.Sprint("m", r.IntN(12))
							var n int64
							if r.IntN(2) == 0 {
								n, err = c.SAdd(ctx, set, m)
							} else {
								n, err = c.SRem(ctx, set, m)
								n = -n
							}
							mu.Lock()
							net[m] += n
							mu.Unlock()
						case 1, 2:
							ms := make([]string, 1+r.IntN(6))
							for j := range ms {
								ms[j] = fmt.Sprint("g", r.IntN(140))
							}
							var n int64
							if r.IntN(3) > 0 {
								n, err = c.SAdd(ctx, grow, ms...)
							} else {
								n, err = c.SRem(ctx, grow, ms...)
								n = -n
							}
							mu.Lock()
							growTotal += n
							mu.Unlock()
						default:
							var ms []string
							ms, err = c.SPopN(ctx, pop, int64(1+r.IntN(2)))
							mu.Lock()
							for _, m := range ms {
								popped[m]++
							}
							mu.Unlock()
						}
						if err != nil {
							mu.Lock()
							errs = append(errs, err.Error())
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			t.Logf("injected (%s, 20%%): %s", mode, f.summary())
			require.Empty(t, errs)
			got, err := clean.SMembers(ctx, set)
			require.NoError(t, err)
			for i := range 12 {
				m := fmt.Sprint("m", i)
				require.Contains(t, []int64{0, 1}, net[m], m)
				require.Equal(t, net[m] == 1, slices.Contains(got, m), "%s: replies say %d", m, net[m])
			}
			card, err := clean.SCard(ctx, grow)
			require.NoError(t, err)
			ms, err := clean.SMembers(ctx, grow)
			require.NoError(t, err)
			require.EqualValues(t, growTotal, card)
			require.Len(t, ms, int(card))
			left, err := clean.SMembers(ctx, pop)
			require.NoError(t, err)
			for _, m := range popping {
				require.Equal(t, 1, popped[m]+btoi(slices.Contains(left, m)), "%s popped %d times", m, popped[m])
			}
			checkStoredCounts(t, p)
		})
	}
}

// holdResend drops the response to the first UpdateItem of the partition
// it watches (applied by the server, lost on the way back) and holds the
// SDK's resend of it until release is closed: a resend that arrives after
// whatever the test does in between.
type holdResend struct {
	next     http.RoundTripper
	pk       string // the watched partition key, base64 as in the request
	n        atomic.Int32
	dropped  chan struct{}
	released chan struct{}
}

// resendRig is a Client whose first UpdateItem of key k, on database db
// (0: the default), applies and loses its response, its resend held
// (holdResend), and a clean Client on the same database.
func resendRig(t *testing.T, k string, db int) (h *holdResend, c, clean *Client) {
	t.Helper()
	pk := model.PkValue(k)
	if db > 0 {
		pk[0] = byte(db) // db.go
	}
	h = &holdResend{next: http.DefaultTransport, pk: base64.StdEncoding.EncodeToString(pk),
		dropped: make(chan struct{}), released: make(chan struct{})}
	c, clean = faultyClient(t, h), cleanClient(t)
	if db > 0 {
		var err error
		c, err = c.WithDB(db)
		require.NoError(t, err)
		clean, err = clean.WithDB(db)
		require.NoError(t, err)
	}
	return h, c, clean
}

// run runs write, and meantime once write's first UpdateItem has lost its
// response; then it lets the resend go and waits for write to return.
func (h *holdResend) run(t *testing.T, write, meantime func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		write()
	}()
	select {
	case <-h.dropped:
	case <-time.After(10 * time.Second):
		t.Fatal("the write's response was never dropped")
	}
	meantime()
	close(h.released)
	<-done
}

func (h *holdResend) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateItem") && r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"`+h.pk+`"`)) {
			switch h.n.Add(1) {
			case 1:
				resp, err := h.next.RoundTrip(r)
				if err != nil {
					return nil, err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				close(h.dropped)
				return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			case 2:
				<-h.released
			}
		}
	}
	return h.next.RoundTrip(r)
}

// TestSmallSetResend (issue 33, 1): a small-set write whose response was
// lost, resent after another Client deleted the key, purged it, flushed
// the database, converted the set, undid the write or wrote the key 100+
// times, applies once and replies as its one application did.
func TestSmallSetResend(t *testing.T) {
	needDB(t)
	t.Parallel()
	ctx := context.Background()
	type scenario struct {
		name    string
		setup   []string                                // the set before the write
		rem     bool                                    // the write is SREM of "m", else SADD
		pop     bool                                    // the write is SPOP of one member ("m")
		db      int                                     // the database of both Clients
		between func(t *testing.T, c *Client, k string) // another Client, while the resend is held
		want    []string                                // the set afterwards (nil: missing)
	}
	// writes makes n writes of k (n/2 members added, then removed).
	writes := func(c *Client, k string, n int) error {
		for i := range n {
			var err error
			if m := fmt.Sprint("x", i/2%7); i%2 == 0 {
				_, err = c.SAdd(ctx, k, m)
			} else {
				_, err = c.SRem(ctx, k, m)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	scenarios := []scenario{
		{name: "DEL", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			n, err := c.Del(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
		}},
		{name: "DEL then SADD", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			_, err := c.Del(ctx, k)
			require.NoError(t, err)
			_, err = c.SAdd(ctx, k, "b")
			require.NoError(t, err)
		}, want: []string{"b"}},
		{name: "120 writes", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			require.NoError(t, writes(c, k, 120))
		}, want: []string{"a", "m"}},
		{name: "SREM then 120 writes", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			n, err := c.SRem(ctx, k, "m")
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the lost write applied")
			require.NoError(t, writes(c, k, 120))
		}, want: []string{"a"}},
		{name: "emptied", between: func(t *testing.T, c *Client, k string) {
			_, err := c.SRem(ctx, k, "m")
			require.NoError(t, err)
		}},
		{name: "purge", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			_, err := c.PExpire(ctx, k, time.Millisecond)
			require.NoError(t, err)
			time.Sleep(5 * time.Millisecond)
			n, err := c.Del(ctx, k) // purges it: expired, it is not deleted
			require.NoError(t, err)
			require.Zero(t, n)
		}},
		{name: "FLUSHDB", setup: []string{"a"}, db: 13, between: func(t *testing.T, c *Client, k string) {
			require.NoError(t, c.FlushDB(ctx))
		}},
		{name: "conversion", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			_, err := c.SAdd(ctx, k, numbered("big%03d", 100)...)
			require.NoError(t, err)
			small, _ := smallRaw(t, c, k)
			require.False(t, small)
		}, want: append([]string{"a", "m"}, numbered("big%03d", 100)...)},
		{name: "conversion then DEL", setup: []string{"a"}, between: func(t *testing.T, c *Client, k string) {
			_, err := c.SAdd(ctx, k, numbered("big%03d", 100)...)
			require.NoError(t, err)
			_, err = c.Del(ctx, k)
			require.NoError(t, err)
		}},
		{name: "SREM: re-added, 40 writes", setup: []string{"a", "m"}, rem: true, between: func(t *testing.T, c *Client, k string) {
			n, err := c.SAdd(ctx, k, "m")
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the lost SREM applied")
			require.NoError(t, writes(c, k, 40))
		}, want: []string{"a", "m"}},
		{name: "SPOP emptying: re-created", setup: []string{"m"}, pop: true, between: func(t *testing.T, c *Client, k string) {
			_, err := c.SAdd(ctx, k, "m")
			require.NoError(t, err)
		}, want: []string{"m"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			k := t.Name() + ":" + randomHex(3)
			h, c, clean := resendRig(t, k, sc.db)
			if len(sc.setup) > 0 {
				_, err := clean.SAdd(ctx, k, sc.setup...)
				require.NoError(t, err)
			}
			var (
				n   int64
				err error
			)
			h.run(t, func() {
				switch {
				case sc.pop:
					var ms []string
					ms, err = c.SPopN(ctx, k, 1)
					n = int64(len(ms))
					if n == 1 && ms[0] != "m" {
						err = fmt.Errorf("popped %q", ms[0])
					}
				case sc.rem:
					n, err = c.SRem(ctx, k, "m")
				default:
					n, err = c.SAdd(ctx, k, "m")
				}
			}, func() { sc.between(t, clean, k) })
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the reply of the write's one application")
			require.GreaterOrEqual(t, h.n.Load(), int32(2), "the write was resent")
			got, err := clean.SMembers(ctx, k)
			require.NoError(t, err)
			require.ElementsMatch(t, sc.want, got)
			card, err := clean.SCard(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, len(sc.want), card)
		})
	}
}

// TestSmallSetStaleTokens: a token past model.TokenHorizon, which no
// writer resends any more, is removed by the next write of a Client that
// saw it (its write returned the item); fresh ones stay.
func TestSmallSetStaleTokens(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "s"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	old := make([]byte, 16)
	binary.BigEndian.PutUint64(old, uint64(time.Now().Add(-model.TokenHorizon-time.Minute).UnixMilli()))
	fresh := make([]byte, 16)
	binary.BigEndian.PutUint64(fresh, uint64(time.Now().UnixMilli()))
	_, err = testDB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(testTable), Key: model.MetaKey(k),
		UpdateExpression:          aws.String("SET #o = :o, #f = :f"),
		ExpressionAttributeNames:  map[string]string{"#o": model.AttrLanePrefix + "gone0", "#f": model.AttrLanePrefix + "other0"},
		ExpressionAttributeValues: model.Item{":o": model.Bin(old), ":f": model.Bin(fresh)}})
	require.NoError(t, err)
	raw := func() model.Item {
		it, err := c.st.GetItem(ctx, model.MetaKey(k), nil, nil, nil)
		require.NoError(t, err)
		return it
	}
	_, err = c.SAdd(ctx, k, "b") // sees the stale token
	require.NoError(t, err)
	require.Contains(t, raw(), model.AttrLanePrefix+"gone0")
	_, err = c.SAdd(ctx, k, "c") // removes it
	require.NoError(t, err)
	it := raw()
	require.NotContains(t, it, model.AttrLanePrefix+"gone0")
	require.Contains(t, it, model.AttrLanePrefix+"other0")
	require.Contains(t, it, model.LaneAttr(c.lanes.writer, 0))
	ms, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, ms)
}

// TestWriterLanes: concurrent writes of one key from one Client take
// distinct lanes, however many (a lane's token must be its write's
// alone), and a freed lane is taken again.
func TestWriterLanes(t *testing.T) {
	var l lanes
	seen := map[string]bool{}
	var releases []func()
	for range 100 {
		attr, release := l.take("k")
		require.False(t, seen[attr], "lane %s taken twice", attr)
		seen[attr] = true
		releases = append(releases, release)
	}
	other, _ := l.take("other")
	require.Equal(t, model.LaneAttr("", 0), other, "another key's lanes are its own")
	releases[7]()
	again, _ := l.take("k")
	require.Equal(t, model.LaneAttr("", 7), again)
}

// Small sets in one item (issue 26) under the model of real DynamoDB
// (internal/ddbmodel, slowed down manySlowdown times as
// BenchmarkManyKeysModel, whose comment says why; figures in the model's
// time), each scenario against today's encoding (Options.DisableSmallSets:
// every member an item) in the same run:
//
//   - sadd: 64 goroutines of single-member SADDs over 1,000 keys (each
//     stays small); plain: one PutItem per SADD, what a plain DynamoDB
//     client (the seed library) pays;
//   - mix: the same keys, 1 SADD for 4 SISMEMBERs (tags read more than
//     written);
//   - hot: 64 goroutines of SADD/SREM of 20 members on one key.
//
// Each checks that the SCARDs add up to the replies. Each scenario runs
// for REDIMO_HOT_DURATION (default 10s):
//
//	make bench BENCHFLAGS='-bench SmallSets -benchtime 1x'
func BenchmarkSmallSetsModel(b *testing.B) {
	needDB(b)
	m := slowModel(b)
	db := local.Client(testEndpoint, m.Transport(nil))
	d := manyDuration(b)
	direct := NewClient(local.Client(testEndpoint, nil), func(o *Options) { o.TableName = testTable })
	small := NewClient(db, func(o *Options) { o.TableName = testTable })
	items := NewClient(db, func(o *Options) { o.TableName = testTable; o.DisableSmallSets = true })
	ctx := context.Background()
	if err := small.CheckTable(ctx); err != nil {
		b.Fatal(err)
	}
	p := "SmallSets:" + randomHex(3) + ":"
	type result struct {
		res    hotResult
		inTime int64
		d      time.Duration
		st     ddbmodel.OpStats
	}
	results := map[string]*result{}
	opsPerSec := func(name string) float64 {
		r := results[name]
		return float64(r.inTime) / r.d.Seconds() * manySlowdown
	}
	run := func(name string, op func(w, i int) (int64, error)) {
		r := results[name]
		if r == nil {
			r = &result{}
			results[name] = r
		}
		m.ResetStats()
		deadline := time.Now().Add(d)
		var inTime atomic.Int64
		var h hotResult
		h.hammer(manyWorkers, d, func(w, i int) (int64, error) {
			n, err := op(w, i)
			if err == nil && !time.Now().After(deadline) {
				inTime.Add(1)
			}
			return n, err
		})
		mergeHot(&r.res, &h)
		r.inTime += inTime.Load()
		r.d += d
		t := m.Stats().Total()
		r.st.Requests += t.Requests
		r.st.WCU += t.WCU
		r.st.RCU += t.RCU
	}
	scard := func(keys ...string) int64 {
		var total int64
		for _, key := range keys {
			n, err := direct.SCard(ctx, key)
			if err != nil {
				b.Fatal(err)
			}
			total += n
		}
		return total
	}
	// A warm-up, not measured (DynamoDB Local is slower at first).
	var warm hotResult
	warm.hammer(manyWorkers, min(d, 3*time.Second), func(w, i int) (int64, error) {
		return direct.SAdd(ctx, fmt.Sprintf("%swarm:%04d", p, (w*7919+i)%manyKeys), fmt.Sprint(i))
	})
	for n := range b.N {
		rngs := make([]*rand.Rand, manyWorkers)
		for w := range rngs {
			rngs[w] = rand.New(rand.NewPCG(uint64(w), 26))
		}
		keyOf := func(kind string, k int) string { return fmt.Sprintf("%s%s%d:%04d", p, kind, n, k) }
		allKeys := func(kind string) []string {
			out := make([]string, manyKeys)
			for k := range out {
				out[k] = keyOf(kind, k)
			}
			return out
		}
		check := func(name, kind string, before int64) {
			if got, want := scard(allKeys(kind)...), results[name].res.added-before; got != want {
				b.Errorf("%s: the SCARDs add up to %d, the replies to %d", name, got, want)
			}
		}
		member := func(w, i int) string { return fmt.Sprintf("w%02d-%07d", w, i) }
		for _, enc := range []struct {
			name string
			c    *Client
		}{{"small", small}, {"items", items}} {
			name := "sadd-" + enc.name
			before := int64(0)
			if r := results[name]; r != nil {
				before = r.res.added
			}
			run(name, func(w, i int) (int64, error) {
				return enc.c.SAdd(ctx, keyOf(name, rngs[w].IntN(manyKeys)), member(w, i))
			})
			check(name, name, before)
			// The mix reads the keys sadd wrote.
			run("mix-"+enc.name, func(w, i int) (int64, error) {
				key := keyOf(name, rngs[w].IntN(manyKeys))
				if i%5 == 0 {
					_, err := enc.c.SAdd(ctx, key, member(w, i)+"m")
					return 0, err
				}
				_, err := enc.c.SIsMember(ctx, key, member(w, i-1))
				return 0, err
			})
			hot := keyOf("hot-"+enc.name, 0)
			var net atomic.Int64
			run("hot-"+enc.name, func(w, i int) (int64, error) {
				m := fmt.Sprint("t", rngs[w].IntN(20))
				if i%2 == 0 {
					n, err := enc.c.SAdd(ctx, hot, m)
					net.Add(n)
					return n, err
				}
				n, err := enc.c.SRem(ctx, hot, m)
				net.Add(-n)
				return n, err
			})
			if got := scard(hot); got != net.Load() {
				b.Errorf("hot-%s: SCARD %d, the replies say %d", enc.name, got, net.Load())
			}
		}
		run("plain", func(w, i int) (int64, error) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable,
				Item: model.ItemKey(keyOf("plain", rngs[w].IntN(manyKeys)), model.MemberSK(model.TypeSet, member(w, i)))})
			return 1, err
		})
	}
	for _, name := range []string{"sadd-small", "sadd-items", "plain", "mix-small", "mix-items", "hot-small", "hot-items"} {
		r := results[name]
		res := r.res
		for i := range res.latencies {
			res.latencies[i] = time.Duration(float64(res.latencies[i]) / manySlowdown)
		}
		res.report(b, name)
		b.ReportMetric(opsPerSec(name), name+"-ops/s")
		ops := float64(max(1, res.ops))
		b.ReportMetric(r.st.WCU/ops, name+"-WCU/op")
		b.ReportMetric(r.st.RCU/ops, name+"-RCU/op")
		b.ReportMetric(float64(r.st.Requests)/ops, name+"-requests/op")
		b.Logf("%s: %d ok, %d ErrContention, %d other errors (first: %v)", name, res.ops, res.contention, res.errs, res.firstErr)
	}
	b.ReportMetric(opsPerSec("sadd-small")/opsPerSec("plain"), "small/plain")
	b.ReportMetric(opsPerSec("sadd-small")/opsPerSec("sadd-items"), "small/items")
	b.ReportMetric(opsPerSec("mix-small")/opsPerSec("mix-items"), "mix-small/items")
	b.ReportMetric(opsPerSec("hot-small")/opsPerSec("hot-items"), "hot-small/items")
}

// BenchmarkSmallSetWriterLanes: the write units of an SADD to a small set
// near its member budget (40 members of 14 bytes) after w other Clients
// wrote it within the token horizon, each leaving its lane's token
// (smallset.go): the item grows 27 bytes a writer, so past about eight
// writers an hour its writes cost 2 units instead of 1. Figures from
// DynamoDB Local's consumed capacity:
//
//	make bench BENCHFLAGS='-bench SmallSetWriterLanes -benchtime 1x'
func BenchmarkSmallSetWriterLanes(b *testing.B) {
	ctx := context.Background()
	for _, writers := range []int{0, 1, 4, 8, 16, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			var units, size float64
			for range b.N {
				c, cnt, p := newTestClient(b)
				k := p + "s"
				if _, err := c.SAdd(ctx, k, numbered("member-%07d", 40)...); err != nil {
					b.Fatal(err)
				}
				for w := range writers {
					o, _, _ := newTestClient(b)
					m := fmt.Sprintf("member-%07d", w%40)
					if _, err := o.SRem(ctx, k, m); err != nil {
						b.Fatal(err)
					}
					if _, err := o.SAdd(ctx, k, m); err != nil {
						b.Fatal(err)
					}
				}
				cnt.reset()
				if _, err := c.SAdd(ctx, k, "new-member-00"); err != nil {
					b.Fatal(err)
				}
				units += cnt.units()
				it, err := c.st.GetItem(ctx, model.MetaKey(k), nil, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				size += float64(model.ItemSize(it))
			}
			b.ReportMetric(units/float64(b.N), "WCU/SADD")
			b.ReportMetric(size/float64(b.N), "item-bytes")
		})
	}
}
