package redimo

// The rank index of a sorted set: count items.
//
// A ranked sorted set has, beside its members, count items that cut its
// index values (ix: score, 0x00, member) into ranges and hold how many
// members each range has:
//
//	count item  'k' + key     0xFF + lo       (no ix: not in the index)
//	            hi: the range's upper bound (exclusive; absent for the last)
//	            n:  members with lo <= ix < hi
//	            cv: a fresh random token per change
//
// The first range's lo is empty; each range's hi is the next one's lo, so
// the ranges cover every index value once. The metadata item carries rk
// when the key's count items exist and are exact. Ranges are bounded by
// full index values, not scores, so equal scores split like any others.
//
// Writes. Every write transaction of a ranked key (transact) adds, per
// range its writes touch, an Update of the count item: ADD n (the
// members it gains minus those it loses, possibly 0) and a new cv, on
// condition that the range still ends at the hi the writer knows; and the
// metadata action requires rk to be present (or absent, for a writer that
// believes the key unranked). A failed condition returns the item, the
// writer reads the ranges again and retries: so a count item changes in
// the same transaction as its members, and counts are exact under any
// concurrency, as the cardinality is. A write whose old index value is not
// known (ZREM, a ZADD XX) reads it first (one BatchGetItem) and pins it
// with a condition. Writers keep what they know of a key's ranges in the
// Client (rankBelief) and only re-read them when a condition fails.
//
// Cost of writing: one more item per range touched per transaction (2 WCU
// each). The metadata item is already in every transaction of the key, so
// count items add actions, not conflicts: two transactions that would
// meet on a count item already meet on the metadata item. With write
// combining, a Client has one transaction per key in flight, and the
// attempts it merges share one action per count item as they share the
// metadata item's, adding the sum of their changes (combine.go): a hot
// ranked key gets as many writes per round trip as an unranked one, with
// one more action per range they touch. Chunks of a ranked key are cut in
// index order to fit their count items (chunksOf).
//
// Splits. A range with more than rankMax members is split in two by
// rankSplit: read the count item (n, cv), read the first n/2+1 index values
// of the range, and in one transaction shorten the range to the (n/2+1)-th
// value and create the range that starts there with the rest, on condition
// that cv did not change (no write touched the range meanwhile). Writers
// split the ranges they grew past rankMax (by their own count) after their
// transaction (a split that fails is tried again by the next writer that
// grows the range; readers never write). Ranges
// that shrink merge (rank_merge.go): a writer that shrank a range joins it
// with a neighbour when together they hold at most rankMax/2.
//
// Building. Keys start unranked. The metadata action of a writer that
// believes a sorted set unranked and adds d members requires that the key
// stays under rankMin members (rankGuard); the write that would take it
// to rankMin fails that condition, builds its count items (rankBuild:
// read the metadata item and every index value, about rankMin of them,
// then write ranges of rankMax/2 members in transactions of 99 count
// items, each on condition that the metadata item's version token and
// count did not change, the last one setting rk), and writes again,
// ranked. So reads never write: ZRANK and the other rank reads of an
// unranked key count (O(rank)), never a wrong answer. A key with an
// expiry or with member expiries is not built (its writes do not carry
// the minimum); nor is one that grows inside EXEC (rank_exec.go) or one
// whose build lost a race (group.noBuild): the next write that adds a
// member builds it. Keys made bigger than rankMin before redimo kept
// count items on write are built by their next such write.
//
// Count items of a key that is deleted go after it (rankDrop: DEL,
// RENAME's source, a purge); any left behind (a deletion cut short, a key
// unranked by EXEC) are ignored, as the new metadata item has no rk,
// until the key is built again, which deletes them.
//
// Readers: ZRANK/ZREVRANK and ZRankAround (rankByIndex, counting within
// one range from its nearer end: rank_count.go), ZRANGE/ZREVRANGE/
// ZREMRANGEBYRANK deep in the set (rankSeek), ZCOUNT and, on equal
// scores, ZLEXCOUNT over wide ranges (rank_count.go), ZRANDMEMBER
// (rank_rand.go). Writers besides transact: EXEC (rank_exec.go).

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

const (
	// rankPrefix (keys.go) starts a count item's sort key: after every
	// member's ('s', 'z'), so reads of a key's members (and of its
	// metadata item, 0x00, with them) never meet count items.
	// rankMax is the most members a range holds once split.
	rankMax = 1000
	// rankMin is the members from which a sorted set has count items,
	// built by the write that reaches it (rankGuard).
	rankMin = 2000
	// rankStep is the most writes in one transaction of a ranked key.
	rankStep = (maxTxItems - 1) / 3
)

