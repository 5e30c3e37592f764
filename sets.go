package redimo

// The Redis SET commands.

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strconv"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// SAdd adds members to the set at key, creating it when missing, and returns
// how many were not members before, as Redis's SADD. Repeated members count
// once. The count is exact when other clients write the same key at the same
// time.
//
// Up to 99 distinct members are one atomic transaction; more go in
// transactions of 99, each atomic and exactly counted, the whole not atomic.
//
// Cost: ⌈n/99⌉ TransactWriteItems for n distinct members, 2 write units per
// new member (transactional writes cost double) plus 2 for the metadata
// item: 4 for one new member of an existing set. A set member has no
// index entry ("Set members" in internal/model/keys.go). Members that already exist
// cost one more TransactWriteItems for the chunk that holds them.
//
// [SADD]: https://redis.io/docs/latest/commands/sadd/
func (c *Client) SAdd(ctx context.Context, key string, members ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SAdd")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SADD", key, members); err != nil {
		return 0, err
	}
	members = model.Dedupe(members)
	if n, ok, err := c.view().smallAdd(ctx, key, members); ok {
		return n, wrap("SADD", err)
	}
	writes := make([]*model.Write, len(members))
	for i, m := range members {
		writes[i] = c.putMember(key, model.TypeSet, m, nil)
	}
	applied, err := c.transactChunks(ctx, key, model.TypeSet, writes)
	return model.Counted(applied), wrap("SADD", err)
}

// SRem removes members from the set at key and returns how many were
// members, as Redis's SREM. Removing the last member deletes the key. Exact
// and chunked like SAdd.
//
// Cost: ⌈n/99⌉ TransactWriteItems, 2 write units per removed member plus 2
// for the metadata item; a chunk with absent members, or that empties the
// set, takes one more.
//
// [SREM]: https://redis.io/docs/latest/commands/srem/
func (c *Client) SRem(ctx context.Context, key string, members ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SRem")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SREM", key, members); err != nil {
		return 0, err
	}
	if n, ok, err := c.view().smallRem(ctx, key, model.Dedupe(members)); ok {
		return n, wrap("SREM", err)
	}
	return c.remove(ctx, "SREM", key, model.TypeSet, members)
}

// remove deletes members of a key of type typ; SREM and ZREM.
func (c *Client) remove(ctx context.Context, cmd, key string, typ model.KeyType, members []string) (int64, error) {
	members = model.Dedupe(members)
	writes := make([]*model.Write, len(members))
	for i, m := range members {
		writes[i] = c.deleteMember(key, typ, m)
	}
	applied, err := c.transactChunks(ctx, key, typ, writes)
	return model.Counted(applied), wrap(cmd, err)
}

// SCard returns the number of members of the set at key (0 when missing),
// as Redis's SCARD.
//
// Cost: one GetItem of the metadata item, 1 read unit (0.5 eventually
// consistent), whatever the set's size.
//
// [SCARD]: https://redis.io/docs/latest/commands/scard/
func (c *Client) SCard(ctx context.Context, key string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SCard")
	defer traced.end(&err)
	if err := checkKey("SCARD", key); err != nil {
		return 0, err
	}
	n, err := c.view().liveCount(ctx, key, model.TypeSet)
	return n, wrap("SCARD", err)
}

// SIsMember reports whether member is a member of the set at key, as
// Redis's SISMEMBER.
//
// Cost: one request whatever the encoding: a BatchGetItem of the member
// and the key's metadata item (which tells a wrong type, an expired key,
// or a small set's members), 2 read units; one GetItem (1 read unit) of a
// set this Client last saw small (setProbe).
//
// [SISMEMBER]: https://redis.io/docs/latest/commands/sismember/
func (c *Client) SIsMember(ctx context.Context, key, member string) (_ bool, err error) {
	ctx, traced := c.command(ctx, "SIsMember")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SISMEMBER", key, []string{member}); err != nil {
		return false, err
	}
	found, err := c.view().probe(ctx, key, model.TypeSet, []string{member}, true)
	_, ok := found[member]
	return ok, wrap("SISMEMBER", err)
}

