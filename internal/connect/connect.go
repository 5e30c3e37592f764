// Package connect builds a redimo.Client from the command-line flags and
// environment variables that cmd/redimo-server and cmd/redimo share.
package connect

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
)

// Flags are the DynamoDB settings of a program.
type Flags struct {
	Table                 string
	Endpoint              string
	Region                string
	EventuallyConsistent  bool
	DisableKeyExpiry      bool
	DisableWriteCombining bool
}

// Register defines -table, -endpoint, -region, -eventually-consistent,
// -disable-key-expiry and -disable-write-combining on fs, with defaults
// from REDIMO_TABLE, REDIMO_ENDPOINT, REDIMO_REGION (else the AWS
// configuration's region), REDIMO_EVENTUALLY_CONSISTENT,
// REDIMO_DISABLE_KEY_EXPIRY and REDIMO_DISABLE_WRITE_COMBINING.
func (f *Flags) Register(fs *flag.FlagSet) {
	consistent, _ := strconv.ParseBool(os.Getenv("REDIMO_EVENTUALLY_CONSISTENT"))
	noExpiry, _ := strconv.ParseBool(os.Getenv("REDIMO_DISABLE_KEY_EXPIRY"))
	noCombining, _ := strconv.ParseBool(os.Getenv("REDIMO_DISABLE_WRITE_COMBINING"))
	fs.StringVar(&f.Table, "table", envOr("REDIMO_TABLE", redimo.DefaultTableName), "DynamoDB table (env REDIMO_TABLE)")
	fs.StringVar(&f.Endpoint, "endpoint", os.Getenv("REDIMO_ENDPOINT"),
		"DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local, with dummy credentials (env REDIMO_ENDPOINT); empty: AWS from the default configuration")
	fs.StringVar(&f.Region, "region", os.Getenv("REDIMO_REGION"), "AWS region (env REDIMO_REGION; default: the AWS configuration's)")
	fs.BoolVar(&f.EventuallyConsistent, "eventually-consistent", consistent,
		"eventually consistent reads: half the read cost, may miss a write that just succeeded (env REDIMO_EVENTUALLY_CONSISTENT)")
	fs.BoolVar(&f.DisableKeyExpiry, "disable-key-expiry", noExpiry,
		"for tables whose keys never expire: reads that find members skip the metadata item (env REDIMO_DISABLE_KEY_EXPIRY); see redimo.Options")
	fs.BoolVar(&f.DisableWriteCombining, "disable-write-combining", noCombining,
		"send every write command's transactions on their own instead of sharing them between concurrent commands (env REDIMO_DISABLE_WRITE_COMBINING); see redimo.Options")
}

// Client returns the redimo client the flags describe, and lines
// describing it (for INFO). optFns adjust the client's options after the
// flags'. Without --endpoint, a missing region is reported at once (a
// *redimo.SetupError), before any request.
func (f *Flags) Client(ctx context.Context, optFns ...func(*redimo.Options)) (*redimo.Client, [][2]string, error) {
	if err := checkEndpoint(f.Endpoint); err != nil {
		return nil, nil, err
	}
	var db *dynamodb.Client
	region := f.Region
	if f.Endpoint != "" {
		var opts []func(*dynamodb.Options)
		if region != "" {
			opts = append(opts, func(o *dynamodb.Options) { o.Region = region })
		}
		// REDIMO_MODEL (hidden, for tests and benchmarks) puts a model of
		// real DynamoDB's latency, conflicts and throughput limits in front
		// of a local endpoint.
		transport, err := local.Transport(nil)
		if err != nil {
			return nil, nil, err
		}
		db = local.Client(f.Endpoint, transport, opts...)
		region = db.Options().Region
	} else {
		var opts []func(*config.LoadOptions) error
		if region != "" {
			opts = append(opts, config.WithRegion(region))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("AWS configuration: %w", err)
		}
		if cfg.Region == "" {
			return nil, nil, &redimo.SetupError{Problem: redimo.ErrNoRegion, Table: f.Table,
				Err: errors.New("no region in the flags, the environment or the AWS configuration files")}
		}
		db = dynamodb.NewFromConfig(cfg)
		region = cfg.Region
	}
	c := redimo.NewClient(db, append([]func(*redimo.Options){func(o *redimo.Options) {
		o.TableName = f.Table
		o.EventuallyConsistent = f.EventuallyConsistent
		o.DisableKeyExpiry = f.DisableKeyExpiry
		o.DisableWriteCombining = f.DisableWriteCombining
	}}, optFns...)...)
	endpoint := f.Endpoint
	if endpoint == "" {
		endpoint = "aws"
	}
	info := [][2]string{
		{"table", f.Table},
		{"endpoint", endpoint},
		{"region", region},
		{"eventually_consistent", strconv.FormatBool(f.EventuallyConsistent)},
		{"disable_key_expiry", strconv.FormatBool(f.DisableKeyExpiry)},
		{"write_combining", strconv.FormatBool(!f.DisableWriteCombining)},
	}
	if model := os.Getenv(ddbmodel.EnvVar); model != "" && f.Endpoint != "" {
		info = append(info, [2]string{"ddb_model", model})
	}
	return c, info, nil
}

