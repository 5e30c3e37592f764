package main

// redimo import: every set and sorted set of a running Redis copied into
// the table, with the keys' expiry, resumable, then verified.
//
// The source is read with go-redis: SCAN (MATCH, COUNT) for the keys, TYPE
// for each key of a page in one pipeline, SSCAN and ZSCAN in chunks for
// the members (a 20,000-member key is never one reply), SCARD, ZCARD and
// PTTL. One SCAN pass with TYPE pipelined rather than a SCAN TYPE pass per
// type: SCAN's TYPE filter is applied after the server has walked the
// keys anyway, so two filtered passes walk the keyspace twice and still
// cannot count the keys of other types, which the report names.
//
// The destination is written only through the library's commands (SADD,
// ZADD, SREM, ZREM, DEL, PEXPIREAT, PERSIST): what they mean and cost is
// theirs, written once.
//
// Resuming. The checkpoint file holds the SCAN cursor, the keys of the
// current SCAN page that are not finished, and for each the SSCAN/ZSCAN
// cursor of its members. It is saved as one consistent snapshot (at most
// every checkpointEvery, and at every page), so a snapshot older than the
// work done is always safe: everything it says is left to do is redone,
// and redoing is harmless (SADD and ZADD of the same members write the
// same items).
//
// A key interrupted part-way is imported into the destination key itself,
// not into a temporary key renamed at the end: redimo's RENAME is not
// atomic (rename.go: it copies the members again, about 4 more write units
// per member, and a reader sees the steps between), so staging would
// triple the cost of every key and still not make the key appear at once.
// Instead each key ends with a reconciliation (finishKey): once every
// member the source held throughout has been added (SSCAN's guarantee),
// the destination holds a superset of the source; equal cardinalities then
// mean equal sets, scores are the source's (ZADD overwrites them), and
// members the destination holds beyond the source's (an earlier import, a
// key already there) are found by one pass over the destination and
// removed. A smaller destination means the source grew during the copy:
// the key is copied again. The expiry is set last, from the source's PTTL.
// A key of another type already in the table under the same name is
// replaced: the import's promise is that each key ends equal to the
// source's.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/schollz/progressbar/v3"

	"github.com/redimo-go/redimo"
)

// checkpointEvery is how often, at most, the checkpoint file is rewritten
// while keys are copied (it is also written at every SCAN page and at the
// end). A variable for the tests, which save after every chunk.
var checkpointEvery = 250 * time.Millisecond

// importFlags are the flags of `redimo import`.
type importFlags struct {
	match      string
	checkpoint string
	quiet      bool
	db         int
	count      int64
	parallel   int
	verify     bool
	verifyOnly bool
	sample     int64
	tolerance  time.Duration
}

func (f *importFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.match, "match", "", "copy only the keys matching this glob pattern (SCAN's MATCH)")
	fs.StringVar(&f.checkpoint, "checkpoint", "redimo-import.checkpoint",
		"the file that records progress: an interrupted import run again with the same file continues where it stopped; removed when the import is verified")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar, only the report")
	fs.IntVar(&f.db, "db", 0, "the redimo database to write into (0 to 15); the source's is the URL's /db")
	fs.Int64Var(&f.count, "count", 500, "keys per SCAN page and members per SSCAN/ZSCAN chunk (the COUNT hint)")
	fs.IntVar(&f.parallel, "parallel", 16, "keys copied (and verified) at once")
	fs.BoolVar(&f.verify, "verify", true, "after the copy, compare each key: cardinality, a sample of members and scores, TTL")
	fs.BoolVar(&f.verifyOnly, "verify-only", false, "only the verify pass: compare the table with the source, copy nothing")
	fs.Int64Var(&f.sample, "sample", 100, "members per key the verify pass checks")
	fs.DurationVar(&f.tolerance, "ttl-tolerance", 2*time.Second, "how far the verify pass lets a key's TTL differ from the source's")
}

// checkpoint is the state of an import, saved in its file as JSON.
type checkpoint struct {
	// What it is the progress of: a rerun with other arguments is refused.
	Source string `json:"source"` // redis://host:port/db, without the password
	Match  string `json:"match"`
	Table  string `json:"table"`
	DB     int    `json:"db"`

	Cursor   uint64      `json:"cursor"`    // the SCAN cursor after the page in Page
	ScanDone bool        `json:"scan_done"` // SCAN has returned cursor 0: Page is the last
	Page     []*keyState `json:"page"`      // the page's sets and sorted sets not finished yet
	Copied   bool        `json:"copied"`    // every key is copied: only the verify pass is left

	Stats importStats `json:"stats"`
}

// keyState is a key of the current page. Key is bytes (base64 in the
// file): Redis keys need not be UTF-8, which JSON strings would mangle.
type keyState struct {
	Key     []byte `json:"key"`
	Type    string `json:"type"`    // "set" or "zset"
	Cursor  uint64 `json:"cursor"`  // SSCAN/ZSCAN cursor of the next chunk
	Scanned bool   `json:"scanned"` // every chunk is written: finishKey is left
	Again   int    `json:"again"`   // copies after the first (the source grew during the copy)
	// What the key's copy found, counted in importStats when the key is
	// done (so that a step cut by an interruption and done again by the
	// next run is counted once): a key of another type in the table
	// replaced, members in the table the source does not hold.
	Replaced bool  `json:"replaced,omitempty"`
	Extras   int64 `json:"extras,omitempty"`
	done     bool
}