// SMIsMember reports, for each of members, whether it is a member of the set
// at key, as Redis's SMISMEMBER.
//
// Cost: one BatchGetItem per 100 items (the members plus the metadata
// item), 1 read unit per item.
//
// [SMISMEMBER]: https://redis.io/docs/latest/commands/smismember/
func (c *Client) SMIsMember(ctx context.Context, key string, members ...string) (_ []bool, err error) {
	ctx, traced := c.command(ctx, "SMIsMember")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SMISMEMBER", key, members); err != nil {
		return nil, err
	}
	found, err := c.view().probe(ctx, key, model.TypeSet, model.Dedupe(members), true)
	if err != nil {
		return nil, wrap("SMISMEMBER", err)
	}
	out := make([]bool, len(members))
	for i, m := range members {
		_, out[i] = found[m]
	}
	return out, nil
}

// SMembers returns all members of the set at key, in byte order (Redis's
// order is unspecified: redimo sorts what it read), as Redis's SMEMBERS.
// Use SScan to stream a big set.
//
// Cost: one Query per 1 MB of members, 1 read unit per 4 KB read (0.5
// eventually consistent), the metadata item included.
//
// [SMEMBERS]: https://redis.io/docs/latest/commands/smembers/
func (c *Client) SMembers(ctx context.Context, key string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SMembers")
	defer traced.end(&err)
	var out []string
	err = c.leased(ctx, key, func() error { // a set of many pages: leased
		out = out[:0]
		for m, err := range c.SScan(ctx, key, "") {
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("SMEMBERS", err)
	}
	slices.Sort(out)
	return out, nil
}

// SScan returns an iterator over the members of the set at key that match
// the glob-style pattern match ("" or "*" for all), as Redis's SSCAN
// iterated to the end, in no order Redis promises (redimo's: the order of
// a hash of the member, the same for every set; "Set members" in
// internal/model/keys.go). It reads page by page as the caller iterates; a member added
// or removed meanwhile may or may not appear, as with SSCAN, but no member
// present throughout is missed or repeated.
//
// The members are filtered in the client after the read: every pattern,
// a literal prefix ("user:*") included, reads the whole set (unlike
// ZSCAN's, a set's sort keys do not keep its members in byte order).
//
// Cost: one Query per 1 MB of members read, 1 read unit per 4 KB, the
// metadata item included.
//
// [SSCAN]: https://redis.io/docs/latest/commands/sscan/
func (c *Client) SScan(ctx context.Context, key, match string) iter.Seq2[string, error] {
	return traceSeq(c, ctx, "SScan", func(ctx context.Context, yield func(string, error) bool) {
		if err := checkKey("SSCAN", key); err != nil {
			yield("", err)
			return
		}
		items := c.view().keyItems(ctx, key, model.TypeSet) // the metadata item first, for the type check
		for it, err := range items {
			if err != nil {
				yield("", wrap("SSCAN", err))
				return
			}
			m, _, ok := model.MemberOf(it)
			if !ok { // the metadata item comes first
				switch mt, err := c.ofType(ctx, key, c.liveMeta(it), model.TypeSet); {
				case err != nil:
					yield("", err)
					return
				case mt.Typ == model.TypeSet:
					continue
				default: // expired, or all its members: they are not there
					return
				}
			}
			if (match == "" || model.GlobMatch(match, m)) && !yield(m, nil) {
				return
			}
		}
	})
}

// SRandMember returns a random member of the set at key, every member
// equally likely; ok is false when the set is empty or missing. As Redis's
// SRANDMEMBER without count.
//
// Cost: SRandMemberN's with count 1: a GetItem of the metadata item, then
// one round of 1 to 3 Queries (in parallel) of a bucket of 128 to 256
// members each (2 to 4 read units); a set of fewer than 256 members is
// read whole (one Query).
//
// [SRANDMEMBER]: https://redis.io/docs/latest/commands/srandmember/
func (c *Client) SRandMember(ctx context.Context, key string) (member string, ok bool, err error) {
	ctx, traced := c.command(ctx, "SRandMember")
	defer traced.end(&err)
	ms, err := c.SRandMemberN(ctx, key, 1)
	if err != nil || len(ms) == 0 {
		return "", false, err
	}
	return ms[0], true, nil
}

// MaxRandCount bounds the number of members SRandMemberN (and
// ZRandMember) returns for a negative count, which may repeat members
// without limit: the reply is built in memory. (Redis itself runs out of
// memory for counts near -2^62.)
const MaxRandCount = 1 << 24

// SRandMemberN returns random members of the set at key, as Redis's
// SRANDMEMBER with count: for count > 0, min(count, SCARD) distinct
// members; for count < 0, |count| members that may repeat (|count| at most
// MaxRandCount); for 0, none.
//
// Every member is equally likely (randmember.go): a set member's sort key
// starts with a hash of the member, and the hashes are cut into buckets of
// 128 to 256 members on average; a trial reads one random bucket and keeps
// one of its members with probability (members in the bucket)/K, K a
// bound the buckets stay under (246 for 10,000 members), so each member
// has exactly the same chance, whatever the gaps between the hashes. A
// draw takes about 1.5 trials; the trials of one call run in one parallel
// round, reading each bucket once and neighbouring buckets in one Query.
// Exactly uniform as long as no bucket holds more than K members, which
// the hashes make unlikely (below 10⁻⁹ up to ~8 million members, 10⁻⁶
// up to ~8 billion, unless its members
// were crafted to collide) and which a trial detects: the call then reads
// the whole set.
//
// Cost: a GetItem of the metadata item, then one round (rarely two) of at
// most Options.Parallelism Queries, 2 to 4 read units per bucket read and
// about 1.5 to 2 buckets per member drawn: SRANDMEMBER 10 of 10,000
// members is 9 requests in 2 round trips, ~60 read units; when that
// reaches the read units of the whole set, one read of the whole set
// instead (a Query per 1 MB, 1 read unit per ~80 members). Count 0 costs
// the GetItem only.
//
// [SRANDMEMBER]: https://redis.io/docs/latest/commands/srandmember/
func (c *Client) SRandMemberN(ctx context.Context, key string, count int64) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SRandMemberN")
	defer traced.end(&err)
	if err := checkKey("SRANDMEMBER", key); err != nil {
		return nil, err
	}
	if count < -MaxRandCount {
		return nil, argError("SRANDMEMBER", "count", strconv.FormatInt(count, 10), ErrOutOfRange)
	}
	n := count
	if n < 0 {
		n = -n
	}
	if n == 0 {
		_, err := c.typedMeta(ctx, key, model.TypeSet)
		return nil, wrap("SRANDMEMBER", err)
	}
	out, _, err := c.randomMembers(ctx, key, n, count > 0)
	return out, wrap("SRANDMEMBER", err)
}

// SPop removes and returns a random member of the set at key; ok is false
// when the set is empty or missing. As Redis's SPOP without count.
//
// Cost: SRandMember's Query plus one TransactWriteItems (4 write units).
//
// [SPOP]: https://redis.io/docs/latest/commands/spop/
func (c *Client) SPop(ctx context.Context, key string) (member string, ok bool, err error) {
	ctx, traced := c.command(ctx, "SPop")
	defer traced.end(&err)
	ms, err := c.SPopN(ctx, key, 1)
	if err != nil || len(ms) == 0 {
		return "", false, err
	}
	return ms[0], true, nil
}

// SPopN removes and returns min(count, SCARD) random members of the set at
// key, as Redis's SPOP with count; count must not be negative. A member
// popped concurrently by another client is returned to one of them only:
// redimo picks again until it has popped count members or the set is empty.
// Popping the last member deletes the key. The members are picked as by
// SRandMemberN: uniformly. After Options.MaxAttempts rounds that lost
// picks to other clients it returns the members popped so far with
// ErrContention.
//
// Cost: per round, SRandMemberN(count)'s reads plus ⌈count/99⌉ TransactWriteItems
// (2 write units per popped member plus 2): SPOP 10 of 10,000 members is
// 10 requests in 3 round trips.
//
// [SPOP]: https://redis.io/docs/latest/commands/spop/
func (c *Client) SPopN(ctx context.Context, key string, count int64) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SPopN")
	defer traced.end(&err)
	ctx = store.KeepOutcome(ctx) // it returns what it removes
	if err := checkKey("SPOP", key); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, argError("SPOP", "count", strconv.FormatInt(count, 10), ErrOutOfRange)
	}
	var read *model.Meta // the metadata item smallPop read, for the first draw
	if count > 0 {
		popped, ok, m, err := c.view().smallPop(ctx, key, count)
		if ok {
			return popped, wrap("SPOP", err)
		}
		read = m
	}
	var popped []string
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		want := count - int64(len(popped))
		picks, whole, err := c.randomMembersOf(ctx, key, read, want, true)
		read = nil
		if err != nil || len(picks) == 0 {
			return true, err
		}
		writes := make([]*model.Write, len(picks))
		for i, m := range picks {
			writes[i] = c.deleteMember(key, model.TypeSet, m)
		}
		// When the picks are the whole set, this round empties the set:
		// its count is known.
		exhausted := whole
		now := model.Meta{Typ: model.TypeNone}
		if exhausted {
			now = model.Meta{Typ: model.TypeSet, Card: int64(len(picks))}
		}
		applied, err := c.view().writeChunks(ctx, key, model.TypeSet, writes, now)
		for _, w := range applied {
			popped = append(popped, w.Member)
		}
		return int64(len(popped)) == count || (exhausted && len(applied) == len(picks)), err
	})
	return popped, wrap("SPOP", err)
}

