// Package ddbmodel is a model of real Amazon DynamoDB's timing, transaction
// conflicts and per-partition throughput, for tests and benchmarks that run
// against DynamoDB Local.
//
// DynamoDB Local answers in well under a millisecond, runs the transactions
// of a table one after another, never reports a transaction conflict and has no
// per-partition throughput limit, so work on concurrency (hot keys, retries,
// sharding) cannot be judged on it. A Model is an http.RoundTripper placed
// between the AWS SDK and DynamoDB Local: it reads each DynamoDB JSON
// request (the X-Amz-Target header names the operation, the body holds the
// keys and items), delays it, and answers with the errors real DynamoDB
// documents for conflicts and throttling, in the same JSON shapes, so the SDK
// decodes them into the same Go types (*types.TransactionCanceledException,
// *types.TransactionConflictException,
// *types.ProvisionedThroughputExceededException). Everything else is
// forwarded to DynamoDB Local, which stays the source of truth for data.
//
//	m := ddbmodel.New(ddbmodel.DefaultConfig())
//	db := local.Client(endpoint, m.Transport(nil))
//	... run the workload ...
//	fmt.Println(m.Stats())
//
// The REDIMO_MODEL environment variable (FromEnv, ParseConfig) switches a
// shared Model on for redimo's tests, benchmarks and redimo-server on a
// local endpoint (internal/local.Transport).
//
// Each rule the model applies cites the AWS documentation it comes from, in
// the comment where it is applied. Left out: global secondary indexes,
// table-level and account-level quotas, on-demand scaling ("double the
// previous peak"), throttling of BatchWriteItem and Scan, and
// TransactionInProgressException for a transaction resent while the first
// copy is still running (DynamoDB Local implements ClientRequestToken
// idempotency itself). Capacity is computed from the requests and
// responses, so it is approximate where DynamoDB charges by an item's size
// before a write, which the model does not see.
//
// Several clients may share one Model (one Model is one "DynamoDB"): their
// transactions then conflict with each other and draw on the same partition
// budgets, as separate application servers do on one table.
package ddbmodel

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of Config, close to what AWS documents and what an application in
// the same region as its table sees.
const (
	// DefaultReadLatency is the mean latency of GetItem, BatchGetItem, Query
	// and Scan: "Tables that use on-demand mode deliver the same
	// single-digit millisecond latency, service-level agreement (SLA)
	// commitment, and security that DynamoDB already offers"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadWriteCapacityMode.html).
	DefaultReadLatency = 3 * time.Millisecond
	// DefaultWriteLatency is the mean latency of PutItem, UpdateItem,
	// DeleteItem and BatchWriteItem: single-digit milliseconds, a little
	// above a read (a write is replicated before it is acknowledged).
	DefaultWriteLatency = 5 * time.Millisecond
	// DefaultTransactLatency is the mean latency of TransactWriteItems and
	// TransactGetItems: about 2.5 times a single write, because "DynamoDB
	// performs two underlying reads or writes of every item in the
	// transaction: one to prepare the transaction and one to commit the
	// transaction"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling).
	// AWS publishes no latency figure for transactions; this is a model
	// choice.
	DefaultTransactLatency = 12 * time.Millisecond
	// DefaultJitter spreads each latency uniformly over ±25% of its mean.
	DefaultJitter = 0.25
	// DefaultPartitionWCU and DefaultPartitionRCU are the write and read
	// capacity units one partition key serves per second: "throttling can
	// occur if a single partition receives more than 3,000 RCUs or 1,000
	// WCUs"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html),
	// in on-demand mode too: "Key range throughput exceeded (in both modes):
	// Consumption directed at specific partitions exceeds the internal
	// partition-level throughput limits"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling.html).
	DefaultPartitionWCU = 1000
	DefaultPartitionRCU = 3000
	// DefaultBurst is how much unused capacity a partition key banks: one
	// second of its rate. AWS's burst capacity ("DynamoDB currently retains
	// up to five minutes (300 seconds) of unused read and write capacity",
	// bp-partition-key-design.html above) serves a table's provisioned
	// throughput, not more than the partition maximum: even an item
	// isolated on its own partition gets "throughput up to the partition
	// maximum of 3,000 RCUs and 1,000 WCUs"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html#isolate-frequent-access-items).
	// A short bank keeps that cap visible in short benchmarks; it is a
	// model choice.
	DefaultBurst = time.Second
)

