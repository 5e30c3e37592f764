package redimo

import (
	"context"

	"github.com/redimo-go/redimo/internal/model"
)

// rankExec is the group of an EXEC's writes to the members of key, a
// ranked sorted set (each write's ix and prev set), and the count-item
// actions they need (rankWrites), from the ranges the Client knows or, when
// it knows none, reads now (one Query). The metadata condition of EXEC
// pins the key as read, so the writes' old index values are exact; the
// count-item actions' conditions pin the ranges, which a split may change
// without touching the metadata item: then EXEC runs again.
func (c *Client) rankExec(ctx context.Context, key string, writes []*model.Write) (*model.Group, []*model.Write, error) {
	b := c.belief(key)
	if !b.Ranked || b.Ranges == nil {
		ranges, err := c.readRanges(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		if len(ranges) == 0 { // rk without count items cannot be: the conditions will tell
			ranges = []model.RankRange{{}}
		}
		b = &model.RankBelief{Ranked: true, Ranges: ranges}
		c.setBelief(key, b)
	}
	g := &model.Group{Key: key, Typ: model.TypeZSet, Writes: writes, Rank: b}
	return g, c.rankWrites(g), nil
}