// SMove moves member from the set at source to the set at destination and
// reports whether it was moved (false when member is not in source), as
// Redis's SMOVE: one atomic transaction removing it from source and adding
// it to destination unless it is already there. With member expiries
// (SEXPIRE), an expired member is not in source, and the member joins
// destination as SADD adds it, with no expiry (a member already there
// keeps its own): Redis 8.12 documents no carrying of a member's TTL.
//
// Cost: one TransactWriteItems of up to 4 items (8 write units); one more
// when source becomes empty or member is already in destination.
//
// [SMOVE]: https://redis.io/docs/latest/commands/smove/
func (c *Client) SMove(ctx context.Context, source, destination, member string) (_ bool, err error) {
	ctx, traced := c.command(ctx, "SMove")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SMOVE", source, []string{member}); err != nil {
		return false, err
	}
	if err := checkKey("SMOVE", destination); err != nil {
		return false, err
	}
	if source == destination {
		m, err := c.typedMeta(ctx, source, model.TypeSet)
		if err != nil || m.Typ == model.TypeNone {
			return false, wrap("SMOVE", err)
		}
		return c.SIsMember(ctx, source, member)
	}
	res, err := c.view().write(ctx, func() []*model.Group {
		rem := c.deleteMember(source, model.TypeSet, member)
		rem.Required = true
		return []*model.Group{
			{Key: source, Typ: model.TypeSet, Writes: []*model.Write{rem}},
			{Key: destination, Typ: model.TypeSet, Writes: []*model.Write{c.putMember(destination, model.TypeSet, member, nil)}},
		}
	})
	if errors.Is(err, ErrWrongType) {
		// Redis answers 0 for a missing source before it looks at
		// destination's type.
		if m, err2 := c.typedMeta(ctx, source, model.TypeSet); err2 == nil && m.Typ == model.TypeNone {
			return false, nil
		}
	}
	if err != nil {
		return false, wrap("SMOVE", err)
	}
	return !res.Abandoned, nil
}

