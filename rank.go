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
// Client (model.RankBelief) and only re-read them when a condition fails.
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
// Splits. A range with more than model.RankMax members is split in two by
// rankSplit: read the count item (n, cv), read the first n/2+1 index values
// of the range, and in one transaction shorten the range to the (n/2+1)-th
// value and create the range that starts there with the rest, on condition
// that cv did not change (no write touched the range meanwhile). Writers
// split the ranges they grew past model.RankMax (by their own count) after their
// transaction (a split that fails is tried again by the next writer that
// grows the range; readers never write). Ranges
// that shrink merge (rank_merge.go): a writer that shrank a range joins it
// with a neighbour when together they hold at most model.RankMax/2.
//
// Building. Keys start unranked. The metadata action of a writer that
// believes a sorted set unranked and adds d members requires that the key
// stays under model.RankMin members (rankGuard); the write that would take
// it to model.RankMin fails that condition, builds its count items
// (rankBuild, rank_build.go: a claim that marks the key being built, then a
// finish that counts from one read of the index values and the writers'
// journal, neither conditioned on the members' writes, so writes to the
// key cannot cancel it), and writes again, ranked. While a build runs,
// writers keep its count items and journal their members; the build's
// token (rb) on the metadata item says so. So reads never write: ZRANK
// and the other rank reads of an unranked key count (O(rank)), never a
// wrong answer. A key with an expiry or with member expiries is not built
// (its writes do not carry the minimum); nor is one that grows inside EXEC
// (rank_exec.go) or one whose build was cancelled (group.model.NoBuild):
// the next write that adds a member builds it. Keys made bigger than
// model.RankMin before redimo kept count items on write are built by their
// next such write.
//
// Count items of a key that is deleted go after it (rankDrop: DEL,
// RENAME's source, a purge); any left behind (a deletion cut short, a key
// unranked by EXEC) are ignored, as the new metadata item has no rk,
// until the key is built again, which deletes them.
//
// Readers: ZRANK/ZREVRANK and ZRankAround (rankByIndex, counting within
// one range from its nearer end: rank_count.go), ZRANGE/ZREVRANGE/
// ZREMRANGEBYRANK deep in the set (seek), ZCOUNT and, on equal
// scores, ZLEXCOUNT over wide ranges (rank_count.go), ZRANDMEMBER
// (rank_rand.go). Writers besides transact: EXEC (rank_exec.go).

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

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
	return model.RankMax
}

func (c *Client) rankMin() int64 {
	if c.ranks.min > 0 {
		return int64(c.ranks.min)
	}
	return model.RankMin
}

func (c *Client) belief(key string) *model.RankBelief {
	if b, ok := c.ranks.beliefs.Load(key); ok {
		return b.(*model.RankBelief)
	}
	return &model.RankBelief{}
}

func (c *Client) setBelief(key string, b *model.RankBelief) {
	if !b.Keeps() {
		c.ranks.beliefs.Delete(key)
		return
	}
	c.ranks.beliefs.Store(key, b)
}