// errRankChunk is transact's answer to a chunk of writes too big for the
// count items of its key: transactChunksFrom makes chunks of rankStep.
var errRankChunk = errors.New("redimo: chunk too big for a ranked key")

// rankRange is one count item as a reader or writer knows it.
type rankRange struct {
	lo, hi []byte // hi nil: the last range
	n      int64
	cv     []byte
}

// rankBelief is what a Client knows of a key's count items.
type rankBelief struct {
	ranked bool
	ranges []rankRange // nil when ranked and not read yet
}

// rankState is a Client's beliefs (per key) and bounds. The beliefs of
// unranked keys are not kept: only keys seen ranked take memory.
type rankState struct {
	beliefs  sync.Map   // key → *rankBelief
	mu       sync.Mutex // rankCommitted's read-modify-write of a belief
	max, min int        // rankMax and rankMin unless a test sets them
}

func (c *Client) rankMax() int64 {
	if c.ranks.max > 0 {
		return int64(c.ranks.max)
	}
	return rankMax
}

func (c *Client) rankMin() int64 {
	if c.ranks.min > 0 {
		return int64(c.ranks.min)
	}
	return rankMin
}

func (c *Client) belief(key string) *rankBelief {
	if b, ok := c.ranks.beliefs.Load(key); ok {
		return b.(*rankBelief)
	}
	return &rankBelief{}
}

func (c *Client) setBelief(key string, b *rankBelief) {
	if !b.ranked {
		c.ranks.beliefs.Delete(key)
		return
	}
	c.ranks.beliefs.Store(key, b)
}

// fixedChunks cuts writes into chunks of n (one empty chunk for none: a
// lone type check).
func fixedChunks(writes []*write, n int) [][]*write {
	out := [][]*write{writes[:min(n, len(writes))]}
	for start := n; start < len(writes); start += n {
		out = append(out, writes[start:min(start+n, len(writes))])
	}
	return out
}

// chunksOf cuts the writes of one key into transactions. For a ranked key
// whose ranges are known, the writes go in index order and each chunk
// takes writes while they, the count items they touch and the metadata
// item fit in maxTxItems (a write whose old value is unknown counts one
// count item of its own); so 1,000 new members among R ranges take about
// (1000 + min(R, 1000))/99 transactions. transactChunksFrom cuts a chunk
// into chunks of rankStep when the ranges changed meanwhile.
func (c *Client) chunksOf(key string, typ model.KeyType, writes []*write) [][]*write {
	b := c.belief(key)
	if typ != model.TypeZSet || !b.ranked {
		return fixedChunks(writes, maxTxItems-1)
	}
	if b.ranges == nil || len(writes) == 0 {
		return fixedChunks(writes, rankStep)
	}
	at := func(w *write) []byte {
		if w.ix != nil {
			return w.ix
		}
		return w.prev
	}
	// Index order, or reverse index order when the writes come that way
	// (ZPOPMAX: its reply is in the order the writes applied).
	dir := 1
	if slices.IsSortedFunc(writes, func(x, y *write) int { return bytes.Compare(at(y), at(x)) }) {
		dir = -1
	}
	sorted := slices.Clone(writes)
	slices.SortStableFunc(sorted, func(x, y *write) int { return dir * bytes.Compare(at(x), at(y)) })
	var (
		out     [][]*write
		chunk   []*write
		touched = map[int]bool{}
	)
	for i, w := range sorted {
		var rs []int
		switch {
		case !w.known:
			rs = []int{-1 - i}
		default:
			if w.prev != nil {
				rs = append(rs, find(b.ranges, w.prev))
			}
			if w.ix != nil {
				rs = append(rs, find(b.ranges, w.ix))
			}
		}
		fresh := 0
		for _, r := range rs {
			if !touched[r] {
				fresh++
			}
		}
		if len(chunk) > 0 && len(chunk)+1+len(touched)+fresh+1 > maxTxItems {
			out, chunk, touched = append(out, chunk), nil, map[int]bool{}
		}
		chunk = append(chunk, w)
		for _, r := range rs {
			touched[r] = true
		}
	}
	return append(out, chunk)
}

func rankSK(lo []byte) []byte { return append([]byte{model.RankPrefix}, lo...) }

// maxBound is the longest range bound: a count item's sort key is
// rankPrefix + lo, within DynamoDB's 1024 bytes. An index value is up to
// 1024 bytes (score, 0x00, the first 1015 bytes of the member), so a
// bound taken from one is cut to its first maxBound bytes.
const maxBound = 1023