// SInter returns the members of the intersection of the sets at keys, as
// Redis's SINTER; a missing key is an empty set. Like Redis, redimo reads
// the smallest set and probes the others for its members, smallest first.
//
// Cost: one BatchGetItem of the metadata items, a Query of the smallest
// set (1 read unit per 4 KB), and BatchGetItem probes of the surviving
// candidates in each other set (100 keys a request, 1 read unit a key).
//
// [SINTER]: https://redis.io/docs/latest/commands/sinter/
func (c *Client) SInter(ctx context.Context, keys ...string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SInter")
	defer traced.end(&err)
	var out []string
	err = c.inter(ctx, "SINTER", keys, 0, func(m string) { out = append(out, m) }, func() { out = out[:0] })
	slices.Sort(out) // in byte order, as the other set replies
	return out, err
}

// SInterCard returns the size of the intersection of the sets at keys, as
// Redis's SINTERCARD; when limit > 0 it stops counting at limit, reading
// no more of the smallest set than it needs. limit must not be negative.
//
// Cost: as SInter, but the smallest set is read and probed in pages of up
// to 100 members and only until limit is reached.
//
// [SINTERCARD]: https://redis.io/docs/latest/commands/sintercard/
func (c *Client) SInterCard(ctx context.Context, limit int64, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SInterCard")
	defer traced.end(&err)
	if limit < 0 {
		return 0, argError("SINTERCARD", "limit", strconv.FormatInt(limit, 10), ErrOutOfRange)
	}
	var n int64
	err = c.inter(ctx, "SINTERCARD", keys, limit, func(string) { n++ }, func() { n = 0 })
	return n, err
}

