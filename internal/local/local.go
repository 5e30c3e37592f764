// Package local builds DynamoDB clients for a local endpoint (DynamoDB
// Local), for redimo's tests, benchmarks and walk-throughs.
package local

import (
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/ddbmodel"
)

// Client returns a DynamoDB client for endpoint (e.g.
// "http://127.0.0.1:8000") with dummy credentials. transport may be nil.
//
// DynamoDB Local does not send the CRC32 checksum header that the SDK checks
// on responses, so the check is turned off here rather than its log hidden.
func Client(endpoint string, transport http.RoundTripper, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
	if transport != nil {
		cfg.HTTPClient = &http.Client{Transport: transport}
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	}}, optFns...)...)
}

// Transport returns transport (nil: http.DefaultTransport) behind the
// process's model of real DynamoDB when the REDIMO_MODEL environment
// variable asks for one (latency, transaction conflicts, per-partition
// throughput: see package ddbmodel), else transport unchanged. All the
// transports it returns share one model.
//
//	REDIMO_MODEL=1 make test TESTFLAGS='-run TestSAdd'
//	REDIMO_MODEL=latency=2ms,wcu=500 make bench BENCHFLAGS='-bench HotSet'
func Transport(transport http.RoundTripper) (http.RoundTripper, error) {
	m, err := ddbmodel.FromEnv()
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	if m == nil {
		return transport, nil
	}
	return m.Transport(transport), nil
}