// importStats are the import's counts, across its runs.
type importStats struct {
	Sets, ZSets   int64            // keys copied
	Members       int64            // members of the keys copied, as the source counted them at the end of each
	Written       int64            // members written (with rewrites after an interruption): the progress bar's count
	Removed       int64            // members removed from the destination that the source does not hold
	Replaced      int64            // keys of another type in the table, replaced
	Vanished      int64            // keys deleted or expired in the source during their copy
	Skipped       map[string]int64 // keys of other types, by type
	Failed        []string         // keys that could not be copied, with why
	Cost          redimo.Cost      // DynamoDB, the copy of earlier runs
	Elapsed       time.Duration    // of earlier runs
	ChangedKeys   int64            // keys copied more than once because the source changed meanwhile
	Runs          int
	VerifyCost    redimo.Cost `json:"-"`
	VerifyKeys    int64       `json:"-"`
	VerifySampled int64       `json:"-"`
}

// importer is one run of `redimo import`.
type importer struct {
	flags importFlags
	src   *redis.Client
	dst   *redimo.Client
	tally *redimo.Tally
	out   io.Writer // the report
	errw  io.Writer // the progress bar

	mu       sync.Mutex // guards cp and saved
	cp       *checkpoint
	saved    time.Time
	costBase redimo.Cost // cp.Stats.Cost when this run began
	start    time.Time   // when this run began copying (zero: it did not)
	tallyMu  sync.Mutex
	runCost  redimo.Cost // this run's, summed by tallied
	bar      *progressbar.ProgressBar
	barMu    sync.Mutex                    // makes progress's read and set of the bar one step
	total    struct{ keys, members int64 } // the survey's
	keysDone atomic.Int64
}

