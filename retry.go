package redimo

// The one retry policy of every command.
//
// What is retried:
//   - a request DynamoDB refused for a conflict with a concurrent
//     transaction or for throttling (model.Retryable): the identical request is
//     sent again, a TransactWriteItems with its idempotency token (sendTx,
//     retryConflicts); a TransactWriteItems also after an
//     InternalServerError, whose outcome is unknown (the token makes the
//     resend apply it at most once);
//   - a BatchGetItem's unprocessed keys (batchGetChunk);
//   - a round of a command that lost a race with concurrent writers: a
//     transaction cancelled by a failed condition is tried again without
//     the failed writes (transact), a pop whose picks were popped by
//     another client picks again (SPopN, ZPopMin, ZMPop, ShardedSet.Pop),
//     a write that met an expired key purges it and starts again
//     (transactPurging), EXEC's and TxPipelined's optimistic transactions
//     read again (exec.go).
//
// How often: at most Options.MaxAttempts attempts (DefaultMaxAttempts) of
// each of those loops; a BatchGetItem that reads something is progress and
// starts its count again, so its keys are read in a bounded number of
// requests.
//
// Backoff: before resending a refused request, exponential from 5 ms,
// capped at 500 ms, with full jitter (sleep); a lost race is tried again
// at once, since its next round reads fresh state. Every wait ends when ctx
// does, with ctx's error.
//
// Running out: ErrContention, from every loop alike. Commands that return
// what they did so far (SPopN, ZPopMin, ZPopMax) return it with the error.
//
// The SDK's own retryer sits under all of this: it resends a request whose
// response was lost or was a 500, and may resend throttled ones before
// redimo sees them.

import (
	"github.com/redimo-go/redimo/internal/model"

	"context"
	mrand "math/rand/v2"
	"time"
)

// attempts calls try for attempt 1, 2, ... until it reports done or fails,
// at most Options.MaxAttempts times, then returns ErrContention. With
// backoff set it sleeps before every attempt after the first.
func (s *store) attempts(ctx context.Context, backoff bool, try func() (done bool, err error)) error {
	for attempt := 1; ; attempt++ {
		done, err := try()
		if done || err != nil {
			return err
		}
		if attempt >= s.opts.MaxAttempts {
			return ErrContention
		}
		if backoff {
			if err := sleep(ctx, attempt); err != nil {
				return err
			}
		}
	}
}

// retryConflicts runs op until it does not fail with a transaction
// conflict or throttling (model.Retryable), backing off between attempts, at
// most Options.MaxAttempts times (then ErrContention).
func (s *store) retryConflicts(ctx context.Context, op func() error) error {
	return s.attempts(ctx, true, func() (bool, error) {
		err := op()
		if model.Retryable(err) {
			return false, nil
		}
		return true, err
	})
}

// sleep waits before retry number attempt (1, 2, ...): exponential backoff
// from 5 ms, capped at 500 ms, with full jitter. It returns ctx's error
// when ctx ends first.
func sleep(ctx context.Context, attempt int) error {
	d := 5 * time.Millisecond << min(attempt, 7)
	d = min(d, 500*time.Millisecond)
	t := time.NewTimer(jitter(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func jitter(d time.Duration) time.Duration { return time.Duration(mrand.Int64N(int64(d))) + 1 }