// Config is what a Model models. DefaultConfig returns the defaults; New
// uses a Config exactly as given, so a zero field means zero (no latency, no
// capacity), not "default".
type Config struct {
	// ReadLatency, WriteLatency and TransactLatency are the mean latencies
	// of reads (GetItem, BatchGetItem, Query, Scan), single-item writes
	// (PutItem, UpdateItem, DeleteItem, BatchWriteItem) and transactions
	// (TransactWriteItems, TransactGetItems). Every answer of the model,
	// errors included, takes that long. Control-plane calls (CreateTable,
	// DescribeTable, ...) are not delayed.
	ReadLatency, WriteLatency, TransactLatency time.Duration
	// Jitter spreads each latency uniformly over [mean×(1-Jitter),
	// mean×(1+Jitter)]; 0 makes it exact.
	Jitter float64
	// PartitionWCU and PartitionRCU are the capacity units per second one
	// partition key value of one table serves; Burst is how much unused
	// capacity it banks (PartitionWCU×Burst units at most).
	PartitionWCU, PartitionRCU float64
	Burst                      time.Duration
	// NoConflicts turns transaction conflicts off; NoThrottling turns
	// partition throughput limits off.
	NoConflicts, NoThrottling bool
}

// DefaultConfig returns the documented defaults (the Default* constants).
func DefaultConfig() Config {
	return Config{
		ReadLatency:     DefaultReadLatency,
		WriteLatency:    DefaultWriteLatency,
		TransactLatency: DefaultTransactLatency,
		Jitter:          DefaultJitter,
		PartitionWCU:    DefaultPartitionWCU,
		PartitionRCU:    DefaultPartitionRCU,
		Burst:           DefaultBurst,
	}
}

// ParseConfig reads a Config from s, the syntax of the REDIMO_MODEL
// environment variable: "1", "on" or "true" for DefaultConfig, or
// comma-separated settings applied to the defaults:
//
//	read=3ms write=5ms tx=12ms   mean latencies (Go durations)
//	latency=2ms                  all three latencies at once
//	jitter=0.25                  ±share of the mean
//	wcu=1000 rcu=3000            capacity units per second per partition key
//	burst=1s                     banked capacity, as a duration of the rate
//	conflicts=off throttling=off
//
// for example "latency=1ms,wcu=500".
func ParseConfig(s string) (Config, error) {
	c := DefaultConfig()
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "1", "on", "true", "yes":
		return c, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return c, fmt.Errorf("ddbmodel: setting %q is not name=value", part)
		}
		var err error
		dur := func(d *time.Duration) { *d, err = time.ParseDuration(value) }
		float := func(f *float64) { *f, err = strconv.ParseFloat(value, 64) }
		off := func(b *bool) {
			var on bool
			on, err = strconv.ParseBool(strings.NewReplacer("off", "false", "on", "true").Replace(value))
			*b = !on
		}
		switch name {
		case "read":
			dur(&c.ReadLatency)
		case "write":
			dur(&c.WriteLatency)
		case "tx":
			dur(&c.TransactLatency)
		case "latency":
			dur(&c.ReadLatency)
			c.WriteLatency, c.TransactLatency = c.ReadLatency, c.ReadLatency
		case "jitter":
			float(&c.Jitter)
		case "wcu":
			float(&c.PartitionWCU)
		case "rcu":
			float(&c.PartitionRCU)
		case "burst":
			dur(&c.Burst)
		case "conflicts":
			off(&c.NoConflicts)
		case "throttling":
			off(&c.NoThrottling)
		default:
			return c, fmt.Errorf("ddbmodel: unknown setting %q", name)
		}
		if err != nil {
			return c, fmt.Errorf("ddbmodel: setting %q: %w", part, err)
		}
	}
	if c.Jitter < 0 || c.Jitter > 1 {
		return c, fmt.Errorf("ddbmodel: jitter %v is not in [0, 1]", c.Jitter)
	}
	return c, nil
}

