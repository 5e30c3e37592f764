package redimo

// Sharded sets: one logical set spread over N set keys, for sets too busy
// for one DynamoDB partition.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// MaxShards is the largest shard count of a ShardedSet: Card reads every
// shard's metadata item in one BatchGetItem (100 keys).
const MaxShards = 99

// ErrShardCount is returned when a ShardedSet is opened with another shard
// count than the one recorded for its key, which would silently split its
// members.
var ErrShardCount = errors.New("redimo: sharded set opened with another shard count")

// ShardedSet is one logical set stored as Shards set keys, the member's FNV-1a
// hash choosing its shard: the write-sharding pattern of DynamoDB's best
// practices (and of Redis in Action's sharded sets). One DynamoDB partition
// takes about 1,000 write units a second, and every write to a set also
// updates its metadata item, so a plain set is limited by one partition; a
// sharded set by Shards of them.
//
// Shard i is the plain set key Key+"{i}" (SMEMBERS "visitors{3}" shows it).
// The shard count is recorded under Key at first use, and a handle with
// another count fails with ErrShardCount instead of splitting members.
// The record stays when the set is emptied (DEL of its shards, FLUSHDB):
// a handle checks it once, so a record that could change would let a
// handle that checked it before write with the old count.
// Commands are exact per shard, so exact as a whole; an Add or Rem whose
// members fall in several shards writes the shards in parallel, each
// atomically, the whole not atomically.
type ShardedSet struct {
	c      *Client
	key    string
	shards int

	mu       sync.Mutex
	verified bool
}

// ShardedSet returns a handle on the sharded set at key with shards shards
// (1..MaxShards). It does no I/O.
func (c *Client) ShardedSet(key string, shards int) *ShardedSet {
	return &ShardedSet{c: c, key: key, shards: shards}
}

// checkShards rejects a shard count out of range. The count is
// ShardedSet's argument, so the error names ShardedSet, not the command
// that found it (Add would say SADD).
func (s *ShardedSet) checkShards() error {
	if s.shards < 1 || s.shards > MaxShards {
		return argError("ShardedSet", "shards", strconv.Itoa(s.shards), fmt.Errorf("%w: 1 to %d (MaxShards)", ErrOutOfRange, MaxShards))
	}
	return nil
}

// shard is the key of shard i.
func (s *ShardedSet) shard(i int) string { return s.key + "{" + strconv.Itoa(i) + "}" }

func (s *ShardedSet) shardOf(member string) int {
	h := fnv.New64a()
	h.Write([]byte(member))
	return int(h.Sum64() % uint64(s.shards))
}

func descriptorKey(key string) model.Item {
	return model.Item{model.AttrPK: model.Bin(model.Partition(model.NsSharded, key)), model.AttrSK: model.Bin(model.MetaSK)}
}

// check validates the handle and, once per handle, records or verifies the
// shard count (one conditional UpdateItem).
func (s *ShardedSet) check(ctx context.Context, cmd string) error {
	if err := s.checkShards(); err != nil {
		return err
	}
	if err := checkKey(cmd, s.shard(s.shards-1)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verified {
		return nil
	}
	_, err := s.c.st.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: s.c.st.Table(), Key: descriptorKey(s.key),
		UpdateExpression:                    aws.String("SET #sh = :sh"),
		ConditionExpression:                 aws.String("attribute_not_exists(#sh) OR #sh = :sh"),
		ExpressionAttributeNames:            map[string]string{"#sh": model.AttrShards},
		ExpressionAttributeValues:           model.Item{":sh": model.Num(int64(s.shards))},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		recorded := "?"
		if v, ok := failed.Item[model.AttrShards].(*types.AttributeValueMemberN); ok {
			recorded = v.Value
		}
		return fmt.Errorf("%w: %q has %s shards, not %d", ErrShardCount, s.key, recorded, s.shards)
	}
	if err != nil {
		return wrap(cmd, err)
	}
	s.verified = true
	return nil
}

// byShard groups members by shard.
func (s *ShardedSet) byShard(members []string) map[int][]string {
	out := map[int][]string{}
	for _, m := range model.Dedupe(members) {
		i := s.shardOf(m)
		out[i] = append(out[i], m)
	}
	return out
}

