package redimo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redimo-go/redimo/internal/store"
)

// Sentinel errors. Test for them with errors.Is; every error redimo returns
// wraps one of them or a DynamoDB error (reachable with errors.As).
var (
	// ErrWrongType is returned when a command runs against a key holding
	// another type, as Redis's WRONGTYPE error. Nothing is written.
	ErrWrongType = errors.New("redimo: WRONGTYPE Operation against a key holding the wrong kind of value")

	// ErrInvalidArgument is returned (inside an *ArgError that names the
	// argument) when a command's input is rejected before any request.
	ErrInvalidArgument = errors.New("redimo: invalid argument")

	// ErrKeyTooLong is returned when a key is longer than MaxKeyLen bytes.
	ErrKeyTooLong = fmt.Errorf("redimo: key longer than %d bytes (MaxKeyLen, DynamoDB's 400 KB item limit)", MaxKeyLen)

	// ErrMemberTooLong is returned when a member is longer than MaxMemberLen bytes.
	ErrMemberTooLong = fmt.Errorf("redimo: member longer than %d bytes (MaxMemberLen, DynamoDB's 400 KB item limit)", MaxMemberLen)

	// ErrNotFloat is returned when a score or increment is NaN or does not
	// parse as a float, like Redis's "value is not a valid float".
	ErrNotFloat = errors.New("redimo: value is not a valid float")

	// ErrNotInteger is returned when a rank or count does not parse as an
	// integer, like Redis's "value is not an integer or out of range".
	ErrNotInteger = errors.New("redimo: value is not an integer or out of range")

	// ErrOutOfRange is returned for a count or limit outside what the
	// command accepts (a negative SPOP count, say), like Redis's "value is
	// out of range".
	ErrOutOfRange = errors.New("redimo: value is out of range")

	// ErrSyntax is returned for malformed arguments such as an unparsable
	// range bound or incompatible options, like Redis's "syntax error".
	ErrSyntax = errors.New("redimo: syntax error")

	// ErrContention is returned when a command kept losing to concurrent
	// writers or throttling for Options.MaxAttempts attempts (internal/store): a
	// write conflicting or throttled, a pop whose picks other clients took,
	// a batch read answering nothing. Nothing of the failed attempt was
	// written; earlier chunks of a multi-chunk command were, and a pop
	// (SPopN, ZPopMin, ZPopMax) returns the members it popped before.
	ErrContention = store.ErrContention

	// ErrKeyExpiryDisabled is returned by Expire and its kin when
	// Options.DisableKeyExpiry is set.
	ErrKeyExpiryDisabled = errors.New("redimo: key expiry is disabled (Options.DisableKeyExpiry)")

	// ErrTableMismatch is returned by CreateTable and CheckTable when the
	// table exists with a key schema or index that redimo cannot use.
	ErrTableMismatch = errors.New("redimo: table exists with another schema")

	// ErrNoSuchKey is returned by Rename and RenameNX when the key to
	// rename does not exist, as Redis's "no such key". Nothing is written.
	ErrNoSuchKey = errors.New("redimo: no such key")

	// ErrSameKey is returned (inside an *ArgError) by Copy when source and
	// destination are the same key, as Redis's "source and destination
	// objects are the same".
	ErrSameKey = errors.New("redimo: source and destination objects are the same")

	// ErrNoKeyIndex is returned by CreateTable and CheckTable, with
	// ErrTableMismatch, when the table lacks the global secondary index
	// that lists keys (Options.KeyIndexName): a table made by an older
	// redimo. The error's message gives the update-table command that adds it.
	ErrNoKeyIndex = errors.New("redimo: table has no key index")
)

// Setup errors: the table, credentials, region or endpoint are not what a
// command needs. They come inside a *SetupError whose message names the fix;
// test for them with errors.Is.
var (
	// ErrTableNotFound is returned when the table does not exist (DynamoDB's
	// ResourceNotFoundException). Create it with Client.CreateTable, the
	// CLI's `redimo create-table`, redimo-server's --create-table, or the
	// template in deploy/.
	ErrTableNotFound = errors.New("redimo: table not found")

	// ErrNoCredentials is returned when the AWS SDK found no credentials.
	ErrNoCredentials = errors.New("redimo: no AWS credentials")

	// ErrNoRegion is returned when the DynamoDB client has no region and no
	// endpoint.
	ErrNoRegion = errors.New("redimo: no AWS region")

	// ErrUnreachable is returned when no connection to the DynamoDB endpoint
	// could be made (refused, unknown host, timeout before any reply).
	ErrUnreachable = errors.New("redimo: DynamoDB endpoint unreachable")
)