// boundAt is the bound that starts a range at ixs[i] (index values in
// order), or ok false when none can: the cut value must still be above
// ixs[i-1], so that the members before i are exactly those below it.
func boundAt(ixs [][]byte, i int) (b []byte, ok bool) {
	b = ixs[i][:min(len(ixs[i]), maxBound)]
	return b, i == 0 || bytes.Compare(ixs[i-1], b) < 0
}

// find is the index of the range holding ix.
func find(ranges []rankRange, ix []byte) int {
	return sort.Search(len(ranges), func(i int) bool { return bytes.Compare(ranges[i].lo, ix) > 0 }) - 1
}

// rankGuard is what a sorted set's metadata action (metaAction) requires
// of its count items, with its placeholders added to names and values:
// that the key is ranked as g's writer believes; and, when the writer
// believes it unranked and adds d > 0 members, that the key then stays
// below the build minimum, or has an expiry or members with one (which
// are never ranked). When that fails, the writer builds the count items
// (transact: rankCrossed, rankBuild) before it writes again: so a key is
// ranked from the write that takes it to the minimum on, and ranks are
// never built by a read.
func (c *Client) rankGuard(g *group, d int64, names map[string]string, values model.Item) string {
	if g.typ != model.TypeZSet {
		return ""
	}
	names["#rk"] = model.AttrRanked
	if g.rank != nil && g.rank.ranked {
		return " AND attribute_exists(#rk)"
	}
	if d <= 0 || g.noBuild {
		return " AND attribute_not_exists(#rk)"
	}
	names["#rkmn"] = model.AttrMemTTL
	values[":rklim"], values[":rk0"] = model.Num(c.rankMin()-d), model.Num(0)
	return " AND attribute_not_exists(#rk) AND (attribute_not_exists(#n) OR #n < :rklim OR attribute_exists(#x) OR #rkmn > :rk0)"
}

// rankCrossed reports whether the metadata item it, returned by g's
// failed metadata action, shows that g's writes would take an unranked
// sorted set to the build minimum: once the type and the expiry passed
// (transact checks them first), an unranked sorted set with no expiry
// and no member expiries fails only rankGuard's minimum, whatever the
// other attempts combined with g's added (combine.go).
func (c *Client) rankCrossed(g *group, it model.Item) bool {
	if g.typ != model.TypeZSet || g.noBuild || (g.rank != nil && g.rank.ranked) {
		return false
	}
	var d int64
	for _, w := range g.writes {
		d += w.delta
	}
	m := model.DecodeMeta(it)
	_, ranked := it[model.AttrRanked]
	return d > 0 && !ranked && m.Typ == model.TypeZSet && m.Exp == 0 && m.Ttls == 0
}

// rankCreated builds the count items of a key that g's committed writes
// made at least rankMin members big at once, which rankGuard cannot see:
// a key created by them (possible only when rankMin is below a
// transaction's 99 writes, as in tests). A build left undone is done by
// the next write that adds a member.
func (c *Client) rankCreated(ctx context.Context, g *group) {
	var d int64
	for _, w := range g.writes {
		d += w.delta
	}
	if g.typ == model.TypeZSet && !isRanked(g) && !g.noBuild && d >= c.rankMin() {
		_, _ = c.rankBuild(ctx, g.key)
	}
}

// rankSeen learns from a failed metadata condition (it, the item as it
// is; nil when absent) whether the key is ranked.
func (c *Client) rankSeen(g *group, it model.Item) {
	if g.typ != model.TypeZSet {
		return
	}
	_, ranked := it[model.AttrRanked]
	if ranked != c.belief(g.key).ranked {
		c.setBelief(g.key, &rankBelief{ranked: ranked})
	}
}

// rankStale forgets the ranges of key (a count item's condition failed).
func (c *Client) rankStale(key string) {
	if c.belief(key).ranked {
		c.setBelief(key, &rankBelief{ranked: true})
	}
}

// rankPrepare readies groups of ranked keys for rankWrites: reads their
// ranges when unknown, and pins the old index value of every write that
// does not know it.
func (c *Client) rankPrepare(ctx context.Context, groups []*group) error {
	for _, g := range groups {
		if g.typ != model.TypeZSet {
			continue
		}
		b := c.belief(g.key)
		g.rank = b
		if !b.ranked {
			continue
		}
		if b.ranges == nil {
			ranges, err := c.readRanges(ctx, g.key)
			if err != nil {
				return err
			}
			if len(ranges) == 0 { // rk without count items cannot be: the metadata condition will tell
				ranges = []rankRange{{}}
			}
			b = &rankBelief{ranked: true, ranges: ranges}
			c.setBelief(g.key, b)
			g.rank = b
		}
		var keys []model.Item
		var loose []*write
		for _, w := range g.writes {
			if !w.known && w.action.ConditionCheck == nil {
				keys = append(keys, model.ItemKey(g.key, writeSK(w)))
				loose = append(loose, w)
			}
		}
		if len(keys) == 0 {
			continue
		}
		found, err := c.batchGet(ctx, keys, nil, nil)
		if err != nil {
			return err
		}
		now := map[string]model.Item{}
		for _, it := range found {
			now[string(model.BytesAttr(it, model.AttrSK))] = it
		}
		for _, w := range loose {
			g.replace(w, c.pin(w, now[string(writeSK(w))]))
		}
	}
	return nil
}