// checkEndpoint rejects an endpoint the SDK cannot use, with the fix:
// "127.0.0.1:8000" (no scheme) would get the SDK's "Failed to parse uri"
// at the first request.
func checkEndpoint(endpoint string) error {
	if endpoint == "" {
		return nil
	}
	lower := strings.ToLower(endpoint)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return fmt.Errorf("--endpoint %s has no scheme: pass --endpoint http://%s (env REDIMO_ENDPOINT)", endpoint, endpoint)
	}
	if u, err := url.Parse(endpoint); err != nil || u.Host == "" {
		return fmt.Errorf("--endpoint %s is not a URL such as http://127.0.0.1:8000 (env REDIMO_ENDPOINT)", endpoint)
	}
	return nil
}

// isLocal reports whether endpoint is on this machine (DynamoDB Local,
// which a clone of redimo starts with make ddb-local).
func isLocal(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Explain returns the one-line message a program prints for err, without
// a "redimo:" prefix: for a setup mistake (*redimo.SetupError), what is
// wrong and the flag or environment variable that fixes it; else err's
// own text.
func (f *Flags) Explain(err error) string {
	var se *redimo.SetupError
	if !errors.As(err, &se) {
		return strings.TrimPrefix(err.Error(), "redimo: ")
	}
	const local = "for DynamoDB Local pass --endpoint http://127.0.0.1:8000 (env REDIMO_ENDPOINT)"
	where := f.Endpoint
	if where == "" {
		where = "AWS"
	}
	switch se.Problem {
	case redimo.ErrTableNotFound:
		cmd := "redimo"
		if f.Endpoint != "" {
			cmd += " --endpoint " + f.Endpoint
		}
		if f.Region != "" {
			cmd += " --region " + f.Region
		}
		if f.Table != redimo.DefaultTableName {
			cmd += " --table " + f.Table
		}
		return fmt.Sprintf("table %q does not exist at %s: create it with `%s create-table` or start redimo-server with --create-table (or pick another table with --table)", f.Table, where, cmd)
	case redimo.ErrNoCredentials:
		return "no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; " + local
	case redimo.ErrNoRegion:
		return "no AWS region: pass --region (env REDIMO_REGION or AWS_REGION); " + local
	case redimo.ErrUnreachable:
		cause := se.Err.Error()
		var op *net.OpError
		if errors.As(err, &op) {
			cause = op.Err.Error()
		}
		switch {
		case f.Endpoint == "":
			return fmt.Sprintf("cannot reach DynamoDB at %s (%s): check the network, a proxy (HTTPS_PROXY) and that the region is one DynamoDB serves (--region, env REDIMO_REGION or AWS_REGION)", where, cause)
		case isLocal(f.Endpoint):
			return fmt.Sprintf("cannot reach DynamoDB at %s (%s): check --endpoint (env REDIMO_ENDPOINT) and that DynamoDB Local is running there (in a clone of the redimo repository, make ddb-local serves http://127.0.0.1:8000)", where, cause)
		}
		return fmt.Sprintf("cannot reach DynamoDB at %s (%s): check --endpoint (env REDIMO_ENDPOINT), the network, and that DynamoDB Local or your DynamoDB-compatible service is running there", where, cause)
	}
	return se.Error()
}