// eachShard runs fn for the given shards, Options.Parallelism at a time, and
// returns the first error.
func (s *ShardedSet) eachShard(shards []int, fn func(i int) error) error {
	return s.c.st.Parallel(len(shards), func(j int) error { return fn(shards[j]) })
}

func (s *ShardedSet) all() []int {
	out := make([]int, s.shards)
	for i := range out {
		out[i] = i
	}
	return out
}

// write runs SAdd or SRem on each shard concerned, in parallel, and sums.
func (s *ShardedSet) write(ctx context.Context, cmd string, members []string, op func(context.Context, string, ...string) (int64, error)) (int64, error) {
	if len(members) == 0 {
		return 0, argError(cmd, "members", "", ErrSyntax)
	}
	if err := checkMembers(cmd, members); err != nil {
		return 0, err
	}
	if err := s.check(ctx, cmd); err != nil {
		return 0, err
	}
	groups := s.byShard(members)
	var total int64
	var mu sync.Mutex
	shards := make([]int, 0, len(groups))
	for i := range groups {
		shards = append(shards, i)
	}
	ctx = s.c.labelled(ctx) // for Options.Metrics: the shards' goroutines do not show the command
	err := s.eachShard(shards, func(i int) error {
		n, err := op(ctx, s.shard(i), groups[i]...)
		mu.Lock()
		total += n
		mu.Unlock()
		return err
	})
	return total, err
}

// Add adds members and returns how many were new, exactly (count a unique
// visitor when Add reports it new).
//
// Cost: one TransactWriteItems per shard concerned (in parallel), as SAdd;
// the handle's first command also records or checks the shard count (one
// UpdateItem).
func (s *ShardedSet) Add(ctx context.Context, members ...string) (_ int64, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Add")
	defer traced.end(&err)
	return s.write(ctx, "SADD", members, s.c.SAdd)
}

// Rem removes members and returns how many were members. Cost as Add.
func (s *ShardedSet) Rem(ctx context.Context, members ...string) (_ int64, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Rem")
	defer traced.end(&err)
	return s.write(ctx, "SREM", members, s.c.SRem)
}

// IsMember reports whether member is in the set. Cost: one request, as
// SIsMember.
func (s *ShardedSet) IsMember(ctx context.Context, member string) (_ bool, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.IsMember")
	defer traced.end(&err)
	if err := checkMembers("SISMEMBER", []string{member}); err != nil {
		return false, err // before the record is written
	}
	if err := s.check(ctx, "SISMEMBER"); err != nil {
		return false, err
	}
	return s.c.SIsMember(ctx, s.shard(s.shardOf(member)), member)
}

// MIsMember reports, for each member, whether it is in the set.
//
// Cost: one BatchGetItem per 100 members (in parallel).
func (s *ShardedSet) MIsMember(ctx context.Context, members ...string) (_ []bool, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.MIsMember")
	defer traced.end(&err)
	if len(members) == 0 {
		return nil, argError("SMISMEMBER", "members", "", ErrSyntax)
	}
	if err := checkMembers("SMISMEMBER", members); err != nil {
		return nil, err
	}
	if err := s.check(ctx, "SMISMEMBER"); err != nil {
		return nil, err
	}
	// The members' items and their shards' metadata items, in one read:
	// a member of a shard that expired, or that is not a set, is not in
	// the set.
	keys := make([]model.Item, 0, len(members))
	shards := map[int]bool{}
	for _, m := range model.Dedupe(members) {
		i := s.shardOf(m)
		if !shards[i] {
			shards[i] = true
			keys = append(keys, model.MetaKey(s.shard(i)))
		}
		keys = append(keys, model.ItemKey(s.shard(i), model.MemberSK(model.TypeSet, m)))
	}
	items, err := s.c.st.BatchGet(ctx, keys, nil, nil)
	if err != nil {
		return nil, wrap("SMISMEMBER", err)
	}
	live := map[string]bool{} // partition keys of the shards that are sets now
	found := map[string]bool{}
	for _, it := range items {
		if _, _, ok := model.MemberOf(it); !ok {
			switch m := s.c.liveMeta(it); m.Typ {
			case model.TypeSet:
				live[string(model.BytesAttr(it, model.AttrPK))] = true
				for _, x := range m.Small { // a small shard (smallset.go)
					found[x] = true
				}
			case model.TypeZSet:
				return nil, ErrWrongType
			}
		}
	}
	now := s.c.nowMs()
	for _, it := range items {
		if m, t, ok := model.MemberOf(it); ok && t == model.TypeSet && !model.ExpiredAt(it, now) && live[string(model.BytesAttr(it, model.AttrPK))] { // member expiry: memberttl.go
			found[m] = true
		}
	}
	out := make([]bool, len(members))
	for i, m := range members {
		out[i] = found[m]
	}
	return out, nil
}