// chunksOf cuts the writes of one key into transactions. For a ranked key
// whose ranges are known, the writes go in index order and each chunk
// takes writes while they, the count items they touch and the metadata
// item fit in model.MaxTxItems (a write whose old value is unknown counts one
// count item of its own); so 1,000 new members among R ranges take about
// (1000 + min(R, 1000))/99 transactions. writeChunks cuts a chunk
// into chunks of model.RankStep when the ranges changed meanwhile.
func (c *Client) chunksOf(key string, typ model.KeyType, writes []*model.Write) [][]*model.Write {
	b := c.belief(key)
	if typ != model.TypeZSet || !b.Keeps() {
		return model.FixedChunks(writes, model.MaxTxItems-1)
	}
	if b.Ranges == nil || len(writes) == 0 {
		return model.FixedChunks(writes, model.RankStep)
	}
	at := func(w *model.Write) []byte {
		if w.Ix != nil {
			return w.Ix
		}
		return w.Prev
	}
	// Index order, or reverse index order when the writes come that way
	// (ZPOPMAX: its reply is in the order the writes applied).
	dir := 1
	if slices.IsSortedFunc(writes, func(x, y *model.Write) int { return bytes.Compare(at(y), at(x)) }) {
		dir = -1
	}
	sorted := slices.Clone(writes)
	slices.SortStableFunc(sorted, func(x, y *model.Write) int { return dir * bytes.Compare(at(x), at(y)) })
	var (
		out     [][]*model.Write
		chunk   []*model.Write
		touched = map[int]bool{}
	)
	for i, w := range sorted {
		var rs []int
		switch {
		case !w.Known:
			rs = []int{-1 - i}
		default:
			if w.Prev != nil {
				rs = append(rs, model.Find(b.Ranges, w.Prev))
			}
			if w.Ix != nil {
				rs = append(rs, model.Find(b.Ranges, w.Ix))
			}
		}
		fresh := 0
		for _, r := range rs {
			if !touched[r] {
				fresh++
			}
		}
		if len(chunk) > 0 && len(chunk)+1+len(touched)+fresh+1 > model.MaxTxItems {
			out, chunk, touched = append(out, chunk), nil, map[int]bool{}
		}
		chunk = append(chunk, w)
		for _, r := range rs {
			touched[r] = true
		}
	}
	return append(out, chunk)
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
//
// A writer that believes the key being built requires that build and
// journals its members (rankJournal).
func (c *Client) rankGuard(g *model.Group, d int64, m *model.MetaWrite) {
	switch {
	case g.Typ != model.TypeZSet:
	case g.Rank != nil && g.Rank.Ranked:
		m.RequireRanked(true)
	case model.Building(g) != nil:
		m.RequireRanked(false).RequireBuild(g.Rank.Build)
		if !g.GivesExpiry() { // else metaAction cancels the build (RemoveRanked)
			m.Journal(rankJournal(g))
		}
	case d <= 0 || g.NoBuild:
		m.RequireRanked(false).RequireBuild(nil)
	default:
		m.RequireRanked(false).RequireBuild(nil).Value(":rklim", model.Num(c.rankMin()-d)).Value(":rk0", model.Num(0)).
			Require("attribute_not_exists(#n) OR #n < :rklim OR attribute_exists(#x) OR #mn > :rk0")
	}
}

// rankJournal is the journal entries of g's writes to a key being built:
// for each member written, the range its old index value is in (-1: it
// was absent), exact since the writes' old values are (rankPrepare).
func rankJournal(g *model.Group) map[string]int {
	out := map[string]int{}
	for _, w := range g.Writes {
		if w.Action.ConditionCheck != nil {
			continue
		}
		r := -1
		if w.Prev != nil {
			r = model.Find(g.Rank.Ranges, w.Prev)
		}
		out[string(model.WriteSK(w))] = r
	}
	return out
}

// rankCrossed reports whether the metadata item it, returned by g's
// failed metadata action, shows that g's writes would take an unranked
// sorted set to the build minimum: once the type and the expiry passed
// (transact checks them first), an unranked sorted set with no expiry
// and no member expiries whose count and the writes' reach the minimum
// failed rankGuard's, whatever the other attempts combined with g's
// added (combine.go).
func (c *Client) rankCrossed(g *model.Group, it model.Item) bool {
	if g.Typ != model.TypeZSet || g.NoBuild || (g.Rank != nil && g.Rank.Ranked) {
		return false
	}
	var d int64
	for _, w := range g.Writes {
		d += w.Delta
	}
	m := model.DecodeMeta(it)
	_, ranked := it[model.AttrRanked]
	_, building := it[model.AttrBuild] // then rankSeen made g's writer one of the build's
	// n + d ≥ the minimum is rankGuard's condition failing, read on the
	// item itself: a metadata action refused for another reason never
	// builds count items (an expiring set of 40 members under faults
	// once ended with them, TestExpiringSetFaults; cause not found).
	return d > 0 && !ranked && !building && m.Typ == model.TypeZSet && m.Exp == 0 && m.TTLs == 0 && m.Card+d >= c.rankMin()
}

// rankCreated builds the count items of a key that g's committed writes
// made at least model.RankMin members big at once, which rankGuard cannot see:
// a key created by them (possible only when model.RankMin is below a
// transaction's 99 writes, as in tests). A build left undone is done by
// the next write that adds a member: a write that added members to a key
// being built finishes the build (rankFinish), so one whose builder
// stopped (a crash, an error) ends with the next such write.
func (c *Client) rankCreated(ctx context.Context, g *model.Group) {
	var d int64
	for _, w := range g.Writes {
		d += w.Delta
	}
	switch {
	case d > 0 && model.Building(g) != nil:
		_, _ = c.rankFinish(ctx, g.Key, g.Rank.Build, nil)
	case g.Typ == model.TypeZSet && !model.IsRanked(g) && !g.NoBuild && d >= c.rankMin():
		_, _ = c.rankBuild(ctx, g.Key)
	}
}

// rankSeen learns from a failed metadata condition (it, the item as it
// is; nil when absent) whether the key is ranked.
func (c *Client) rankSeen(g *model.Group, it model.Item) {
	if g.Typ != model.TypeZSet {
		return
	}
	_, ranked := it[model.AttrRanked]
	var build []byte
	if !ranked {
		build = model.BytesAttr(it, model.AttrBuild)
	}
	if b := c.belief(g.Key); ranked != b.Ranked || !bytes.Equal(build, b.Build) {
		c.setBelief(g.Key, &model.RankBelief{Ranked: ranked, Build: build})
	}
}

// rankStale forgets the ranges of key (a count item's condition failed).
func (c *Client) rankStale(key string) {
	if b := c.belief(key); b.Keeps() {
		c.setBelief(key, &model.RankBelief{Ranked: b.Ranked, Build: b.Build})
	}
}

// rankPrepare readies groups of ranked keys for rankWrites: reads their
// ranges when unknown, and pins the old index value of every write that
// does not know it.
func (c *Client) rankPrepare(ctx context.Context, groups []*model.Group) error {
	for _, g := range groups {
		if g.Typ != model.TypeZSet {
			continue
		}
		b := c.belief(g.Key)
		g.Rank = b
		if !b.Keeps() {
			continue
		}
		if b.Ranges == nil {
			ranges, err := c.readRanges(ctx, g.Key)
			if err != nil {
				return err
			}
			if len(ranges) == 0 { // rk or rb without count items cannot be: the metadata condition will tell
				ranges = []model.RankRange{{}}
			}
			b = &model.RankBelief{Ranked: b.Ranked, Build: b.Build, Ranges: ranges}
			c.setBelief(g.Key, b)
			g.Rank = b
		}
		var keys []model.Item
		var loose []*model.Write
		for _, w := range g.Writes {
			if !w.Known && w.Action.ConditionCheck == nil {
				keys = append(keys, model.ItemKey(g.Key, model.WriteSK(w)))
				loose = append(loose, w)
			}
		}
		if len(keys) == 0 {
			continue
		}
		found, err := c.st.BatchGet(ctx, keys, nil, nil)
		if err != nil {
			return err
		}
		now := map[string]model.Item{}
		for _, it := range found {
			now[string(model.BytesAttr(it, model.AttrSK))] = it
		}
		for _, w := range loose {
			g.Replace(w, c.pin(w, now[string(model.WriteSK(w))]))
		}
	}
	return nil
}

// pin is w on condition that its member's index value is still the one
// cur (the member's item; nil when absent) holds: its old value known
// (write.pinned: rendered adds the condition). When that condition is
// what failed, the pinned write is pinned again to the new value; else
// w's own retry decides.
func (c *Client) pin(w *model.Write, cur model.Item) *model.Write {
	if w.Action.Update == nil && w.Action.Delete == nil {
		return w
	}
	prev := model.BytesAttr(cur, model.AttrIX)
	p := *w
	p.Prev, p.Known, p.Pinned = prev, true, true
	orig := w.Retry
	p.Retry = func(now model.Item) (*model.Write, error) {
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

// rankWrites are the count-item actions of g's writes (none when its key
// is not ranked).
func (c *Client) rankWrites(g *model.Group) []*model.Write {
	if g.Typ != model.TypeZSet {
		return nil
	}
	b := g.Rank
	if !b.Keeps() {
		return nil
	}
	var out []*model.Write
	for i, d := range model.RankDeltas(g, b.Ranges) {
		r := b.Ranges[i]
		names := map[string]string{"#n": model.AttrCard, "#cv": model.AttrCV, "#hi": model.AttrHi}
		values := model.Item{":d": model.Num(d), ":cv": model.Bin(model.VersionToken())}
		cond := "attribute_exists(#n) AND attribute_not_exists(#hi)"
		if r.Hi != nil {
			cond = "attribute_exists(#n) AND #hi = :hi"
			values[":hi"] = model.Bin(r.Hi)
		}
		out = append(out, &model.Write{RankItem: true, Action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(g.Key, model.RankSK(r.Lo)),
			UpdateExpression:          aws.String("ADD #n :d SET #cv = :cv"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}}})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(model.WriteSK(out[i]), model.WriteSK(out[j])) < 0 })
	return out
}

// rankCommitted notes what g's committed transaction changed in its
// ranges (counts) and splits those it grew past the bound. Errors are
// ignored: a split left undone is done by the next writer or reader.
// Attempts combined into one transaction (combine.go) each note their own
// changes, into the Client's belief when its ranges are still the ones
// the attempt wrote to.
func (c *Client) rankCommitted(ctx context.Context, g *model.Group, counts []*model.Write) {
	if len(counts) == 0 || !model.IsRanked(g) || model.Building(g) != nil {
		return // a build's count items hold changes, not counts, until it ends
	}
	b := g.Rank
	c.ranks.mu.Lock()
	base := b.Ranges
	if cur := c.belief(g.Key); cur.Ranked && model.SameBounds(cur.Ranges, b.Ranges) {
		base = cur.Ranges
	}
	ranges := append([]model.RankRange(nil), base...)
	var (
		big    []model.RankRange
		shrunk []int
	)
	for i, d := range model.RankDeltas(g, ranges) {
		ranges[i].N += d
		if ranges[i].N > c.rankMax() {
			big = append(big, ranges[i])
		}
		if d < 0 {
			shrunk = append(shrunk, i)
		}
	}
	c.setBelief(g.Key, &model.RankBelief{Ranked: true, Ranges: ranges})
	c.ranks.mu.Unlock()
	for _, r := range big {
		_ = c.rankSplit(ctx, g.Key, r.Lo)
	}
	c.rankMerges(ctx, g.Key, ranges, shrunk)
}

// metaAndRanges reads key's metadata item (strongly consistent when
// consistent says so) and its count items in parallel, and alongside them
// the extra reads of a caller, as more(0) ... more(extra-1).
func (c *Client) metaAndRanges(ctx context.Context, key string, consistent *bool, extra int, more func(i int) error) (model.Item, []model.RankRange, error) {
	var (
		mt     model.Item
		ranges []model.RankRange
	)
	err := c.st.Parallel(2+extra, func(i int) error {
		var err error
		switch i {
		case 0:
			mt, err = c.st.GetItem(ctx, model.MetaKey(key), consistent, nil, nil)
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
// delete requires the count item as read (cv) and the key neither ranked
// nor being built (no rk and no rb, or no metadata item): a key written
// and built again meanwhile
// keeps its new count items, and a transaction cancelled so is left
// alone (the next build replaces what stays).
//
// Cost: a Query of the count items, a TransactWriteItems per 99.
func (c *Client) rankDrop(ctx context.Context, key string) error {
	ranges, err := c.readRanges(ctx, key)
	if err != nil {
		return err
	}
	guard := model.NewMetaWrite(key).RequireRanked(false).Action(c.st.Table())
	for chunk := range slices.Chunk(ranges, model.MaxTxItems-1) {
		actions := []types.TransactWriteItem{guard}
		for _, r := range chunk {
			del := &types.Delete{
				TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(r.Lo)),
				ConditionExpression:      aws.String("attribute_not_exists(#cv)"),
				ExpressionAttributeNames: map[string]string{"#cv": model.AttrCV},
			}
			if r.Cv != nil {
				del.ConditionExpression = aws.String("#cv = :cv")
				del.ExpressionAttributeValues = model.Item{":cv": model.Bin(r.Cv)}
			}
			actions = append(actions, types.TransactWriteItem{Delete: del})
		}
		if err := model.IgnoreCancelled(c.st.SendTx(ctx, actions)); err != nil {
			return err
		}
	}
	return nil
}

// readRanges reads key's count items, in order.
func (c *Client) readRanges(ctx context.Context, key string) ([]model.RankRange, error) {
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":p": model.Bin([]byte{model.RankPrefix})},
		ConsistentRead:            aws.Bool(true),
	}
	var out []model.RankRange
	for it, err := range c.query(ctx, in, 0) {
		if err != nil {
			return nil, err
		}
		out = append(out, model.DecodeRange(it))
	}
	return out, nil
}

// rankSplit splits the range of key that starts at lo when it holds more
// than the bound (see the file comment), in halves until each is within
// it. It reports nothing when the range changed meanwhile: the next
// writer that grows it splits it.
func (c *Client) rankSplit(ctx context.Context, key string, lo []byte) error {
	it, err := c.st.GetItem(ctx, model.ItemKey(key, model.RankSK(lo)), aws.Bool(true), nil, nil)
	if err != nil || it == nil {
		return err
	}
	r := model.DecodeRange(it)
	if r.N <= c.rankMax() {
		return nil
	}
	keep := r.N / 2
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
	mid, ok := model.BoundAt(ixs, int(keep))
	if !ok || (r.Hi != nil && bytes.Compare(mid, r.Hi) >= 0) {
		// The range changed meanwhile, or its middle is a run of long
		// members sharing their first bytes: no bound can fall there.
		return nil
	}
	newItem := model.ItemKey(key, model.RankSK(mid))
	newItem[model.AttrCard] = model.Num(r.N - keep)
	newItem[model.AttrCV] = model.Bin(model.VersionToken())
	if r.Hi != nil {
		newItem[model.AttrHi] = model.Bin(r.Hi)
	}
	err = c.st.SendTx(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(lo)),
			UpdateExpression:         aws.String("SET #hi = :mid, #cv = :ncv, #n = :keep"),
			ConditionExpression:      aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames: map[string]string{"#hi": model.AttrHi, "#cv": model.AttrCV, "#n": model.AttrCard},
			ExpressionAttributeValues: model.Item{":mid": model.Bin(mid), ":ncv": model.Bin(model.VersionToken()), ":keep": model.Num(keep),
				":cv": model.Bin(r.Cv), ":n": model.Num(r.N)},
		}},
		{Put: &types.Put{
			TableName: c.st.Table(), Item: newItem,
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK},
		}},
	})
	c.rankStale(key)
	if err != nil {
		return model.IgnoreCancelled(err)
	}
	// Halves still past the bound (a range grown by far more than one
	// transaction's writes, as with the small bounds of tests) split again.
	if keep > c.rankMax() {
		if err := c.rankSplit(ctx, key, lo); err != nil {
			return err
		}
	}
	if r.N-keep > c.rankMax() {
		return c.rankSplit(ctx, key, mid)
	}
	return nil
}