// SetupError reports a setup mistake found by a DynamoDB request: a missing
// table, no credentials, no region, an unreachable endpoint. Its message
// says what is wrong and how to fix it; errors.Is matches its Problem
// (ErrTableNotFound, ErrNoCredentials, ErrNoRegion or ErrUnreachable) and
// errors.As reaches the SDK's error.
type SetupError struct {
	Problem error  // one of the setup sentinels above
	Table   string // the table the client uses
	Err     error  // the AWS SDK's error
}

// Fix is how to fix the problem, in one sentence.
func (e *SetupError) Fix() string {
	switch e.Problem {
	case ErrTableNotFound:
		return "create it with Client.CreateTable (CLI: redimo create-table; server: redimo-server --create-table) or the template deploy/cloudformation.yaml"
	case ErrNoCredentials:
		return "set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; for DynamoDB Local, set an endpoint with static credentials (README: Use with DynamoDB Local; CLI and server: --endpoint)"
	case ErrNoRegion:
		return "set AWS_REGION or aws.Config.Region (CLI and server: --region), or an endpoint for DynamoDB Local (--endpoint)"
	case ErrUnreachable:
		return "check the network and the endpoint: for DynamoDB Local, that it is running at the client's BaseEndpoint (CLI and server: --endpoint); for AWS, the region (aws.Config.Region) and any proxy (HTTPS_PROXY)"
	}
	return ""
}

func (e *SetupError) Error() string {
	what := strings.TrimPrefix(e.Problem.Error(), "redimo: ")
	if e.Problem == ErrTableNotFound {
		what = fmt.Sprintf("table %q not found", e.Table)
	}
	return fmt.Sprintf("%s: %s (%v)", what, e.Fix(), e.Err)
}

// Unwrap lets errors.Is match the Problem and errors.As reach the SDK's error.
func (e *SetupError) Unwrap() []error { return []error{e.Problem, e.Err} }

// ArgError reports a rejected argument: which command, which argument, the
// offending value and why. errors.Is(err, ErrInvalidArgument) holds for every
// ArgError, and errors.Is(err, Err) for its specific reason (ErrKeyTooLong,
// ErrMemberTooLong, ErrNotFloat, ErrNotInteger, ErrOutOfRange, ErrSyntax).
type ArgError struct {
	Command string // the Redis command, e.g. "SADD"
	Arg     string // the argument's name, e.g. "member"
	Value   string // the offending value, shortened when long
	Err     error  // the specific reason
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("redimo: %s: invalid %s %q: %s", e.Command, e.Arg, e.Value, strings.TrimPrefix(fmt.Sprint(e.Err), "redimo: "))
}

// Unwrap lets errors.Is match both ErrInvalidArgument and the specific reason.
func (e *ArgError) Unwrap() []error { return []error{ErrInvalidArgument, e.Err} }

func argError(cmd, arg, value string, reason error) error {
	if len(value) > 64 {
		value = value[:61] + "..."
	}
	return &ArgError{Command: cmd, Arg: arg, Value: value, Err: reason}
}

// wrap prefixes a DynamoDB error with the command that hit it, keeping it
// reachable through errors.As. Errors redimo made itself pass through.
//
// One prefix only: a command built on another (SMEMBERS on SSCAN) names
// the command called, and a redimo error inside loses its own "redimo: ",
// so the text reads "redimo: SMEMBERS: table ..." rather than
// "redimo: SMEMBERS: redimo: SSCAN: redimo: table ...".
func wrap(cmd string, err error) error {
	if err == nil || errors.Is(err, ErrWrongType) || errors.Is(err, ErrInvalidArgument) ||
		errors.Is(err, ErrContention) || errors.Is(err, ErrNoSuchKey) {
		return err
	}
	if inner, ok := err.(*cmdError); ok {
		err = inner.err
	}
	return &cmdError{cmd: cmd, err: err}
}

// cmdError is an error of command cmd (wrap).
type cmdError struct {
	cmd string
	err error
}

func (e *cmdError) Error() string {
	return "redimo: " + e.cmd + ": " + strings.TrimPrefix(e.err.Error(), "redimo: ")
}

func (e *cmdError) Unwrap() error { return e.err }
