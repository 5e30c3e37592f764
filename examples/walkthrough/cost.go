package main

// What redimo's DynamoDB requests cost, as redimo.Options.Metrics reports
// them: each step's requests, read and write capacity units. (The redimo
// CLI's --cost sums them the same way.)

import (
	"context"
	"sync"

	"github.com/redimo-go/redimo"
)

// Sum is what some requests cost.
type Sum struct {
	Requests int
	RCU, WCU float64
	// Reported is the WCU DynamoDB reported, when WCU differs: DynamoDB
	// Local reports one item's units for a whole transaction, so WCU
	// counts DynamoDB's price of it when that is more.
	Reported float64
}

// Plus is the sum of s and o.
func (s Sum) Plus(o Sum) Sum {
	return Sum{Requests: s.Requests + o.Requests, RCU: s.RCU + o.RCU, WCU: s.WCU + o.WCU, Reported: s.Reported + o.Reported}
}

// Tally sums requests as they are made, from any goroutine.
type Tally struct {
	mu  sync.Mutex
	sum Sum
}

// Add adds what r cost; it is an Options.Metrics.
func (t *Tally) Add(_ context.Context, r redimo.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum.Requests++
	t.sum.RCU += r.ReadUnits
	t.sum.WCU += max(r.WriteUnits, r.TransactWriteUnits)
	t.sum.Reported += r.WriteUnits
}

// Take returns the sum since the last Take and zeroes it.
func (t *Tally) Take() Sum {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sum
	t.sum = Sum{}
	return s
}