// pin is w on condition that its member's index value is still the one
// cur (the member's item; nil when absent) holds: its old value known
// (write.pinned: rendered adds the condition). When that condition is
// what failed, the pinned write is pinned again to the new value; else
// w's own retry decides.
func (c *Client) pin(w *write, cur model.Item) *write {
	if w.action.Update == nil && w.action.Delete == nil {
		return w
	}
	prev := model.BytesAttr(cur, model.AttrIX)
	p := *w
	p.prev, p.known, p.pinned = prev, true, true
	orig := w.retry
	p.retry = func(now model.Item) (*write, error) {
		if (now == nil) == (cur == nil) && bytes.Equal(model.BytesAttr(now, model.AttrIX), prev) {
			if orig == nil {
				return nil, nil
			}
			return orig(now)
		}
		return c.pin(w, now), nil
	}
	return &p
}

// rankDeltas is what g's writes change in each range of ranges.
func rankDeltas(g *group, ranges []rankRange) map[int]int64 {
	d := map[int]int64{}
	for _, w := range g.writes {
		if w.action.ConditionCheck != nil {
			continue
		}
		if w.prev != nil {
			d[find(ranges, w.prev)]--
		}
		if w.ix != nil && w.action.Delete == nil {
			d[find(ranges, w.ix)]++
		}
	}
	return d
}

// rankWrites are the count-item actions of g's writes (none when its key
// is not ranked).
func (c *Client) rankWrites(g *group) []*write {
	if g.typ != model.TypeZSet {
		return nil
	}
	b := g.rank
	if b == nil || !b.ranked {
		return nil
	}
	var out []*write
	for i, d := range rankDeltas(g, b.ranges) {
		r := b.ranges[i]
		names := map[string]string{"#n": model.AttrCard, "#cv": model.AttrCV, "#hi": model.AttrHi}
		values := model.Item{":d": model.Num(d), ":cv": model.Bin(versionToken())}
		cond := "attribute_exists(#n) AND attribute_not_exists(#hi)"
		if r.hi != nil {
			cond = "attribute_exists(#n) AND #hi = :hi"
			values[":hi"] = model.Bin(r.hi)
		}
		out = append(out, &write{rankItem: true, action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.table(), Key: model.ItemKey(g.key, rankSK(r.lo)),
			UpdateExpression:          aws.String("ADD #n :d SET #cv = :cv"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}}})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(writeSK(out[i]), writeSK(out[j])) < 0 })
	return out
}

// isRanked reports whether g's writer believes its key ranked: its
// metadata condition requires rk and its writes carry count items.
func isRanked(g *group) bool {
	return g.typ == model.TypeZSet && g.rank != nil && g.rank.ranked
}

// rankCond is what a count-item action (rankWrites) requires of its item:
// two actions on one count item merge only when it is the same.
func rankCond(w *write) string {
	u := w.action.Update
	return aws.ToString(u.ConditionExpression) + "\x00" + string(model.BytesAttr(u.ExpressionAttributeValues, ":hi"))
}

// rankMerged is one action for the count-item actions ws of one count
// item with the same condition (write combining, combine.go): it adds the
// sum of their changes.
func rankMerged(ws []*write) types.TransactWriteItem {
	var d int64
	for _, w := range ws {
		v, _ := w.action.Update.ExpressionAttributeValues[":d"].(*types.AttributeValueMemberN)
		if v != nil {
			n, _ := strconv.ParseInt(v.Value, 10, 64)
			d += n
		}
	}
	u := *ws[0].action.Update
	values := model.Item{}
	for k, v := range u.ExpressionAttributeValues {
		values[k] = v
	}
	values[":d"] = model.Num(d)
	u.ExpressionAttributeValues = values
	return types.TransactWriteItem{Update: &u}
}