// runImport is `redimo import [flags] redis://...`: args are what follows
// "import". connect returns the client of the table (checked) and its
// name; the client's Options.Metrics adds to tally.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer, connect func() (*redimo.Client, string, error), tally *redimo.Tally) int {
	fs := flag.NewFlagSet("redimo import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f importFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redimo [flags] import [import flags] redis://[user:pass@]host:port[/db]

Copies every set and sorted set of a running Redis (those matching -match),
with their TTLs, into the table; other types are counted and skipped.
Interrupted, the same command continues from its -checkpoint file. Ends with
a verify pass and a report of what was copied, skipped and what it cost.

`)
		fs.PrintDefaults()
	}
	dst, table, src, code := openEnds(ctx, fs, args, "source", &f, stderr, connect)
	if src == nil {
		return code
	}
	defer src.Close()
	opt := src.Options()
	im := &importer{flags: f, src: src, dst: dst, tally: tally, out: stdout, errw: stderr}
	im.tally.Take()
	source := fmt.Sprintf("redis://%s/%d", opt.Addr, opt.DB)
	if err := im.load(source, table); err != nil {
		fmt.Fprintln(stderr, "redimo import:", err)
		return 1
	}
	return im.run(ctx)
}

// load reads the checkpoint file, or starts a new import when there is
// none.
func (im *importer) load(source, table string) error {
	fresh := &checkpoint{Source: source, Match: im.flags.match, Table: table, DB: im.flags.db}
	b, err := os.ReadFile(im.flags.checkpoint)
	switch {
	case im.flags.verifyOnly || errors.Is(err, os.ErrNotExist):
		im.cp = fresh
	case err != nil:
		return err
	default:
		var cp checkpoint
		if err := json.Unmarshal(b, &cp); err != nil {
			return fmt.Errorf("checkpoint %s: %v: remove it to start the import over", im.flags.checkpoint, err)
		}
		if cp.Source != fresh.Source || cp.Match != fresh.Match || cp.Table != fresh.Table || cp.DB != fresh.DB {
			return fmt.Errorf("checkpoint %s is of another import (%s MATCH %q into table %s db %d): finish that one, remove the file, or pass another -checkpoint",
				im.flags.checkpoint, cp.Source, cp.Match, cp.Table, cp.DB)
		}
		im.cp = &cp
	}
	if im.cp.Stats.Skipped == nil {
		im.cp.Stats.Skipped = map[string]int64{}
	}
	im.cp.Stats.Runs++
	im.costBase = im.cp.Stats.Cost
	return nil
}

// save writes the checkpoint: now when force, else when checkpointEvery
// has passed since the last save. The file is replaced whole (written
// beside it, then renamed), so an interruption never leaves half of one.
func (im *importer) save(force bool) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if !force && time.Since(im.saved) < checkpointEvery {
		return nil
	}
	im.saved = time.Now()
	cp := *im.cp
	cp.Page = slices.DeleteFunc(slices.Clone(cp.Page), func(k *keyState) bool { return k.done })
	cp.Stats.Cost = im.costBase.Plus(im.tallied())
	if !im.start.IsZero() {
		cp.Stats.Elapsed += time.Since(im.start)
	}
	b, err := json.MarshalIndent(&cp, "", " ")
	if err != nil {
		return err
	}
	tmp := im.flags.checkpoint + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, im.flags.checkpoint)
}

// tallied is what this run has cost in DynamoDB so far.
func (im *importer) tallied() redimo.Cost {
	im.tallyMu.Lock()
	defer im.tallyMu.Unlock()
	im.runCost = im.runCost.Plus(im.tally.Take())
	return im.runCost
}

func (im *importer) run(ctx context.Context) int {
	code := 0
	if im.flags.verifyOnly {
		im.flags.verify = true
	} else if !im.cp.Copied {
		im.start = time.Now()
		if err := im.survey(ctx); err != nil {
			return im.fail(ctx, err)
		}
		im.startBar()
		if err := im.copyAll(ctx); err != nil {
			im.stopBar(false)
			return im.fail(ctx, err)
		}
		im.stopBar(true)
		im.mu.Lock()
		im.cp.Copied = true
		im.mu.Unlock()
		if err := im.save(true); err != nil {
			return im.fail(ctx, err)
		}
	}
	copyCost := im.costBase.Plus(im.tallied())
	var mismatches []string
	var verifyTime time.Duration
	if im.flags.verify {
		start, before := time.Now(), im.tallied()
		var err error
		mismatches, err = im.verifyAll(ctx)
		if err != nil {
			return im.fail(ctx, err)
		}
		im.cp.Stats.VerifyCost = minus(im.tallied(), before)
		verifyTime = time.Since(start)
	}
	im.report(copyCost, verifyTime, mismatches)
	if len(mismatches) > 0 || len(im.cp.Stats.Failed) > 0 {
		code = 1
	}
	if im.flags.verifyOnly {
		return code
	}
	if err := os.Remove(im.flags.checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(im.errw, "redimo import:", err)
		code = 1
	}
	return code
}

// fail saves the checkpoint and says how to continue.
func (im *importer) fail(ctx context.Context, err error) int {
	if serr := im.save(true); serr != nil {
		fmt.Fprintln(im.errw, "redimo import: saving the checkpoint:", serr)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(im.errw, "redimo import: interrupted; run the same command again to continue (checkpoint %s)\n", im.flags.checkpoint)
		return 1
	}
	fmt.Fprintf(im.errw, "redimo import: %v; run the same command again to continue (checkpoint %s)\n", err, im.flags.checkpoint)
	return 1
}

// survey counts the keys and members to copy, for the progress bar: one
// SCAN pass with TYPE, SCARD and ZCARD pipelined per page (no members are
// read).
func (im *importer) survey(ctx context.Context) error {
	if im.flags.quiet {
		return nil
	}
	var cursor uint64
	for {
		page, next, err := im.scanPage(ctx, cursor)
		if err != nil {
			return err
		}
		pipe := im.src.Pipeline()
		var cards []*redis.IntCmd
		for _, k := range page {
			switch k.typ {
			case "set":
				cards = append(cards, pipe.SCard(ctx, k.key))
			case "zset":
				cards = append(cards, pipe.ZCard(ctx, k.key))
			}
		}
		if len(cards) > 0 {
			if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
				return fmt.Errorf("source: %w", err)
			}
		}
		for _, c := range cards {
			im.total.keys++
			im.total.members += c.Val()
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

type typedKey struct{ key, typ string }

// scanPage is one SCAN page of the source, each key with its type.
func (im *importer) scanPage(ctx context.Context, cursor uint64) ([]typedKey, uint64, error) {
	keys, next, err := im.src.Scan(ctx, cursor, im.flags.match, im.flags.count).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("source SCAN: %w", err)
	}
	if len(keys) == 0 {
		return nil, next, nil
	}
	pipe := im.src.Pipeline()
	types := make([]*redis.StatusCmd, len(keys))
	for i, k := range keys {
		types[i] = pipe.Type(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, 0, fmt.Errorf("source TYPE: %w", err)
	}
	page := make([]typedKey, len(keys))
	for i, k := range keys {
		page[i] = typedKey{k, types[i].Val()}
	}
	return page, next, nil
}

func (im *importer) startBar() {
	if im.flags.quiet {
		return
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	written := im.cp.Stats.Written
	im.keysDone.Store(im.cp.Stats.Sets + im.cp.Stats.ZSets)
	total := max(im.total.members, 1)
	im.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(im.errw),
		progressbar.OptionSetDescription(im.describe()),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("members"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(im.errw) }),
	)
	_ = im.bar.Set64(min(written, total-1))
}

// describe is the bar's description: keys done of the survey's.
func (im *importer) describe() string {
	return fmt.Sprintf("keys %d/%d", im.keysDone.Load(), im.total.keys)
}

// stopBar ends the progress bar, full when the copy is done, else where
// it stands.
func (im *importer) stopBar(done bool) {
	switch {
	case im.bar == nil:
	case done:
		im.bar.Describe(im.describe())
		_ = im.bar.Finish()
	default:
		_ = im.bar.Exit()
	}
}

// progress counts n members written and, when keyDone, a key finished.
func (im *importer) progress(n int64, keyDone bool) {
	if im.bar == nil {
		return
	}
	if keyDone {
		im.keysDone.Add(1)
		im.bar.Describe(im.describe())
	}
	if n > 0 {
		// Held below the total until stopBar: the bar stops drawing once
		// full, and the last keys are still being finished (or the
		// source grew, or chunks cut by an interruption are rewritten).
		im.barMu.Lock()
		defer im.barMu.Unlock()
		_ = im.bar.Set64(min(im.bar.State().CurrentNum+n, im.bar.GetMax64()-1))
	}
}

// copyAll copies the pages left, the current one (from the checkpoint)
// first.
func (im *importer) copyAll(ctx context.Context) error {
	for {
		if err := im.copyPage(ctx); err != nil {
			return err
		}
		if im.cp.ScanDone {
			return nil
		}
		page, next, err := im.scanPage(ctx, im.cp.Cursor)
		if err != nil {
			return err
		}
		im.mu.Lock()
		seen := map[string]bool{} // SCAN may list a key twice
		for _, k := range page {
			if seen[k.key] {
				continue
			}
			seen[k.key] = true
			switch k.typ {
			case "set", "zset":
				im.cp.Page = append(im.cp.Page, &keyState{Key: []byte(k.key), Type: k.typ})
			case "none": // deleted or expired since SCAN listed it
			default:
				im.cp.Stats.Skipped[k.typ]++
			}
		}
		im.cp.Cursor, im.cp.ScanDone = next, next == 0
		im.mu.Unlock()
		// The page and the cursor after it are saved together: the
		// skipped counts are never counted twice.
		if err := im.save(true); err != nil {
			return err
		}
	}
}

// copyPage copies the keys of the current page, flags.parallel at once.
func (im *importer) copyPage(ctx context.Context) error {
	err := parallel(ctx, im.flags.parallel, func(yield func(*keyState) bool) error {
		for _, k := range slices.Clone(im.cp.Page) {
			if !yield(k) {
				break
			}
		}
		return nil
	}, func(k *keyState) error { return im.copyKey(ctx, k) })
	if err != nil {
		return err
	}
	im.mu.Lock()
	im.cp.Page = nil
	im.mu.Unlock()
	return nil
}

// copyKey copies one key: its chunks from where the checkpoint left it,
// then finishKey. An error is returned only when the import cannot go on
// (the context ended, Redis or DynamoDB failed); a key the table cannot
// hold is recorded in Failed and skipped.
func (im *importer) copyKey(ctx context.Context, k *keyState) error {
	for {
		if !k.Scanned {
			if err := im.copyChunks(ctx, k); err != nil {
				return im.keyError(ctx, k, err)
			}
		}
		again, err := im.finishKey(ctx, k)
		if err != nil {
			return im.keyError(ctx, k, err)
		}
		if !again {
			break
		}
		im.mu.Lock()
		k.Cursor, k.Scanned = 0, false
		if k.Again++; k.Again == 1 {
			im.cp.Stats.ChangedKeys++
		}
		im.mu.Unlock()
	}
	im.progress(0, true)
	return im.save(false)
}

// keyError is what copyKey returns for err: nil, after recording the key
// in Failed, when the fault is the key's (a member too long for an item,
// expiry disabled on a table); err otherwise.
func (im *importer) keyError(ctx context.Context, k *keyState, err error) error {
	if ctx.Err() != nil || !(errors.Is(err, redimo.ErrMemberTooLong) || errors.Is(err, redimo.ErrKeyTooLong) ||
		errors.Is(err, redimo.ErrKeyExpiryDisabled) || errors.Is(err, errChanged)) {
		return err
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	k.done = true
	im.cp.Stats.Failed = append(im.cp.Stats.Failed, fmt.Sprintf("%q: %v", k.Key, err))
	return nil
}

// errChanged is a key the source kept changing while it was copied.
var errChanged = errors.New("the source changed it during every copy")

// maxAgain is how many times a key that the source changed during its
// copy is copied again before it is listed as failed.
const maxAgain = 4

// copyChunks writes the key's members chunk by chunk (SSCAN or ZSCAN, then
// SADD or ZADD), recording the cursor after each.
func (im *importer) copyChunks(ctx context.Context, k *keyState) error {
	key := string(k.Key)
	for {
		var (
			members []string
			next    uint64
			err     error
		)
		if k.Type == "set" {
			members, next, err = im.src.SScan(ctx, key, k.Cursor, "", im.flags.count).Result()
		} else {
			members, next, err = im.src.ZScan(ctx, key, k.Cursor, "", im.flags.count).Result()
		}
		if isWrongType(err) { // the source key is now of another type: finishKey tells
			next, members, err = 0, nil, nil
		}
		if err != nil {
			return fmt.Errorf("source: %w", err)
		}
		n, err := im.write(ctx, k, members)
		if err != nil {
			return err
		}
		im.mu.Lock()
		k.Cursor, k.Scanned = next, next == 0
		im.cp.Stats.Written += int64(n)
		im.mu.Unlock()
		im.progress(int64(n), false)
		if err := im.save(false); err != nil {
			return err
		}
		if next == 0 {
			return nil
		}
	}
}

// write adds one chunk of members (for a sorted set, member and score
// alternately, as ZSCAN returns them) and returns how many members it
// had. A key of another type in the table is replaced.
func (im *importer) write(ctx context.Context, k *keyState, chunk []string) (int, error) {
	if len(chunk) == 0 {
		return 0, nil
	}
	key := string(k.Key)
	var add func() error
	n := len(chunk)
	if k.Type == "set" {
		add = func() error { _, err := im.dst.SAdd(ctx, key, chunk...); return err }
	} else {
		zs, err := scoredMembers(chunk)
		if err != nil {
			return 0, err
		}
		n = len(zs)
		add = func() error { _, err := im.dst.ZAdd(ctx, key, zs...); return err }
	}
	err := add()
	if errors.Is(err, redimo.ErrWrongType) {
		im.mu.Lock()
		k.Replaced = true
		im.mu.Unlock()
		if _, err := im.dst.Del(ctx, key); err != nil {
			return 0, err
		}
		err = add()
	}
	return n, err
}

// scoredMembers reads ZSCAN's reply: member, score, member, score...
// Redis writes scores so that they read back exactly (inf and -inf too).
func scoredMembers(reply []string) ([]redimo.Z, error) {
	zs := make([]redimo.Z, 0, len(reply)/2)
	for i := 0; i+1 < len(reply); i += 2 {
		s, err := strconv.ParseFloat(reply[i+1], 64)
		if err != nil {
			return nil, fmt.Errorf("source ZSCAN: score %q of %q: %w", reply[i+1], reply[i], err)
		}
		zs = append(zs, redimo.Z{Member: reply[i], Score: s})
	}
	return zs, nil
}

func isWrongType(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE")
}

// finishKey makes the destination key equal to the source's once its
// chunks are written (see the comment at the top of this file), then
// sets its expiry. It reports whether the key must be copied again (the
// source has members the destination lacks: it grew during the copy).
func (im *importer) finishKey(ctx context.Context, k *keyState) (bool, error) {
	key := string(k.Key)
	srcCard, pttl, at, gone, err := im.sourceCard(ctx, k)
	if err != nil {
		return false, err
	}
	if gone { // deleted, expired or retyped in the source during the copy
		if _, err := im.dst.Del(ctx, key); err != nil {
			return false, err
		}
		im.mu.Lock()
		defer im.mu.Unlock()
		im.cp.Stats.Vanished++
		im.keyDone(k)
		return false, nil
	}
	dstCard, err := im.destCard(ctx, k)
	if err != nil {
		return false, err
	}
	if dstCard > srcCard {
		if err := im.removeExtras(ctx, k); err != nil {
			return false, err
		}
		if dstCard, err = im.destCard(ctx, k); err != nil {
			return false, err
		}
	}
	if dstCard != srcCard {
		if k.Again >= maxAgain {
			return false, fmt.Errorf("%q: %w", key, errChanged)
		}
		return true, nil
	}
	if err := im.setExpiry(ctx, key, pttl, at); err != nil {
		return false, err
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if k.Type == "set" {
		im.cp.Stats.Sets++
	} else {
		im.cp.Stats.ZSets++
	}
	im.cp.Stats.Members += srcCard
	im.keyDone(k)
	return false, nil
}

// keyDone marks k done and counts what its copy found. im.mu is held.
func (im *importer) keyDone(k *keyState) {
	k.done = true
	if k.Replaced {
		im.cp.Stats.Replaced++
	}
	im.cp.Stats.Removed += k.Extras
}

// sourceCard reads the source key's type, cardinality and PTTL in one
// pipeline; at is when the PTTL was asked. gone: the key is no longer of
// its type.
func (im *importer) sourceCard(ctx context.Context, k *keyState) (card int64, pttl time.Duration, at time.Time, gone bool, err error) {
	key := string(k.Key)
	pipe := im.src.Pipeline()
	typ := pipe.Type(ctx, key)
	var c *redis.IntCmd
	if k.Type == "set" {
		c = pipe.SCard(ctx, key)
	} else {
		c = pipe.ZCard(ctx, key)
	}
	ttl := pipe.PTTL(ctx, key)
	at = time.Now()
	if _, err := pipe.Exec(ctx); err != nil && !isWrongType(err) {
		return 0, 0, at, false, fmt.Errorf("source: %w", err)
	}
	if typ.Val() != k.Type || ttl.Val() == -2 { // -2: expired between TYPE and PTTL
		return 0, 0, at, true, nil
	}
	return c.Val(), ttl.Val(), at, false, nil
}

func (im *importer) destCard(ctx context.Context, k *keyState) (int64, error) {
	if k.Type == "set" {
		return im.dst.SCard(ctx, string(k.Key))
	}
	return im.dst.ZCard(ctx, string(k.Key))
}

// removeExtras removes the destination's members that the source does not
// hold, found by one pass over the destination (SSCAN or ZSCAN of the
// table) checked against the source (SMISMEMBER or ZMSCORE) in chunks.
func (im *importer) removeExtras(ctx context.Context, k *keyState) error {
	key := string(k.Key)
	var extras, chunk []string
	check := func() error {
		if len(chunk) == 0 {
			return nil
		}
		var in []bool
		if k.Type == "set" {
			var err error
			if in, err = im.src.SMIsMember(ctx, key, toAny(chunk)...).Result(); err != nil {
				return fmt.Errorf("source: %w", err)
			}
		} else {
			// go-redis's ZMScore reads a missing member's nil as 0: ask
			// ZMSCORE itself and look at the nils.
			vals, err := im.src.Do(ctx, append([]any{"ZMSCORE", key}, toAny(chunk)...)...).Slice()
			if err != nil {
				return fmt.Errorf("source: %w", err)
			}
			for _, v := range vals {
				in = append(in, v != nil)
			}
		}
		for i, m := range chunk {
			if !in[i] {
				extras = append(extras, m)
			}
		}
		chunk = chunk[:0]
		return nil
	}
	if k.Type == "set" {
		for m, err := range im.dst.SScan(ctx, key, "") {
			if err != nil {
				return err
			}
			if chunk = append(chunk, m); int64(len(chunk)) >= im.flags.count {
				if err := check(); err != nil {
					return err
				}
			}
		}
	} else {
		for z, err := range im.dst.ZScan(ctx, key, "") {
			if err != nil {
				return err
			}
			if chunk = append(chunk, z.Member); int64(len(chunk)) >= im.flags.count {
				if err := check(); err != nil {
					return err
				}
			}
		}
	}
	if err := check(); err != nil {
		return err
	}
	// The extras found by the first pass include those of any later one
	// (after an interruption): the most found is how many there were.
	im.mu.Lock()
	k.Extras = max(k.Extras, int64(len(extras)))
	im.mu.Unlock()
	for c := range slices.Chunk(extras, int(im.flags.count)) {
		var err error
		if k.Type == "set" {
			_, err = im.dst.SRem(ctx, key, c...)
		} else {
			_, err = im.dst.ZRem(ctx, key, c...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func toAny(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// setExpiry gives the destination key the source's TTL: pttl, as read at
// at, becomes an absolute PEXPIREAT (so the time spent since is not added
// to it); no TTL in the source removes one the destination key had.
func (im *importer) setExpiry(ctx context.Context, key string, pttl time.Duration, at time.Time) error {
	if pttl >= 0 {
		_, err := im.dst.PExpireAt(ctx, key, at.Add(pttl))
		return err
	}
	// Persistent in the source. PTTL first: a key that has no expiry
	// (most) costs one read unit, not a conditional write.
	d, err := im.dst.PTTL(ctx, key)
	if err != nil || d < 0 {
		return err
	}
	_, err = im.dst.Persist(ctx, key)
	return err
}

func minus(a, b redimo.Cost) redimo.Cost {
	return redimo.Cost{Requests: a.Requests - b.Requests, ReadUnits: a.ReadUnits - b.ReadUnits,
		WriteUnits: a.WriteUnits - b.WriteUnits, ReportedWriteUnits: a.ReportedWriteUnits - b.ReportedWriteUnits}
}

// verifyAll compares every set and sorted set of the source (one more
// SCAN pass) with the table, flags.parallel keys at once, and returns
// the differences found.
func (im *importer) verifyAll(ctx context.Context) ([]string, error) {
	return im.verifyKeys(ctx, im.flags.parallel, func(yield func(typedKey) bool) error {
		var cursor uint64
		for {
			page, next, err := im.scanPage(ctx, cursor)
			if err != nil {
				return err
			}
			for _, k := range page {
				if (k.typ == "set" || k.typ == "zset") && !yield(k) {
					return nil
				}
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	})
}

// verifyKeys compares the keys that keys yields with the table
// (verifyKey), n at once, and returns the differences found, sorted.
func (im *importer) verifyKeys(ctx context.Context, n int, keys func(yield func(typedKey) bool) error) ([]string, error) {
	var (
		mu         sync.Mutex
		mismatches []string
	)
	err := parallel(ctx, n, keys, func(k typedKey) error {
		diff, sampled, err := im.verifyKey(ctx, k)
		mu.Lock()
		defer mu.Unlock()
		im.cp.Stats.VerifyKeys++
		im.cp.Stats.VerifySampled += sampled
		if diff != "" {
			mismatches = append(mismatches, diff)
		}
		return err
	})
	sort.Strings(mismatches)
	return mismatches, err
}

// verifyKey compares one key: cardinality, a sample of members (with
// their scores), TTL. It returns the difference ("" when none) and how
// many members it sampled. A key that the source no longer holds is not
// compared.
func (im *importer) verifyKey(ctx context.Context, k typedKey) (string, int64, error) {
	pipe := im.src.Pipeline()
	typ := pipe.Type(ctx, k.key)
	ttl := pipe.PTTL(ctx, k.key)
	var card *redis.IntCmd
	var members *redis.StringSliceCmd
	var scored *redis.ZSliceCmd
	if k.typ == "set" {
		card = pipe.SCard(ctx, k.key)
		members = pipe.SRandMemberN(ctx, k.key, im.flags.sample)
	} else {
		card = pipe.ZCard(ctx, k.key)
		scored = pipe.ZRandMemberWithScores(ctx, k.key, int(im.flags.sample))
	}
	srcAt := time.Now()
	if _, err := pipe.Exec(ctx); err != nil && !isWrongType(err) {
		return "", 0, fmt.Errorf("source: %w", err)
	}
	if typ.Val() != k.typ { // deleted, expired or retyped since SCAN
		return "", 0, nil
	}
	var dstCard int64
	var err error
	if k.typ == "set" {
		dstCard, err = im.dst.SCard(ctx, k.key)
	} else {
		dstCard, err = im.dst.ZCard(ctx, k.key)
	}
	if err != nil {
		return "", 0, err
	}
	if dstCard != card.Val() {
		return fmt.Sprintf("%q: %s of %d members in Redis, %d in the table", k.key, k.typ, card.Val(), dstCard), 0, nil
	}
	var sampled int64
	if k.typ == "set" && len(members.Val()) > 0 {
		in, err := im.dst.SMIsMember(ctx, k.key, members.Val()...)
		if err != nil {
			return "", 0, err
		}
		for i, m := range members.Val() {
			if !in[i] {
				return fmt.Sprintf("%q: member %q missing from the table", k.key, m), 0, nil
			}
		}
		sampled = int64(len(in))
	}
	if k.typ == "zset" && len(scored.Val()) > 0 {
		names := make([]string, len(scored.Val()))
		for i, z := range scored.Val() {
			names[i] = z.Member.(string)
		}
		scores, oks, err := im.dst.ZMScore(ctx, k.key, names...)
		if err != nil {
			return "", 0, err
		}
		for i, z := range scored.Val() {
			switch {
			case !oks[i]:
				return fmt.Sprintf("%q: member %q missing from the table", k.key, names[i]), 0, nil
			case scores[i] != z.Score:
				return fmt.Sprintf("%q: member %q scores %v in Redis, %v in the table", k.key, names[i], z.Score, scores[i]), 0, nil
			}
		}
		sampled = int64(len(oks))
	}
	dstAt := time.Now()
	dstTTL, err := im.dst.PTTL(ctx, k.key)
	if err != nil {
		return "", 0, err
	}
	// The TTLs are read at different times (the member checks between):
	// compare the moments they end, not what was left of them.
	srcTTL := ttl.Val()
	if (srcTTL < 0) != (dstTTL < 0) || srcTTL >= 0 && math.Abs(float64(srcAt.Add(srcTTL).Sub(dstAt.Add(dstTTL)))) > float64(im.flags.tolerance) {
		return fmt.Sprintf("%q: TTL %s in Redis, %s in the table", k.key, showTTL(srcTTL), showTTL(dstTTL)), sampled, nil
	}
	return "", sampled, nil
}

func showTTL(d time.Duration) string {
	if d < 0 {
		return "none"
	}
	return d.Round(time.Millisecond).String()
}

// report prints what the import did and cost.
func (im *importer) report(copyCost redimo.Cost, verifyTime time.Duration, mismatches []string) {
	st := &im.cp.Stats
	w := im.out
	match := ""
	if im.cp.Match != "" {
		match = fmt.Sprintf(" (MATCH %q)", im.cp.Match)
	}
	if im.flags.verifyOnly {
		fmt.Fprintf(w, "verified table %s, db %d against %s%s\n", im.cp.Table, im.cp.DB, im.cp.Source, match)
		fmt.Fprintf(w, "DynamoDB: %s\n", showCost(st.VerifyCost))
		fmt.Fprintf(w, "time:     %s\n", verifyTime.Round(time.Millisecond))
		im.reportVerify(mismatches)
		return
	}
	fmt.Fprintf(w, "imported %s%s into table %s, db %d", im.cp.Source, match, im.cp.Table, im.cp.DB)
	if st.Runs > 1 {
		fmt.Fprintf(w, ", in %d runs", st.Runs)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "keys:     %d copied (%d sets, %d sorted sets)", st.Sets+st.ZSets, st.Sets, st.ZSets)
	for _, x := range []struct {
		n    int64
		what string
	}{{st.Replaced, "replaced a key of another type in the table"}, {st.Vanished, "deleted or expired in the source during the copy"},
		{st.ChangedKeys, "copied again because the source changed them"}} {
		if x.n > 0 {
			fmt.Fprintf(w, ", %d %s", x.n, x.what)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "members:  %d copied", st.Members)
	if st.Written > st.Members {
		fmt.Fprintf(w, " (%d written, with the rewrites of chunks an interruption cut)", st.Written)
	}
	if st.Removed > 0 {
		fmt.Fprintf(w, ", %d removed from the table (not in the source)", st.Removed)
	}
	fmt.Fprintln(w)
	var skipped int64
	var types []string
	for _, t := range slices.Sorted(maps.Keys(st.Skipped)) {
		skipped += st.Skipped[t]
		types = append(types, fmt.Sprintf("%d %s", st.Skipped[t], t))
	}
	if skipped == 0 {
		fmt.Fprintln(w, "skipped:  none (no keys of other types)")
	} else {
		fmt.Fprintf(w, "skipped:  %d key%s of other types: %s\n", skipped, plural(int(skipped)), strings.Join(types, ", "))
	}
	if len(st.Failed) > 0 {
		fmt.Fprintf(w, "failed:   %d keys: %s\n", len(st.Failed), strings.Join(st.Failed, "; "))
	}
	fmt.Fprintf(w, "DynamoDB: %s for the copy", showCost(copyCost))
	if st.Members > 0 {
		fmt.Fprintf(w, ", %.2f WCU a member", copyCost.WriteUnits/float64(st.Members))
	}
	fmt.Fprintln(w)
	if im.flags.verify {
		fmt.Fprintf(w, "          %s for the verify pass\n", showCost(st.VerifyCost))
	}
	if st.Runs > 1 {
		fmt.Fprintln(w, "          (earlier runs: as their last checkpoint recorded them)")
	}
	elapsed := st.Elapsed
	if !im.start.IsZero() {
		elapsed += time.Since(im.start) - verifyTime
	}
	rate := "-"
	if secs := elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf("%.0f members/s", float64(st.Written)/secs)
	}
	fmt.Fprintf(w, "time:     %s copying (%s)", elapsed.Round(time.Millisecond), rate)
	if im.flags.verify {
		fmt.Fprintf(w, ", %s verifying", verifyTime.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	if im.flags.verify {
		im.reportVerify(mismatches)
	}
}

// reportVerify prints the verify pass's findings.
func (im *importer) reportVerify(mismatches []string) {
	st, w := &im.cp.Stats, im.out
	if len(mismatches) == 0 {
		fmt.Fprintf(w, "verify:   OK: %d keys, cardinalities equal, %d sampled members and scores equal, TTLs within %s\n",
			st.VerifyKeys, st.VerifySampled, im.flags.tolerance)
		return
	}
	fmt.Fprintf(w, "verify:   %d of %d keys differ (run the import again to copy them again):\n", len(mismatches), st.VerifyKeys)
	for i, m := range mismatches {
		if i == 20 {
			fmt.Fprintf(w, "          ... and %d more\n", len(mismatches)-i)
			break
		}
		fmt.Fprintf(w, "          %s\n", m)
	}
}

// showCost is "1,234 requests, 10 RCU, 4,000 WCU, $0.0025 on demand".
func showCost(c redimo.Cost) string {
	return fmt.Sprintf("%d requests, %g RCU, %g WCU, $%.6f at on-demand prices (%s)", c.Requests, c.ReadUnits, c.WriteUnits,
		c.Dollars(redimo.OnDemandPrices), "the cost model's units")
}

// openEnds parses the command line of an import or export (fs, args),
// checks f, then opens its two ends: the table's database f.db and the
// Redis at the one URL the line names (end: "source" or "destination"),
// answering PING. When they are not opened (rdb nil), code is the
// command's exit status: 0 after -help, else 1 or 2.
func openEnds(ctx context.Context, fs *flag.FlagSet, args []string, end string, f *importFlags, stderr io.Writer, connect func() (*redimo.Client, string, error)) (db *redimo.Client, table string, rdb *redis.Client, code int) {
	cmd := strings.TrimPrefix(fs.Name(), "redimo ")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, "", nil, 0
		}
		return nil, "", nil, 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "redimo %s: one %s URL, redis://[user:pass@]host:port[/db]\n", cmd, end)
		return nil, "", nil, 2
	}
	opt, err := redis.ParseURL(fs.Arg(0))
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "redimo %s: %v (a URL such as redis://127.0.0.1:6379/0)\n", cmd, err)
		return nil, "", nil, 2
	case f.count < 1 || f.parallel < 1 || f.sample < 0:
		fmt.Fprintf(stderr, "redimo %s: -count and -parallel must be at least 1, -sample not negative\n", cmd)
		return nil, "", nil, 2
	case f.db < 0 || f.db > redimo.MaxDB:
		fmt.Fprintf(stderr, "redimo %s: -db %d: a database is 0 to %d\n", cmd, f.db, redimo.MaxDB)
		return nil, "", nil, 2
	}
	client, table, err := connect()
	if err != nil {
		fmt.Fprintln(stderr, "redimo:", err)
		return nil, "", nil, 1
	}
	if db, err = client.WithDB(f.db); err != nil {
		fmt.Fprintf(stderr, "redimo %s: %v\n", cmd, err)
		return nil, "", nil, 2
	}
	rdb = redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		fmt.Fprintf(stderr, "redimo %s: cannot reach Redis at %s: %v\n", cmd, opt.Addr, err)
		return nil, "", nil, 1
	}
	return db, table, rdb, 0
}

// parallel runs do on each item of items, n at once, and returns the
// first error (of items or of do); after one, no more items are started.
func parallel[T any](ctx context.Context, n int, items func(yield func(T) bool) error, do func(T) error) error {
	ch := make(chan T)
	errs := make(chan error, n+1)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				if err := do(it); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
	ierr := items(func(it T) bool {
		select {
		case ch <- it:
			return true
		case err = <-errs:
			return false
		case <-ctx.Done():
			err = ctx.Err()
			return false
		}
	})
	close(ch)
	wg.Wait()
	close(errs)
	for _, e := range []error{err, ierr, <-errs} {
		if e != nil {
			return e
		}
	}
	return nil
}
