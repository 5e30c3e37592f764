package server

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redimo-go/redimo"
)

// Per-command statistics: Redis's INFO commandstats (calls, time, failed
// calls) plus what each command cost in DynamoDB, which Record learns from
// redimo's Options.Metrics. The server labels its own calls: Do puts a
// tally in each command's context, and Record adds the command's requests
// to it.

// Record is the redimo.Options.Metrics hook of a Client that a Server
// runs commands with: it adds r to the statistics of the command whose
// context ctx is. Requests made outside a command are ignored.
func Record(ctx context.Context, r redimo.Request) {
	if t, ok := ctx.Value(tallyKey{}).(*tally); ok {
		t.add(r)
	}
}

type tallyKey struct{}

// tally is what one command's DynamoDB requests cost.
type tally struct {
	mu                           sync.Mutex
	requests, conflicts, retries int64
	rcu, wcu                     float64
	latency                      time.Duration
}

func (t *tally) add(r redimo.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	t.rcu += r.PricedReadUnits // redimo's cost model (price.go): DynamoDB Local under-reports writes
	t.wcu += r.PricedWriteUnits
	t.latency += r.Latency
	if r.Conflict {
		t.conflicts++
	}
	if r.Attempts > 1 {
		t.retries += int64(r.Attempts - 1)
	}
}

// CommandStats are one command's totals since the server started.
type CommandStats struct {
	Command  string        // lower case, as INFO commandstats names it
	Calls    int64         // commands run
	Failed   int64         // of which replied with an error
	Rejected int64         // refused before running (arity, NOAUTH)
	Time     time.Duration // total time of the calls
	// DynamoDB: requests, consumed read and write capacity units,
	// transactions cancelled by conflicts (retried), SDK retries, and the
	// requests' total latency.
	Requests, Conflicts, Retries int64
	RCU, WCU                     float64
	RequestTime                  time.Duration
}

// stats holds the CommandStats by command.
type stats struct {
	mu    sync.Mutex
	byCmd map[string]*CommandStats

	keyspace keyspaceCache // INFO keyspace
}

// keyspaceCache holds INFO's keyspace figures for keyspaceTTL: reading
// them reads the whole key index (~1 read unit per 100 keys), and
// monitoring tools call INFO every few seconds.
type keyspaceCache struct {
	mu sync.Mutex
	at time.Time
	st []redimo.KeyspaceStats
}

// keyspaceTTL is how long INFO reuses the keyspace figures.
const keyspaceTTL = 10 * time.Second

// get returns the figures, read again when older than keyspaceTTL.
func (k *keyspaceCache) get(ctx context.Context, dbs []*redimo.Client) ([]redimo.KeyspaceStats, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.at.IsZero() && time.Since(k.at) < keyspaceTTL {
		return k.st, nil
	}
	sts := make([]redimo.KeyspaceStats, len(dbs))
	for n, db := range dbs {
		st, err := db.Keyspace(ctx)
		if err != nil {
			return nil, err
		}
		sts[n] = st
	}
	k.st, k.at = sts, time.Now()
	return sts, nil
}

func (s *stats) get(name string) *CommandStats {
	if s.byCmd == nil {
		s.byCmd = map[string]*CommandStats{}
	}
	c := s.byCmd[name]
	if c == nil {
		c = &CommandStats{Command: name}
		s.byCmd[name] = c
	}
	return c
}

func (s *stats) record(name string, d time.Duration, failed bool, t *tally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.get(name)
	c.Calls++
	if failed {
		c.Failed++
	}
	c.Time += d
	c.Requests += t.requests
	c.Conflicts += t.conflicts
	c.Retries += t.retries
	c.RCU += t.rcu
	c.WCU += t.wcu
	c.RequestTime += t.latency
}

// runShare collects the times of pipelined commands that run at once
// (server.go: a run). Each one's wall time includes waiting for the
// others (their shared transactions, the combiner's turn), so summing
// them counted the same milliseconds once per command: 50 pipelined SADDs
// that took 277 ms added 13 s to usec. Redis's usec is the time the
// server spent on a command; here a run's wall time is shared among its
// commands in proportion to their own, so the usec of a run add up to
// the time it took.
type runShare struct {
	mu    sync.Mutex
	names []string
	times []time.Duration
}

type runShareKey struct{}

func (r *runShare) add(name string, d time.Duration) {
	r.mu.Lock()
	r.names, r.times = append(r.names, name), append(r.times, d)
	r.mu.Unlock()
}