// setMetas validates the keys of a set-algebra command and reads their
// metadata (one BatchGetItem per 100 keys), failing with ErrWrongType when
// one holds another type.
func (c *Client) setMetas(ctx context.Context, cmd string, keys []string) ([]model.Meta, error) {
	if err := checkKeyList(cmd, keys); err != nil {
		return nil, err
	}
	ms, err := c.typedMetas(ctx, keys, model.TypeSet)
	for i := range ms { // live cards for keys with member expiries
		if err == nil {
			ms[i], err = c.settle(ctx, keys[i], ms[i], true)
		}
	}
	return ms, wrap(cmd, err)
}

// inter streams the intersection of the sets at keys to fn, stopping after
// limit members when limit > 0. The smallest set's Query reads its
// metadata item first: a set gone since setMetas read it makes the
// intersection empty. A read slower than the lease runs again (leased),
// after restart has forgotten what fn was given.
func (c *Client) inter(ctx context.Context, cmd string, keys []string, limit int64, fn func(string), restart func()) error {
	ms, err := c.setMetas(ctx, cmd, keys)
	if err != nil {
		return err
	}
	order := make([]int, len(keys))
	for i := range order {
		if ms[i].Typ == model.TypeNone {
			return nil
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(ms[a].Card - ms[b].Card) })
	smallest := keys[order[0]]
	others := model.Dedupe(model.MapSlice(order[1:], func(i int) string { return keys[i] }))
	others = slices.DeleteFunc(others, func(k string) bool { return k == smallest })

	var found int64
	batch := make([]string, 0, 99) // and the metadata item: one BatchGetItem of 100 keys per probe
	flush := func() error {
		cand, err := c.probeAll(ctx, others, batch, true)
		if err != nil {
			return err
		}
		for _, m := range cand {
			if limit > 0 && found >= limit {
				break
			}
			fn(m)
			found++
		}
		batch = batch[:0]
		return nil
	}
	err = c.leased(ctx, smallest, func() error {
		restart()
		found, batch = 0, batch[:0]
		for it, err := range c.view().keyItems(ctx, smallest, model.TypeSet) {
			if err != nil {
				return err
			}
			m, _, ok := model.MemberOf(it)
			if !ok { // the metadata item
				switch lm := c.liveMeta(it); {
				case lm.Typ == model.TypeNone: // gone since
					return nil
				case lm.Typ != model.TypeSet:
					return ErrWrongType
				}
				continue
			}
			batch = append(batch, m)
			if len(batch) == cap(batch) {
				if err := flush(); err != nil {
					return err
				}
				if limit > 0 && found >= limit {
					return nil
				}
			}
		}
		return flush()
	})
	return wrap(cmd, err)
}

// SUnion returns the members of the union of the sets at keys, in no
// particular order, as Redis's SUNION; a missing key is an empty set.
//
// Cost: one BatchGetItem of the metadata items and a Query of every set
// (1 read unit per 4 KB).
//
// [SUNION]: https://redis.io/docs/latest/commands/sunion/
func (c *Client) SUnion(ctx context.Context, keys ...string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SUnion")
	defer traced.end(&err)
	ms, err := c.setMetas(ctx, "SUNION", keys)
	if err != nil {
		return nil, err
	}
	var all []string
	for i, k := range keys {
		if ms[i].Typ == model.TypeNone {
			continue
		}
		m, err := c.members(ctx, k, model.TypeSet)
		if err != nil {
			return nil, wrap("SUNION", err)
		}
		all = append(all, m...)
	}
	return model.Dedupe(all), nil
}