// EnvVar is the environment variable FromEnv reads.
const EnvVar = "REDIMO_MODEL"

var (
	envOnce  sync.Once
	envModel *Model
	envErr   error
)

// FromEnv returns the process's shared Model configured by the REDIMO_MODEL
// environment variable (see ParseConfig), or nil when it is unset, empty,
// "0" or "off". Every call returns the same Model, so all clients of one
// process share one model of DynamoDB.
func FromEnv() (*Model, error) {
	envOnce.Do(func() {
		v := strings.TrimSpace(os.Getenv(EnvVar))
		switch strings.ToLower(v) {
		case "", "0", "off", "false", "no":
			return
		}
		cfg, err := ParseConfig(v)
		if err != nil {
			envErr = fmt.Errorf("%s=%q: %w", EnvVar, v, err)
			return
		}
		envModel = New(cfg)
	})
	return envModel, envErr
}

// Model is one modelled DynamoDB: the transactions in flight, the partition
// budgets and the counters. It is safe for concurrent use.
type Model struct {
	cfg Config

	mu       sync.Mutex
	inflight map[string]*flight  // item identity → the writes in flight on it
	buckets  map[string]*bucket  // "r"/"w" + partition identity → its budget
	schemas  map[string]*schema  // table name → its key schema
	stats    map[string]*OpStats // operation → its counters
}

// flight counts the writes in flight on one item.
type flight struct{ tx, single int }

// New returns a Model of cfg (start from DefaultConfig).
func New(cfg Config) *Model {
	return &Model{
		cfg:      cfg,
		inflight: map[string]*flight{},
		buckets:  map[string]*bucket{},
		schemas:  map[string]*schema{},
		stats:    map[string]*OpStats{},
	}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Transport returns an http.RoundTripper that sends requests through the
// model and then on to next (http.DefaultTransport when nil). Transports of
// one Model share its state.
func (m *Model) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{m: m, next: next}
}

// latency returns mean with the configured jitter.
func (m *Model) latency(mean time.Duration) time.Duration {
	if mean <= 0 {
		return 0
	}
	j := m.cfg.Jitter
	return time.Duration(float64(mean) * (1 - j + 2*j*rand.Float64()))
}

// OpStats are the counters of one operation.
type OpStats struct {
	Requests  int64   // requests received
	Conflicts int64   // answered with a transaction conflict
	Throttles int64   // answered with a throttling error (or, for BatchGetItem, with keys left unprocessed)
	WCU, RCU  float64 // capacity units charged to partitions
}

// Stats is a snapshot of a Model's counters, by operation name
// ("TransactWriteItems", "GetItem", ...).
type Stats map[string]OpStats

// Total sums the counters of every operation.
func (s Stats) Total() OpStats {
	var t OpStats
	for _, o := range s {
		t.Requests += o.Requests
		t.Conflicts += o.Conflicts
		t.Throttles += o.Throttles
		t.WCU += o.WCU
		t.RCU += o.RCU
	}
	return t
}

// String lists the operations in name order.
func (s Stats) String() string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(s)) {
		o := s[op]
		parts = append(parts, fmt.Sprintf("%s: %d requests, %d conflicts, %d throttled, %.1f WCU, %.1f RCU",
			op, o.Requests, o.Conflicts, o.Throttles, o.WCU, o.RCU))
	}
	return strings.Join(parts, "; ")
}

// Stats returns a snapshot of the counters.
func (m *Model) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := Stats{}
	for op, o := range m.stats {
		out[op] = *o
	}
	return out
}

// ResetStats zeroes the counters (the partition budgets and the
// transactions in flight are kept).
func (m *Model) ResetStats() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats = map[string]*OpStats{}
}

// count updates op's counters; m.mu must be held.
func (m *Model) count(op string, f func(*OpStats)) {
	o := m.stats[op]
	if o == nil {
		o = &OpStats{}
		m.stats[op] = o
	}
	f(o)
}

func (m *Model) countLocked(op string, f func(*OpStats)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count(op, f)
}