// rankCommitted notes what g's committed transaction changed in its
// ranges (counts) and splits those it grew past the bound. Errors are
// ignored: a split left undone is done by the next writer or reader.
// Attempts combined into one transaction (combine.go) each note their own
// changes, into the Client's belief when its ranges are still the ones
// the attempt wrote to.
func (c *Client) rankCommitted(ctx context.Context, g *group, counts []*write) {
	if len(counts) == 0 || !isRanked(g) {
		return
	}
	b := g.rank
	c.ranks.mu.Lock()
	base := b.ranges
	if cur := c.belief(g.key); cur.ranked && sameBounds(cur.ranges, b.ranges) {
		base = cur.ranges
	}
	ranges := append([]rankRange(nil), base...)
	var (
		big    []rankRange
		shrunk []int
	)
	for i, d := range rankDeltas(g, ranges) {
		ranges[i].n += d
		if ranges[i].n > c.rankMax() {
			big = append(big, ranges[i])
		}
		if d < 0 {
			shrunk = append(shrunk, i)
		}
	}
	c.setBelief(g.key, &rankBelief{ranked: true, ranges: ranges})
	c.ranks.mu.Unlock()
	for _, r := range big {
		_ = c.rankSplit(ctx, g.key, r.lo)
	}
	c.rankMerges(ctx, g.key, ranges, shrunk)
}

// sameBounds reports whether a and b cut the index values alike.
func sameBounds(a, b []rankRange) bool {
	return slices.EqualFunc(a, b, func(x, y rankRange) bool {
		return bytes.Equal(x.lo, y.lo) && bytes.Equal(x.hi, y.hi) && (x.hi == nil) == (y.hi == nil)
	})
}

// metaAndRanges reads key's metadata item (strongly consistent when
// consistent says so) and its count items in parallel, and alongside them
// the extra reads of a caller, as more(0) ... more(extra-1).
func (c *Client) metaAndRanges(ctx context.Context, key string, consistent *bool, extra int, more func(i int) error) (model.Item, []rankRange, error) {
	var (
		mt     model.Item
		ranges []rankRange
	)
	err := c.parallel(2+extra, func(i int) error {
		var err error
		switch i {
		case 0:
			mt, err = c.getItem(ctx, model.MetaKey(key), consistent, nil, nil)
		case 1:
			ranges, err = c.readRanges(ctx, key)
		default:
			err = more(i - 2)
		}
		return err
	})
	return mt, ranges, err
}

// rankDrop deletes the count items of a key that was deleted (DEL,
// RENAME's source, a purge), as Redis frees all a deleted key holds. Each
// delete requires the count item as read (cv) and the key not ranked
// (no rk, or no metadata item): a key written and built again meanwhile
// keeps its new count items, and a transaction cancelled so is left
// alone (the next build replaces what stays).
//
// Cost: a Query of the count items, a TransactWriteItems per 99.
func (c *Client) rankDrop(ctx context.Context, key string) error {
	ranges, err := c.readRanges(ctx, key)
	if err != nil {
		return err
	}
	guard := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: c.table(), Key: model.MetaKey(key),
		ConditionExpression:      aws.String("attribute_not_exists(#rk)"),
		ExpressionAttributeNames: map[string]string{"#rk": model.AttrRanked},
	}}
	for chunk := range slices.Chunk(ranges, maxTxItems-1) {
		actions := []types.TransactWriteItem{guard}
		for _, r := range chunk {
			del := &types.Delete{
				TableName: c.table(), Key: model.ItemKey(key, rankSK(r.lo)),
				ConditionExpression:      aws.String("attribute_not_exists(#cv)"),
				ExpressionAttributeNames: map[string]string{"#cv": model.AttrCV},
			}
			if r.cv != nil {
				del.ConditionExpression = aws.String("#cv = :cv")
				del.ExpressionAttributeValues = model.Item{":cv": model.Bin(r.cv)}
			}
			actions = append(actions, types.TransactWriteItem{Delete: del})
		}
		if err := ignoreCancelled(c.sendTx(ctx, actions)); err != nil {
			return err
		}
	}
	return nil
}

// readRanges reads key's count items, in order.
func (c *Client) readRanges(ctx context.Context, key string) ([]rankRange, error) {
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":p": model.Bin([]byte{model.RankPrefix})},
		ConsistentRead:            aws.Bool(true),
	}
	var out []rankRange
	for it, err := range c.query(ctx, in, 0) {
		if err != nil {
			return nil, err
		}
		out = append(out, decodeRange(it))
	}
	return out, nil
}