// Card returns the number of members, and checks the shard count.
//
// Cost: one BatchGetItem of the shards' metadata items and the shard-count
// record, 1 read unit per shard, whatever the set's size; a shard whose
// members have expiries (SEXPIRE on its key) adds SCARD's count of them.
func (s *ShardedSet) Card(ctx context.Context) (_ int64, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Card")
	defer traced.end(&err)
	cards, err := s.cards(ctx)
	var n int64
	for _, c := range cards {
		n += c
	}
	return n, err
}

// cards reads every shard's cardinality and the shard-count record in one
// BatchGetItem.
func (s *ShardedSet) cards(ctx context.Context) ([]int64, error) {
	if s.shards < 1 || s.shards > MaxShards {
		return nil, s.checkShards()
	}
	if err := checkKey("SCARD", s.shard(s.shards-1)); err != nil {
		return nil, err
	}
	keys := []model.Item{descriptorKey(s.key)}
	for i := range s.shards {
		keys = append(keys, model.MetaKey(s.shard(i)))
	}
	items, err := s.c.st.BatchGet(ctx, keys, nil, nil)
	if err != nil {
		return nil, wrap("SCARD", err)
	}
	cards := make([]int64, s.shards)
	metas := make([]model.Meta, s.shards)
	for i := range metas {
		metas[i].Typ = model.TypeNone
	}
	for _, it := range items {
		pk := model.BytesAttr(it, model.AttrPK)
		if pk[0] == model.NsSharded || pk[0] == model.LongNS(model.NsSharded) {
			if v, ok := it[model.AttrShards].(*types.AttributeValueMemberN); ok && v.Value != strconv.Itoa(s.shards) {
				return nil, fmt.Errorf("%w: %q has %s shards, not %d", ErrShardCount, s.key, v.Value, s.shards)
			}
			continue
		}
		for i := range s.shards {
			if string(pk) == string(model.PkValue(s.shard(i))) {
				metas[i] = s.c.liveMeta(it)
			}
		}
	}
	// A shard whose members have expiries counts its live ones (memberttl.go).
	err = s.c.st.Parallel(s.shards, func(i int) error {
		m, err := s.c.ofType(ctx, s.shard(i), metas[i], model.TypeSet)
		if err == nil && m.Typ == model.TypeSet {
			cards[i], err = s.c.liveCard(ctx, s.shard(i), m)
		}
		return err
	})
	return cards, err
}

// Members returns an iterator over all members, shard by shard; shards are
// read in parallel (Options.Parallelism at a time) ahead of the caller.
//
// Cost: one Query per shard per 1 MB of members.
func (s *ShardedSet) Members(ctx context.Context) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := s.check(ctx, "SMEMBERS"); err != nil {
			yield("", err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		results := make([]chan []string, s.shards)
		errs := make([]error, s.shards)
		for i := range results {
			results[i] = make(chan []string, 1)
		}
		ctx = s.c.labelled(ctx) // for Options.Metrics: the shards' goroutines do not show the command
		go func() {
			_ = s.eachShard(s.all(), func(i int) error {
				m, err := s.c.members(ctx, s.shard(i), model.TypeSet)
				errs[i] = err
				results[i] <- m
				return nil
			})
		}()
		for i := range results {
			ms := <-results[i]
			if errs[i] != nil {
				yield("", wrap("SMEMBERS", errs[i]))
				return
			}
			for _, m := range ms {
				if !yield(m, nil) {
					return
				}
			}
		}
	}
}

