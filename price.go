package redimo

// The public face of the cost model (internal/model/price.go: what each
// request costs at DynamoDB's documented rates). Options.Metrics reports
// it in Request.PricedReadUnits and Request.PricedWriteUnits; Tally sums
// it and Cost.Dollars prices it; `make demo`, `redimo --cost`,
// redimo-server's INFO and the cost tables of docs/costs.md all show
// these figures.

import (
	"context"
	"sync"
)

// Prices are DynamoDB's prices of capacity units, in US dollars per
// million units.
type Prices struct {
	PerMillionReadUnits, PerMillionWriteUnits float64
}

// OnDemandPrices are DynamoDB's on-demand prices in us-east-1 (Standard
// table class): $0.125 per million read request units, $0.625 per million
// write request units (aws.amazon.com/dynamodb/pricing/on-demand, 2026).
var OnDemandPrices = Prices{PerMillionReadUnits: 0.125, PerMillionWriteUnits: 0.625}

// Cost is what some DynamoDB requests cost, as Tally sums them.
type Cost struct {
	Requests int
	// ReadUnits and WriteUnits are the cost model's units
	// (Request.PricedReadUnits and PricedWriteUnits).
	ReadUnits, WriteUnits float64
	// ReportedWriteUnits are the write units DynamoDB reported
	// (Request.WriteUnits): on DynamoDB Local far fewer for a transaction.
	ReportedWriteUnits float64
}

// Plus is the sum of c and o.
func (c Cost) Plus(o Cost) Cost {
	return Cost{Requests: c.Requests + o.Requests, ReadUnits: c.ReadUnits + o.ReadUnits,
		WriteUnits: c.WriteUnits + o.WriteUnits, ReportedWriteUnits: c.ReportedWriteUnits + o.ReportedWriteUnits}
}

// Dollars is what c's units cost at p.
func (c Cost) Dollars(p Prices) float64 {
	return (c.ReadUnits*p.PerMillionReadUnits + c.WriteUnits*p.PerMillionWriteUnits) / 1e6
}

// Tally sums the cost of requests as they are made, from any goroutine:
// its Add is an Options.Metrics.
//
//	var t redimo.Tally
//	rdb := redimo.NewClient(db, func(o *redimo.Options) { o.Metrics = t.Add })
//	... commands ...
//	c := t.Take() // c.WriteUnits, c.Dollars(redimo.OnDemandPrices)
type Tally struct {
	mu  sync.Mutex
	sum Cost
}

// Add adds what r cost.
func (t *Tally) Add(_ context.Context, r Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum = t.sum.Plus(Cost{Requests: 1, ReadUnits: r.PricedReadUnits, WriteUnits: r.PricedWriteUnits, ReportedWriteUnits: r.WriteUnits})
}

// Take returns the sum since the last Take and zeroes it.
func (t *Tally) Take() Cost {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sum
	t.sum = Cost{}
	return s
}
