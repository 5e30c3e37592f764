package redimo

// OpenTelemetry tracing, with Options.TracerProvider set: a span per
// command (command, below: one line at the top of each command method)
// and, beneath it, a span per DynamoDB request (api.go's send, the one
// place every request goes through) carrying the operation, the capacity
// DynamoDB reported, the cost model's units, the SDK's attempts and the
// error. Without a TracerProvider nothing here runs beyond a nil check:
// BenchmarkCommandSpanOff and TestCommandSpanOffAllocs (tracing_test.go).

import (
	"context"
	"iter"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of redimo's spans.
const tracerName = "github.com/redimo-go/redimo"

// The attributes of redimo's spans. Command spans carry db.system.name,
// db.namespace (the table) and db.operation.name (the method); request
// spans, OpenTelemetry's AWS SDK conventions (rpc.system aws-api,
// rpc.service DynamoDB, rpc.method, aws.dynamodb.table_names) and
// redimo's figures.
var (
	attrSystem       = attribute.String("db.system.name", "redimo")
	attrRPCSystem    = attribute.String("rpc.system", "aws-api")
	attrRPCService   = attribute.String("rpc.service", "DynamoDB")
	keyNamespace     = attribute.Key("db.namespace")
	keyOperation     = attribute.Key("db.operation.name")
	keyRPCMethod     = attribute.Key("rpc.method")
	keyTables        = attribute.Key("aws.dynamodb.table_names")
	keyReadUnits     = attribute.Key("redimo.dynamodb.read_units")
	keyWriteUnits    = attribute.Key("redimo.dynamodb.write_units")
	keyPricedRead    = attribute.Key("redimo.dynamodb.priced_read_units")
	keyPricedWrite   = attribute.Key("redimo.dynamodb.priced_write_units")
	keyAttempts      = attribute.Key("redimo.dynamodb.attempts")
	keyConflict      = attribute.Key("redimo.dynamodb.transaction_conflict")
	keyCommandOfSpan = attribute.Key("redimo.command")
)

// commandSpan is a command's span: the zero value (no tracer, or a
// command inside another one's span) does nothing.
type commandSpan struct{ span trace.Span }

// spanKey marks a context inside a command's span: a command that another
// calls (ZRange calls ZRangeArgs, ShardedSet.Add calls SAdd, EXEC runs
// its commands) adds no span of its own.
type spanKey struct{}

// command starts the span of command name (the method: "SAdd") when the
// Client traces, and returns ctx carrying it and the name (for the
// requests' Command, without walking the stack). Callers defer its end
// with the command's error:
//
//	ctx, traced := c.command(ctx, "SAdd")
//	defer traced.end(&err)
func (c *Client) command(ctx context.Context, name string) (context.Context, commandSpan) {
	if c.tracer == nil || ctx.Value(spanKey{}) != nil {
		return ctx, commandSpan{}
	}
	ctx, sp := c.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrSystem, keyNamespace.String(c.opts.TableName), keyOperation.String(name)))
	ctx = context.WithValue(ctx, spanKey{}, true)
	if ctx.Value(commandKey{}) == nil {
		ctx = context.WithValue(ctx, commandKey{}, name)
	}
	return ctx, commandSpan{sp}
}

// end ends the span, recording *err when it is not nil.
func (s commandSpan) end(err *error) {
	if s.span == nil {
		return
	}
	if *err != nil {
		s.span.RecordError(*err)
		s.span.SetStatus(codes.Error, (*err).Error())
	}
	s.span.End()
}

// requestSpan starts the span of one DynamoDB request, beneath the
// command's span in ctx; its end (endRequest) adds what the request cost.
func (a *api) requestSpan(ctx context.Context, op string) (context.Context, trace.Span) {
	return a.tracer.Start(ctx, "DynamoDB."+op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrRPCSystem, attrRPCService, keyRPCMethod.String(op), keyTables.StringSlice([]string{a.table})))
}

// endRequest ends a request's span with r's figures.
func endRequest(sp trace.Span, r *Request) {
	sp.SetAttributes(keyCommandOfSpan.String(r.Command),
		keyReadUnits.Float64(r.ReadUnits), keyWriteUnits.Float64(r.WriteUnits),
		keyPricedRead.Float64(r.PricedReadUnits), keyPricedWrite.Float64(r.PricedWriteUnits),
		keyAttempts.Int(r.Attempts), keyConflict.Bool(r.Conflict))
	if r.Err != nil {
		sp.RecordError(r.Err)
		sp.SetStatus(codes.Error, r.Err.Error())
	}
	sp.End()
}

// traceSeq is the iterator of command name (SScan, ZScan), whose body runs
// inside the command's span: the span starts when the iteration does and
// ends with it, recording the last error yielded.
func traceSeq[V any](c *Client, ctx context.Context, name string, body func(context.Context, func(V, error) bool)) iter.Seq2[V, error] {
	if c.tracer == nil {
		return func(yield func(V, error) bool) { body(ctx, yield) }
	}
	return func(yield func(V, error) bool) {
		ctx, traced := c.command(ctx, name)
		var err error
		defer traced.end(&err)
		body(ctx, func(v V, e error) bool {
			if e != nil {
				err = e
			}
			return yield(v, e)
		})
	}
}