func decodeRange(it model.Item) rankRange {
	r := rankRange{lo: model.BytesAttr(it, model.AttrSK)[1:], hi: model.BytesAttr(it, model.AttrHi), cv: model.BytesAttr(it, model.AttrCV)}
	if r.lo == nil {
		r.lo = []byte{}
	}
	if v, ok := it[model.AttrCard].(*types.AttributeValueMemberN); ok {
		r.n, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	return r
}

// rankSplit splits the range of key that starts at lo when it holds more
// than the bound (see the file comment), in halves until each is within
// it. It reports nothing when the range changed meanwhile: the next
// writer that grows it splits it.
func (c *Client) rankSplit(ctx context.Context, key string, lo []byte) error {
	it, err := c.getItem(ctx, model.ItemKey(key, rankSK(lo)), aws.Bool(true), nil, nil)
	if err != nil || it == nil {
		return err
	}
	r := decodeRange(it)
	if r.n <= c.rankMax() {
		return nil
	}
	keep := r.n / 2
	cond, values := "#pk = :pk", model.Item{":pk": model.Bin(model.PkValue(key))}
	if len(lo) > 0 {
		cond += " AND #ix >= :lo"
		values[":lo"] = model.Bin(lo)
	}
	in := &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: values,
		ConsistentRead:            aws.Bool(true),
	}
	if len(lo) == 0 {
		delete(in.ExpressionAttributeNames, "#ix")
	}
	var ixs [][]byte
	for it, err := range c.query(ctx, in, int(keep)+1) {
		if err != nil {
			return err
		}
		if int64(len(ixs)) <= keep {
			ixs = append(ixs, model.BytesAttr(it, model.AttrIX))
		}
	}
	if int64(len(ixs)) <= keep {
		return nil // the range changed meanwhile
	}
	mid, ok := boundAt(ixs, int(keep))
	if !ok || (r.hi != nil && bytes.Compare(mid, r.hi) >= 0) {
		// The range changed meanwhile, or its middle is a run of long
		// members sharing their first bytes: no bound can fall there.
		return nil
	}
	newItem := model.ItemKey(key, rankSK(mid))
	newItem[model.AttrCard] = model.Num(r.n - keep)
	newItem[model.AttrCV] = model.Bin(versionToken())
	if r.hi != nil {
		newItem[model.AttrHi] = model.Bin(r.hi)
	}
	err = c.sendTx(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: c.table(), Key: model.ItemKey(key, rankSK(lo)),
			UpdateExpression:         aws.String("SET #hi = :mid, #cv = :ncv, #n = :keep"),
			ConditionExpression:      aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames: map[string]string{"#hi": model.AttrHi, "#cv": model.AttrCV, "#n": model.AttrCard},
			ExpressionAttributeValues: model.Item{":mid": model.Bin(mid), ":ncv": model.Bin(versionToken()), ":keep": model.Num(keep),
				":cv": model.Bin(r.cv), ":n": model.Num(r.n)},
		}},
		{Put: &types.Put{
			TableName: c.table(), Item: newItem,
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK},
		}},
	})
	c.rankStale(key)
	if err != nil {
		return ignoreCancelled(err)
	}
	// Halves still past the bound (a range grown by far more than one
	// transaction's writes, as with the small bounds of tests) split again.
	if keep > c.rankMax() {
		if err := c.rankSplit(ctx, key, lo); err != nil {
			return err
		}
	}
	if r.n-keep > c.rankMax() {
		return c.rankSplit(ctx, key, mid)
	}
	return nil
}