// SDiff returns the members of the set at the first key that are in none of
// the sets at the other keys, as Redis's SDIFF; a missing key is an empty
// set. For each other set, redimo either probes it for the remaining
// candidates or reads it whole, whichever reads fewer items.
//
// Cost: one BatchGetItem of the metadata items, a Query of the first set,
// then per other set min(candidates, its size) item reads.
//
// [SDIFF]: https://redis.io/docs/latest/commands/sdiff/
func (c *Client) SDiff(ctx context.Context, keys ...string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "SDiff")
	defer traced.end(&err)
	ms, err := c.setMetas(ctx, "SDIFF", keys)
	if err != nil {
		return nil, err
	}
	if ms[0].Typ == model.TypeNone {
		return nil, nil
	}
	cand, err := c.members(ctx, keys[0], model.TypeSet)
	if err != nil {
		return nil, wrap("SDIFF", err)
	}
	for i, k := range keys[1:] {
		if len(cand) == 0 {
			break
		}
		if ms[i+1].Typ == model.TypeNone {
			continue
		}
		if k == keys[0] {
			return nil, nil
		}
		var drop map[string]bool
		if ms[i+1].Card < int64(len(cand)) {
			others, err := c.members(ctx, k, model.TypeSet)
			if err != nil {
				return nil, wrap("SDIFF", err)
			}
			drop = make(map[string]bool, len(others))
			for _, m := range others {
				drop[m] = true
			}
		} else {
			present, err := c.view().probe(ctx, k, model.TypeSet, cand, true)
			if err != nil {
				return nil, wrap("SDIFF", err)
			}
			drop = make(map[string]bool, len(present))
			for m := range present {
				drop[m] = true
			}
		}
		cand = slices.DeleteFunc(cand, func(m string) bool { return drop[m] })
	}
	return cand, nil
}

// SUnionCard returns the size of the union of the sets at keys, as Redis
// 8.10's SUNIONCARD; when limit > 0 it stops counting at limit. A missing
// key is an empty set; limit must not be negative. The APPROX option
// (an estimate) is not offered: the count is exact.
//
// Cost: when the keys name one key, one GetItem of its metadata item (as
// SCard). Otherwise one BatchGetItem of the metadata items, which alone
// answers when at most one of the sets exists or when limit > 0 and one
// set has at least limit members; else a Query of every set (1 read unit
// per 4 KB), stopping as soon as limit distinct members are counted.
//
// [SUNIONCARD]: https://redis.io/docs/latest/commands/sunioncard/
func (c *Client) SUnionCard(ctx context.Context, limit int64, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SUnionCard")
	defer traced.end(&err)
	const cmd = "SUNIONCARD"
	if limit < 0 {
		return 0, argError(cmd, "limit", strconv.FormatInt(limit, 10), ErrOutOfRange)
	}
	capped := func(n int64) int64 {
		if limit > 0 {
			return min(n, limit)
		}
		return n
	}
	if unique := model.Dedupe(keys); len(unique) == 1 {
		if err := checkKey(cmd, unique[0]); err != nil {
			return 0, err
		}
		m, err := c.typedMeta(ctx, unique[0], model.TypeSet)
		if err == nil {
			m, err = c.settle(ctx, unique[0], m, true)
		}
		return capped(m.Card), wrap(cmd, err)
	}
	ms, err := c.setMetas(ctx, cmd, keys)
	if err != nil {
		return 0, err
	}
	var sets []string
	var largest int64
	for i, k := range keys {
		if ms[i].Typ != model.TypeNone && !slices.Contains(sets, k) {
			sets = append(sets, k)
			largest = max(largest, ms[i].Card)
		}
	}
	switch {
	case len(sets) == 0:
		return 0, nil
	case len(sets) == 1 || (limit > 0 && largest >= limit):
		return capped(largest), nil
	}
	seen := map[string]struct{}{}
	for _, k := range sets {
		for it, err := range c.view().memberItems(ctx, k, model.TypeSet, "") {
			if err != nil {
				return 0, wrap(cmd, err)
			}
			m, _, _ := model.MemberOf(it)
			seen[m] = struct{}{}
			if limit > 0 && int64(len(seen)) >= limit {
				return limit, nil
			}
		}
	}
	return int64(len(seen)), nil
}

