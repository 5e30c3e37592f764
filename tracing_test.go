package redimo

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// attrsOf is a span's attributes by key.
func attrsOf(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

// TestTracing: with a TracerProvider, SADD is one span named after the
// method, beneath the caller's span, with one child span per DynamoDB
// request carrying the operation and its capacity (the cost model's
// units and DynamoDB Local's report); a command another one calls adds no
// span; a failed command's span records the error.
func TestTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	// Member items: SADD is one TransactWriteItems (small sets: an UpdateItem).
	ctx, c, _, k := setup(t, func(o *Options) { o.TracerProvider = tp; o.DisableSmallSets = true })
	require.NoError(t, c.CheckTable(ctx))
	rec.Reset()

	ctx, parent := tp.Tracer("test").Start(ctx, "caller")
	n, err := c.SAdd(ctx, k+"s", "a", "b", "c")
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	parent.End()

	spans := rec.Ended()
	var cmd sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == "SAdd" {
			require.Nil(t, cmd, "one SAdd span")
			cmd = s
		}
	}
	require.NotNil(t, cmd, "spans: %v", spans)
	require.Equal(t, parent.SpanContext().SpanID(), cmd.Parent().SpanID(), "beneath the caller's span")
	require.Equal(t, "SAdd", attrsOf(cmd)["db.operation.name"].AsString())
	require.Equal(t, testTable, attrsOf(cmd)["db.namespace"].AsString())
	require.Equal(t, codes.Unset, cmd.Status().Code)

	var requests []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Parent().SpanID() == cmd.SpanContext().SpanID() {
			requests = append(requests, s)
		}
	}
	require.Len(t, requests, 1, "SADD of 3 new members to a set of member items: one TransactWriteItems")
	r := attrsOf(requests[0])
	require.Equal(t, "DynamoDB.TransactWriteItems", requests[0].Name())
	require.Equal(t, "TransactWriteItems", r["rpc.method"].AsString())
	require.Equal(t, "DynamoDB", r["rpc.service"].AsString())
	require.Equal(t, []string{testTable}, r["aws.dynamodb.table_names"].AsStringSlice())
	require.Equal(t, "SAdd", r["redimo.command"].AsString())
	require.Equal(t, 8.0, r["redimo.dynamodb.priced_write_units"].AsFloat64(), "3 member items and the metadata item, 2 WCU each (TestPricedUnits)")
	require.Positive(t, r["redimo.dynamodb.write_units"].AsFloat64(), "what DynamoDB Local reported")
	require.EqualValues(t, 1, r["redimo.dynamodb.attempts"].AsInt64())

	// ZRange calls ZRangeArgs: one command span; its requests beneath it.
	rec.Reset()
	_, err = c.ZAdd(ctx, k+"z", Z{1, "a"})
	require.NoError(t, err)
	rec.Reset()
	_, err = c.ZRange(ctx, k+"z", 0, -1)
	require.NoError(t, err)
	names := map[string]int{}
	for _, s := range rec.Ended() {
		names[s.Name()]++
		if s.Name() != "ZRange" {
			require.Equal(t, "ZRange", attrsOf(s)["redimo.command"].AsString(), s.Name())
		}
	}
	require.Equal(t, 1, names["ZRange"], "%v", names)
	require.Zero(t, names["ZRangeArgs"], "%v", names)

	// A wrong type: the command's span records the error.
	rec.Reset()
	_, err = c.SCard(ctx, k+"z")
	require.ErrorIs(t, err, ErrWrongType)
	var card sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "SCard" {
			card = s
		}
	}
	require.NotNil(t, card)
	require.Equal(t, codes.Error, card.Status().Code)
	require.NotEmpty(t, card.Events(), "the error recorded")

	// SScan's span covers the iteration.
	rec.Reset()
	for _, err := range c.SScan(ctx, k+"s", "*") {
		require.NoError(t, err)
	}
	names = map[string]int{}
	for _, s := range rec.Ended() {
		names[s.Name()]++
	}
	require.Equal(t, 1, names["SScan"], "%v", names)
	require.Positive(t, names["DynamoDB.Query"]+names["DynamoDB.GetItem"], "%v", names)
}

// TestCommandSpanOffAllocs: without a TracerProvider a command's span
// costs no allocation.
func TestCommandSpanOffAllocs(t *testing.T) {
	c := NewClient(nil)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		var err error
		_, traced := c.command(ctx, "SAdd")
		traced.end(&err)
	})
	require.Zero(t, allocs)
}

// BenchmarkCommandSpan: what a command's span costs, without a
// TracerProvider (off) and with the SDK's recording one (on); a DynamoDB
// request takes milliseconds.
func BenchmarkCommandSpan(b *testing.B) {
	err := errors.New("x")
	for _, bc := range []struct {
		name string
		opts func(*Options)
	}{
		{"off", func(*Options) {}},
		{"on", func(o *Options) {
			o.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
		}},
	} {
		c := NewClient(nil, bc.opts)
		ctx := context.Background()
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				_, traced := c.command(ctx, "SAdd")
				e := error(nil)
				if i%2 == 0 {
					e = err
				}
				traced.end(&e)
			}
		})
	}
}