// settle adds to each command's time its share of wall, the run's time.
func (r *runShare) settle(s *stats, wall time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sum time.Duration
	for _, d := range r.times {
		sum += d
	}
	if sum <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, name := range r.names {
		s.get(name).Time += time.Duration(float64(wall) * float64(r.times[i]) / float64(sum))
	}
}

// reset forgets every command's statistics (CONFIG RESETSTAT).
func (s *stats) reset() {
	s.mu.Lock()
	s.byCmd = nil
	s.mu.Unlock()
}

func (s *stats) reject(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.get(name).Rejected++
}

// CommandStats returns the statistics of every command called since the
// server started, sorted by command.
func (s *Server) CommandStats() []CommandStats {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	out := make([]CommandStats, 0, len(s.stats.byCmd))
	for _, c := range s.stats.byCmd {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Command < out[j].Command })
	return out
}

// commandstatsLines are INFO commandstats' lines: Redis's fields, then
// redimo's DynamoDB fields.
func (s *Server) commandstatsLines() [][2]string {
	var lines [][2]string
	for _, c := range s.CommandStats() {
		perCall := 0.0
		if c.Calls > 0 {
			perCall = float64(c.Time.Microseconds()) / float64(c.Calls)
		}
		lines = append(lines, [2]string{"cmdstat_" + c.Command, fmt.Sprintf(
			"calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d,"+
				"dynamodb_requests=%d,rcu=%s,wcu=%s,conflicts=%d,retries=%d",
			c.Calls, c.Time.Microseconds(), perCall, c.Rejected, c.Failed,
			c.Requests, units(c.RCU), units(c.WCU), c.Conflicts, c.Retries)})
	}
	return lines
}

func units(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Collector returns a Prometheus collector of the per-command statistics
// (cmd/redimo-server serves it with --metrics-addr): the totals of INFO
// commandstats, and redimo_command_latency_seconds, a histogram of each
// command's latency (from its start to its reply, a pipelined command's
// own; CONFIG RESETSTAT does not reset it) whose buckets give percentiles:
// histogram_quantile(0.99, rate(redimo_command_latency_seconds_bucket[5m])).
func (s *Server) Collector() prometheus.Collector { return collector{s} }

// LatencyBuckets are the upper bounds, in seconds, of the buckets of
// redimo_command_latency_seconds: 0.5 ms to 16 s, doubling.
var LatencyBuckets = prometheus.ExponentialBuckets(0.0005, 2, 16)

func newLatencyHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "redimo_command_latency_seconds",
		Help:    "Latency of commands, from their start to their reply, by command.",
		Buckets: LatencyBuckets,
	}, []string{"command"})
}

type collector struct{ s *Server }

var (
	descCalls    = desc("commands_total", "Commands run, by command.")
	descFailed   = desc("command_errors_total", "Commands that replied with an error, by command.")
	descDuration = desc("command_duration_seconds", "Time taken by commands, by command.")
	descRequests = desc("dynamodb_requests_total", "DynamoDB requests made by commands, by command.")
	descRCU      = desc("dynamodb_read_capacity_units_total", "Read capacity units consumed, by redimo's cost model (DynamoDB's documented rates), by command.")
	descWCU      = desc("dynamodb_write_capacity_units_total", "Write capacity units consumed, index writes included, by redimo's cost model (DynamoDB's documented rates), by command.")
	descConflict = desc("dynamodb_transaction_conflicts_total", "Transactions cancelled by a concurrent one (then retried), by command.")
	descRetries  = desc("dynamodb_retries_total", "Requests the AWS SDK sent again (throttling, network errors, 5xx), by command.")
	descReqTime  = desc("dynamodb_request_duration_seconds", "Time taken by DynamoDB requests, by command.")
)

func desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("redimo_"+name, help, []string{"command"}, nil)
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCalls, descFailed, descDuration, descRequests, descRCU, descWCU, descConflict, descRetries, descReqTime} {
		ch <- d
	}
	c.s.latency.Describe(ch)
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.s.CommandStats() {
		cmd := strings.ReplaceAll(st.Command, "|", " ")
		counter := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, cmd)
		}
		counter(descCalls, float64(st.Calls))
		counter(descFailed, float64(st.Failed))
		counter(descRequests, float64(st.Requests))
		counter(descRCU, st.RCU)
		counter(descWCU, st.WCU)
		counter(descConflict, float64(st.Conflicts))
		counter(descRetries, float64(st.Retries))
		ch <- prometheus.MustNewConstSummary(descDuration, uint64(st.Calls), st.Time.Seconds(), nil, cmd)
		ch <- prometheus.MustNewConstSummary(descReqTime, uint64(st.Requests), st.RequestTime.Seconds(), nil, cmd)
	}
	c.s.latency.Collect(ch)
}