// rankBuild gives key count items (see the file comment) when it is an
// unranked sorted set with no expiry and no member expiries, and reports
// whether it is ranked now. Its caller is the writer whose write takes
// the key to the build minimum (rankGuard).
func (c *Client) rankBuild(ctx context.Context, key string) (bool, error) {
	mt, err := c.getItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
	if err != nil {
		return false, err
	}
	m := c.liveMeta(mt)
	if _, ok := mt[model.AttrRanked]; ok {
		c.setBelief(key, &rankBelief{ranked: true})
		return true, nil
	}
	if m.Typ != model.TypeZSet || m.Exp > 0 || m.Ttls > 0 {
		return false, nil
	}
	ver := model.BytesAttr(mt, model.AttrVer)
	if ver == nil {
		return false, nil
	}
	var ixs [][]byte
	in := c.scoreQuery(key, math.Inf(-1), math.Inf(1))
	in.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(ctx, in, 0) {
		if err != nil {
			return false, err
		}
		ixs = append(ixs, model.BytesAttr(it, model.AttrIX))
	}
	if int64(len(ixs)) != m.Card {
		return false, nil
	}
	stale, err := c.readRanges(ctx, key)
	if err != nil {
		return false, err
	}
	per := int(max(c.rankMax()/2, 1))
	// Ranges start every per members, or just after, where a bound can
	// start (boundAt: long members sharing their first bytes).
	starts, bounds := []int{0}, [][]byte{{}}
	for i := per; i < len(ixs); i++ {
		if b, ok := boundAt(ixs, i); ok && i-starts[len(starts)-1] >= per {
			starts, bounds = append(starts, i), append(bounds, b)
		}
	}
	var actions []types.TransactWriteItem
	made := map[string]bool{}
	for j, i := range starts {
		lo, end := bounds[j], len(ixs)
		it := model.ItemKey(key, rankSK(lo))
		if j+1 < len(starts) {
			end = starts[j+1]
			it[model.AttrHi] = model.Bin(bounds[j+1])
		}
		it[model.AttrCard] = model.Num(int64(end - i))
		it[model.AttrCV] = model.Bin(versionToken())
		made[string(lo)] = true
		actions = append(actions, types.TransactWriteItem{Put: &types.Put{TableName: c.table(), Item: it}})
	}
	for _, r := range stale {
		if !made[string(r.lo)] {
			actions = append(actions, types.TransactWriteItem{Delete: &types.Delete{TableName: c.table(), Key: model.ItemKey(key, rankSK(r.lo))}})
		}
	}
	// Transactions of 99 count items, each on condition that the key is
	// as read (version token, count, no expiry, not ranked); the last one
	// sets rk. A build cut short leaves count items nobody reads (no rk),
	// which the next build replaces.
	names := map[string]string{"#v": model.AttrVer, "#n": model.AttrCard, "#t": model.AttrType, "#x": model.AttrExp, "#rk": model.AttrRanked}
	values := model.Item{":v": model.Bin(ver), ":n": model.Num(m.Card), ":t": model.Str(string(model.TypeZSet))}
	const as = "#v = :v AND #n = :n AND #t = :t AND attribute_not_exists(#x) AND attribute_not_exists(#rk)"
	for start := 0; start < len(actions); start += maxTxItems - 1 {
		chunk := actions[start:min(start+maxTxItems-1, len(actions))]
		guard := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: c.table(), Key: model.MetaKey(key),
			ConditionExpression: aws.String(as), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		}}
		if start+maxTxItems-1 >= len(actions) {
			withOne := model.Item{":one": model.Num(1)}
			for k, v := range values {
				withOne[k] = v
			}
			guard = types.TransactWriteItem{Update: &types.Update{
				TableName: c.table(), Key: model.MetaKey(key),
				UpdateExpression:    aws.String("SET #rk = :one"),
				ConditionExpression: aws.String(as), ExpressionAttributeNames: names, ExpressionAttributeValues: withOne,
			}}
		}
		if err := c.sendTx(ctx, append(append([]types.TransactWriteItem(nil), chunk...), guard)); err != nil {
			return false, ignoreCancelled(err)
		}
	}
	c.setBelief(key, &rankBelief{ranked: true})
	return true, nil
}

// rankByIndex is the rank of the member whose item is it in key (counted
// from the lowest score, or from the highest with rev) from the count
// items, and ok; ok is false when key has none (it is not ranked): the
// caller counts. m is the key's metadata item and
// ranges what a Query of its count items gave at the same time.
//
// Cost: the count items' Query (done by the caller, in parallel with its
// BatchGetItem) plus one Query COUNT of at most rankMax entries of one
// range: 1 read unit per ~80 entries.
func (c *Client) rankByIndex(ctx context.Context, key string, meta model.Item, ranges []rankRange, ix []byte, rev bool) (int64, bool, error) {
	if _, ok := meta[model.AttrRanked]; !ok {
		return 0, false, nil // not ranked: the caller counts
	}
	if len(ranges) == 0 || len(ranges[0].lo) != 0 {
		return 0, false, nil // cannot be while rk is set; count instead
	}
	i := find(ranges, ix)
	r := ranges[i]
	pk := model.Bin(model.PkValue(key))
	// equal: the members whose index value is ix: the member alone, or a
	// run of long members (longmember.go; rank adds those of the run
	// before it).
	equal := int64(1)
	if len(ix) == 9+model.InlineMemberLen {
		var err error
		if equal, err = c.queryCount(ctx, &dynamodb.QueryInput{
			IndexName:                 aws.String(c.opts.IndexName),
			KeyConditionExpression:    aws.String("#pk = :pk AND #ix = :ix"),
			ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
			ExpressionAttributeValues: model.Item{":pk": pk, ":ix": model.Bin(ix)},
		}); err != nil {
			return 0, false, err
		}
	}
	// below: the members of r under ix, counted from the end of r nearer
	// to ix (as far as its bounds tell: nearer), so a count reads at most
	// about half a range when members spread evenly.
	var prev []byte
	if i > 0 {
		prev = ranges[i-1].lo
	}
	below, err := c.countWithin(ctx, key, prev, r, ix, equal)
	if err != nil {
		return 0, false, err
	}
	var n int64
	if rev {
		for _, o := range ranges[i+1:] {
			n += o.n
		}
		n += r.n - equal - below
	} else {
		for _, o := range ranges[:i] {
			n += o.n
		}
		n += below
	}
	return n, true, nil
}