// rankByIndex is the rank of the member whose item is it in key (counted
// from the lowest score, or from the highest with rev) from the count
// items, and ok; ok is false when key has none (it is not ranked): the
// caller counts. m is the key's metadata item and
// ranges what a Query of its count items gave at the same time.
//
// Cost: the count items' Query (done by the caller, in parallel with its
// BatchGetItem) plus one Query COUNT of at most model.RankMax entries of one
// range: 1 read unit per ~80 entries.
func (c *Client) rankByIndex(ctx context.Context, key string, meta model.Item, ranges []model.RankRange, ix []byte, rev bool) (int64, bool, error) {
	if _, ok := meta[model.AttrRanked]; !ok {
		return 0, false, nil // not ranked: the caller counts
	}
	if len(ranges) == 0 || len(ranges[0].Lo) != 0 {
		return 0, false, nil // cannot be while rk is set; count instead
	}
	i := model.Find(ranges, ix)
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
		prev = ranges[i-1].Lo
	}
	below, err := c.countWithin(ctx, key, prev, r, ix, equal)
	if err != nil {
		return 0, false, err
	}
	var n int64
	if rev {
		for _, o := range ranges[i+1:] {
			n += o.N
		}
		n += r.N - equal - below
	} else {
		for _, o := range ranges[:i] {
			n += o.N
		}
		n += below
	}
	return n, true, nil
}