// SDiffCard returns the number of members of the set at the first key that
// are in none of the sets at the other keys, as Redis 8.10's SDIFFCARD;
// when limit > 0 it stops counting at limit. A missing key is an empty
// set; limit must not be negative.
//
// Cost: one BatchGetItem of the metadata items, which alone answers when
// the first set is missing, no other set exists, or the first key is
// repeated among the others. Without limit, as SDiff. With limit, as SDiff
// but stopping early: the other sets smaller than the first are read
// whole (a Query each, 1 read unit per 4 KB), the first set is read (Query
// pages of up to 1 MB) and checked 99 members at a time, each batch's
// survivors probed in the larger other sets (a BatchGetItem, 1 read unit
// a member), until limit members are counted.
//
// [SDIFFCARD]: https://redis.io/docs/latest/commands/sdiffcard/
func (c *Client) SDiffCard(ctx context.Context, limit int64, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SDiffCard")
	defer traced.end(&err)
	const cmd = "SDIFFCARD"
	if limit < 0 {
		return 0, argError(cmd, "limit", strconv.FormatInt(limit, 10), ErrOutOfRange)
	}
	ms, err := c.setMetas(ctx, cmd, keys)
	if err != nil || ms[0].Typ == model.TypeNone {
		return 0, err
	}
	var others []string
	for i, k := range keys[1:] {
		if ms[i+1].Typ == model.TypeNone || slices.Contains(others, k) {
			continue
		}
		if k == keys[0] {
			return 0, nil
		}
		others = append(others, k)
	}
	if len(others) == 0 {
		if limit > 0 {
			return min(ms[0].Card, limit), nil
		}
		return ms[0].Card, nil
	}
	if limit == 0 {
		ds, err := c.SDiff(ctx, keys...)
		return int64(len(ds)), wrap(cmd, err)
	}
	// Other sets smaller than the first are read whole once; the others
	// are probed, a batch of the first set's members at a time.
	drop := map[string]bool{}
	var probed []string
	for i, k := range keys[1:] {
		if !slices.Contains(others, k) || slices.Contains(probed, k) {
			continue
		}
		if ms[i+1].Card >= ms[0].Card {
			probed = append(probed, k)
			continue
		}
		small, err := c.members(ctx, k, model.TypeSet)
		if err != nil {
			return 0, wrap(cmd, err)
		}
		for _, m := range small {
			drop[m] = true
		}
	}
	var n int64
	batch := make([]string, 0, 99) // and the metadata item: one BatchGetItem of 100 keys per probe
	flush := func() error {
		cand, err := c.probeAll(ctx, probed, slices.DeleteFunc(batch, func(m string) bool { return drop[m] }), false)
		if err != nil {
			return err
		}
		n += int64(len(cand))
		batch = batch[:0]
		return nil
	}
	for it, err := range c.view().memberItems(ctx, keys[0], model.TypeSet, "") {
		if err != nil {
			return 0, wrap(cmd, err)
		}
		m, _, _ := model.MemberOf(it)
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return 0, wrap(cmd, err)
			}
			if n >= limit {
				return limit, nil
			}
		}
	}
	if err := flush(); err != nil {
		return 0, wrap(cmd, err)
	}
	return min(n, limit), nil
}

// SInterStore stores the intersection of the sets at keys in destination and
// returns its size, as Redis's SINTERSTORE. See setStore for how
// destination is overwritten.
//
// Cost: SInter plus the writes of setStore.
//
// [SINTERSTORE]: https://redis.io/docs/latest/commands/sinterstore/
func (c *Client) SInterStore(ctx context.Context, destination string, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SInterStore")
	defer traced.end(&err)
	return c.setStore(ctx, "SINTERSTORE", destination, keys, c.SInter)
}

// SUnionStore stores the union of the sets at keys in destination and
// returns its size, as Redis's SUNIONSTORE. See SInterStore.
//
// Cost: SUnion plus the writes of SInterStore.
//
// [SUNIONSTORE]: https://redis.io/docs/latest/commands/sunionstore/
func (c *Client) SUnionStore(ctx context.Context, destination string, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SUnionStore")
	defer traced.end(&err)
	return c.setStore(ctx, "SUNIONSTORE", destination, keys, c.SUnion)
}