// rankProbe reads member's item and key's metadata item (one
// BatchGetItem) and, in parallel, key's count items. it is nil when the
// member or the key is missing or expired; a key of another type is
// ErrWrongType.
func (c *Client) rankProbe(ctx context.Context, key, member string) (it, mt model.Item, ranges []rankRange, err error) {
	ctx = c.labelled(ctx)
	var items []model.Item
	err = c.parallel(2, func(i int) error {
		var err error
		if i == 0 {
			items, err = c.batchGet(ctx, []model.Item{model.MetaKey(key), model.ItemKey(key, model.MemberSK(model.TypeZSet, member))}, nil, nil)
		} else {
			ranges, err = c.readRanges(ctx, key)
		}
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for _, x := range items {
		if _, _, ok := model.MemberOf(x); ok {
			it = x
		} else {
			mt = x
		}
	}
	m, err := c.ofType(ctx, key, c.liveMeta(mt), model.TypeZSet)
	if err != nil || m.Typ == model.TypeNone {
		return nil, nil, nil, err
	}
	if it != nil && expiredAt(it, c.nowMs()) {
		it = nil // an expired member is a missing one (memberttl.go)
	}
	return it, mt, ranges, nil
}

// rankFrom is the rank of the member at ix in key, from the count items
// when the key has them (or gets them now), else counted (O(rank)).
func (c *Client) rankFrom(ctx context.Context, key string, mt model.Item, ranges []rankRange, ix []byte, rev bool) (int64, error) {
	if n, ok, err := c.rankByIndex(ctx, key, mt, ranges, ix, rev); err != nil || ok {
		return n, err
	}
	cond := "#pk = :pk AND #ix < :ix"
	if rev {
		cond = "#pk = :pk AND #ix > :ix"
	}
	return c.queryCount(ctx, &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":ix": model.Bin(ix)},
	})
}

// rankSeek moves a rank range that starts deep in the set (offset ≥
// rankMax) to the count range holding its first rank: the Query then
// starts at that range's bound and skips at most a range's members
// instead of offset; or, when the last rank wanted is nearer the end of
// its range, it starts at that end and reads backwards, so it skips at
// most about half a range. A key without count items is left as it is.
//
// Cost: one GetItem of the metadata item and one Query of the count items,
// in parallel.
func (c *Client) rankSeek(ctx context.Context, key string, r *zrange) error {
	if c.tx != nil {
		return nil // a transaction reads its snapshot
	}
	mt, ranges, err := c.metaAndRanges(c.labelled(ctx), key, c.consistent(), 0, nil)
	if err != nil {
		return err
	}
	if _, ok := mt[model.AttrRanked]; !ok || len(ranges) == 0 {
		return nil
	}
	if r.rev {
		slices.Reverse(ranges)
	}
	// The ranks before each range, in the direction of the read.
	before := make([]int64, len(ranges)+1)
	for i, g := range ranges {
		before[i+1] = before[i] + g.n
	}
	at := func(rank int64) int { // the range holding rank (len: past the end)
		return sort.Search(len(ranges), func(i int) bool { return before[i+1] > rank })
	}
	i := at(r.offset)
	if i == len(ranges) {
		return nil
	}
	// start moves the read to begin at the near bound of ranges[j] (its
	// lo, or its hi reading down), or at its far bound reading the other
	// way (flip), then skip offset entries.
	start := func(j int, flip bool, offset int64) bool {
		up := r.rev == flip // reading up the index from the new start
		bound, cond := ranges[j].lo, "#pk = :pk AND #ix >= :b"
		if !up {
			bound, cond = ranges[j].hi, "#pk = :pk AND #ix < :b"
		}
		if len(bound) == 0 {
			return false
		}
		in := *r.in
		in.KeyConditionExpression = aws.String(cond)
		in.ExpressionAttributeValues = model.Item{":pk": model.Bin(model.PkValue(key)), ":b": model.Bin(bound)}
		r.in, r.offset = &in, offset
		if flip {
			r.rev, r.reverseResult = !r.rev, !r.reverseResult
		}
		return true
	}
	// The ranks wanted end in range h: when its last one is nearer the far
	// end of h than the first one is to the near end of range i, read
	// from the far end of h backwards (the reply is put back in order).
	if r.count > 0 {
		last := r.offset + r.count - 1
		if h := at(last); h < len(ranges) && before[h+1]-1-last < r.offset-before[i] {
			if start(h, true, before[h+1]-1-last) {
				return nil
			}
		}
	}
	start(i, false, r.offset-before[i])
	return nil
}