// rankProbe reads member's item and key's metadata item (one
// BatchGetItem) and, in parallel, key's count items. it is nil when the
// member or the key is missing or expired; a key of another type is
// ErrWrongType.
func (c *Client) rankProbe(ctx context.Context, key, member string) (it, mt model.Item, ranges []model.RankRange, err error) {
	ctx = c.labelled(ctx)
	var items []model.Item
	err = c.st.Parallel(2, func(i int) error {
		var err error
		if i == 0 {
			items, err = c.st.BatchGet(ctx, []model.Item{model.MetaKey(key), model.ItemKey(key, model.MemberSK(model.TypeZSet, member))}, nil, nil)
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
	if it != nil && model.ExpiredAt(it, c.nowMs()) {
		it = nil // an expired member is a missing one (memberttl.go)
	}
	return it, mt, ranges, nil
}

// rankFrom is the rank of the member at ix in key, from the count items
// when the key has them (or gets them now), else counted (O(rank)).
func (c *Client) rankFrom(ctx context.Context, key string, mt model.Item, ranges []model.RankRange, ix []byte, rev bool) (int64, error) {
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

// seek moves a rank range that starts deep in the set (offset ≥
// model.RankMax) to the count range holding its first rank: the Query then
// starts at that range's bound and skips at most a range's members
// instead of offset; or, when the last rank wanted is nearer the end of
// its range, it starts at that end and reads backwards, so it skips at
// most about half a range. A key without count items is left as it is.
//
// Cost: one GetItem of the metadata item and one Query of the count items,
// in parallel.
func (t table) seek(ctx context.Context, key string, r *zrange) error {
	c := t.c
	mt, ranges, err := c.metaAndRanges(c.labelled(ctx), key, c.st.Consistent(), 0, nil)
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
		before[i+1] = before[i] + g.N
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
		bound, cond := ranges[j].Lo, "#pk = :pk AND #ix >= :b"
		if !up {
			bound, cond = ranges[j].Hi, "#pk = :pk AND #ix < :b"
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

// runBefore counts the members of key that share member's index value ix
// (long members with its score and first 1015 bytes: longmember.go) and
// come before it: below it, or above it when rev.
func (c *Client) runBefore(ctx context.Context, key string, ix []byte, member string, rev bool) (int64, error) {
	var n int64
	for it, err := range c.query(ctx, &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #ix = :ix"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":ix": model.Bin(ix)},
	}, 0) {
		if err != nil {
			return 0, err
		}
		if m, _, _ := model.MemberOf(it); (m < member && !rev) || (m > member && rev) {
			n++
		}
	}
	return n, nil
}