// pickShard chooses a shard with probability proportional to its size; ok
// is false when the set is empty.
func (s *ShardedSet) pickShard(ctx context.Context) (int, bool, error) {
	cards, err := s.cards(ctx)
	if err != nil {
		return 0, false, err
	}
	var total int64
	for _, c := range cards {
		total += c
	}
	if total == 0 {
		return 0, false, nil
	}
	r := rand.Int64N(total)
	for i, c := range cards {
		if r < c {
			return i, true, nil
		}
		r -= c
	}
	return len(cards) - 1, true, nil
}

// RandMember returns a random member (ok false when empty): a shard picked
// in proportion to its size, then SRandMember in it.
//
// Cost: Card's BatchGetItem plus SRandMember's Query.
func (s *ShardedSet) RandMember(ctx context.Context) (_ string, _ bool, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.RandMember")
	defer traced.end(&err)
	i, ok, err := s.pickShard(ctx)
	if err != nil || !ok {
		return "", false, err
	}
	return s.c.SRandMember(ctx, s.shard(i))
}

// Pop removes and returns a random member (ok false when empty), picked as
// by RandMember. A shard emptied meanwhile is picked again, at most
// Options.MaxAttempts times (then ErrContention, as SPop).
//
// Cost: Card's BatchGetItem plus SPop's Query and TransactWriteItems.
func (s *ShardedSet) Pop(ctx context.Context) (m string, ok bool, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Pop")
	defer traced.end(&err)
	err = s.c.st.Attempts(ctx, false, func() (bool, error) {
		i, some, err := s.pickShard(ctx)
		if err != nil || !some {
			return true, err
		}
		// ok false: the shard was emptied meanwhile, pick again.
		m, ok, err = s.c.SPop(ctx, s.shard(i))
		return ok, err
	})
	return m, ok, err
}

// algebra runs op shard by shard (shard i of s with shard i of the others),
// in parallel, and concatenates the results: members of different shards
// never meet, so that is the whole answer.
func (s *ShardedSet) algebra(ctx context.Context, cmd string, others []*ShardedSet, op func(context.Context, ...string) ([]string, error)) ([]string, error) {
	for _, o := range append([]*ShardedSet{s}, others...) {
		if o.shards != s.shards {
			return nil, fmt.Errorf("%w: %s of %q (%d shards) with %q (%d shards)", ErrShardCount, cmd, s.key, s.shards, o.key, o.shards)
		}
		if err := o.check(ctx, cmd); err != nil {
			return nil, err
		}
	}
	parts := make([][]string, s.shards)
	ctx = s.c.labelled(ctx) // for Options.Metrics: the shards' goroutines do not show the command
	err := s.eachShard(s.all(), func(i int) error {
		keys := []string{s.shard(i)}
		for _, o := range others {
			keys = append(keys, o.shard(i))
		}
		var err error
		parts[i], err = op(ctx, keys...)
		return err
	})
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, err
}

// Inter returns the members in s and in every one of others (same shard
// count). Cost: SInter per shard, in parallel.
func (s *ShardedSet) Inter(ctx context.Context, others ...*ShardedSet) (_ []string, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Inter")
	defer traced.end(&err)
	return s.algebra(ctx, "SINTER", others, s.c.SInter)
}

// Union returns the members in s or any of others (same shard count).
// Cost: SUnion per shard, in parallel.
func (s *ShardedSet) Union(ctx context.Context, others ...*ShardedSet) (_ []string, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Union")
	defer traced.end(&err)
	return s.algebra(ctx, "SUNION", others, s.c.SUnion)
}

// Diff returns the members of s in none of others (same shard count).
// Cost: SDiff per shard, in parallel.
func (s *ShardedSet) Diff(ctx context.Context, others ...*ShardedSet) (_ []string, err error) {
	ctx, traced := s.c.command(ctx, "ShardedSet.Diff")
	defer traced.end(&err)
	return s.algebra(ctx, "SDIFF", others, s.c.SDiff)
}