// SDiffStore stores the difference of the sets at keys in destination and
// returns its size, as Redis's SDIFFSTORE. See SInterStore.
//
// Cost: SDiff plus the writes of SInterStore.
//
// [SDIFFSTORE]: https://redis.io/docs/latest/commands/sdiffstore/
func (c *Client) SDiffStore(ctx context.Context, destination string, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SDiffStore")
	defer traced.end(&err)
	return c.setStore(ctx, "SDIFFSTORE", destination, keys, c.SDiff)
}

// setStore computes a set and overwrites destination with it, as the
// *STORE commands do: whatever destination held (of any type) is replaced,
// and an empty result deletes it.
//
// When destination is a set, only the difference is written: members to
// add and members to remove, in transactions of 99 writes that keep the
// count exact; when the difference is at most 99 members, the overwrite is
// one atomic transaction. A destination of another type is deleted first.
// The result is computed from reads that precede the writes, and a client
// writing destination meanwhile can interleave with a multi-chunk store:
// unlike Redis, the command is not isolated from concurrent writers.
func (c *Client) setStore(ctx context.Context, cmd, destination string, keys []string, compute func(context.Context, ...string) ([]string, error)) (int64, error) {
	if err := checkKey(cmd, destination); err != nil {
		return 0, err
	}
	result, err := compute(ctx, keys...)
	if err != nil {
		return 0, wrap(cmd, err)
	}
	return int64(len(result)), wrap(cmd, c.overwrite(ctx, destination, model.TypeSet, result, func(string) []byte { return nil }))
}

// overwrite makes the key hold exactly members (of type typ, with index
// values from ix), deleting it when members is empty. Existing members of
// the right type whose index value is unchanged are not rewritten.
func (c *Client) overwrite(ctx context.Context, key string, typ model.KeyType, members []string, ix func(string) []byte) error {
	m, err := c.getMeta(ctx, key)
	if err != nil {
		return err
	}
	if m.Exp > 0 { // the new value has no expiry, as in Redis
		if _, _, err := c.view().removeExpiry(ctx, key, ""); err != nil {
			return err
		}
	}
	if m.Typ != model.TypeNone && m.Typ != typ {
		if _, err := c.del(ctx, key); err != nil {
			return err
		}
		m = model.Meta{Typ: model.TypeNone}
	}
	old := map[string][]byte{}
	oldExp := map[string]int64{} // live members with an expiry (memberttl.go)
	if m.Typ == typ {
		for it, err := range c.view().memberItems(ctx, key, typ, "") {
			if err != nil {
				return err
			}
			member, _, _ := model.MemberOf(it)
			old[member] = model.BytesAttr(it, model.AttrIX)
			if x := model.MemberExp(it); x != 0 {
				oldExp[member] = x
			}
		}
	}
	var writes []*model.Write
	keep := make(map[string]bool, len(members))
	for _, member := range members {
		keep[member] = true
		want := ix(member)
		prev, exists := old[member]
		switch {
		case !exists:
			writes = append(writes, c.putMember(key, typ, member, want))
		case oldExp[member] != 0: // the new value's members have no expiry
			writes = append(writes, c.rewriteMember(key, typ, member, prev, want, oldExp[member]))
		case typ == model.TypeZSet && string(prev) != string(want):
			writes = append(writes, c.setIX(key, typ, member, prev, want))
		}
	}
	for member := range old {
		if !keep[member] {
			writes = append(writes, c.deleteMember(key, typ, member))
		}
	}
	if len(writes) == 0 {
		return nil
	}
	_, err = c.transactChunks(ctx, key, typ, writes)
	return err
}

// probeAll keeps the members of cand that every set of keys holds (in
// true: SINTER) or that none holds (in false: SDIFF), probing the keys one
// by one while members are left. It reuses cand's array.
func (c *Client) probeAll(ctx context.Context, keys, cand []string, in bool) ([]string, error) {
	for _, k := range keys {
		if len(cand) == 0 {
			break
		}
		present, err := c.view().probe(ctx, k, model.TypeSet, cand, true)
		if err != nil {
			return nil, err
		}
		cand = slices.DeleteFunc(cand, func(m string) bool { _, ok := present[m]; return ok != in })
	}
	return cand, nil
}
