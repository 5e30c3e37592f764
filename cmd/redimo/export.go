package main

// redimo export: the way back. Every set and sorted set of the table (or
// those matching -match) written to a Redis, with the keys' expiry.
//
// Each key is written under a staging name in Redis (exportStaging), then
// renamed over the key with its expiry in one MULTI/EXEC: Redis's RENAME
// is atomic and costs nothing per member, so a key appears whole or not
// at all and replaces whatever Redis held under its name. An interrupted
// export leaves at most the staging keys of the keys it was writing; run
// again, it deletes and rewrites them (the staging name is the same each
// time) and renames them over the keys. No checkpoint: a rerun reads the
// whole table again.
//
// The verify pass is the import's (verifyKey): the same comparison of a
// Redis key and a table key, from the keys exported.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redimo-go/redimo"
)

// exportStaging is the Redis key a key is written under before it is
// renamed over its own name.
func exportStaging(key string) string { return "redimo-export-staging:" + key }

// runExport is `redimo export [flags] redis://...`; as runImport.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer, connect func() (*redimo.Client, string, error), tally *redimo.Tally) int {
	fs := flag.NewFlagSet("redimo export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f importFlags
	fs.StringVar(&f.match, "match", "", "export only the keys matching this glob pattern (SCAN's MATCH)")
	fs.IntVar(&f.db, "db", 0, "the redimo database to read (0 to 15); the Redis database is the URL's /db")
	fs.Int64Var(&f.count, "count", 500, "keys per SCAN page and members per SADD/ZADD")
	fs.IntVar(&f.parallel, "parallel", 8, "keys exported (and verified) at once")
	fs.BoolVar(&f.verify, "verify", true, "after the export, compare each key: cardinality, a sample of members and scores, TTL")
	fs.Int64Var(&f.sample, "sample", 100, "members per key the verify pass checks")
	fs.DurationVar(&f.tolerance, "ttl-tolerance", 2*time.Second, "how far the verify pass lets a key's TTL differ")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redimo [flags] export [export flags] redis://[user:pass@]host:port[/db]

Writes every set and sorted set of the table (those matching -match), with
their TTLs, to a Redis: each key whole (staged, then renamed over the key),
replacing what Redis held under its name. Ends with a verify pass.

`)
		fs.PrintDefaults()
	}
	src, table, rdb, code := openEnds(ctx, fs, args, "destination", &f, stderr, connect)
	if rdb == nil {
		return code
	}
	defer rdb.Close()
	opt := rdb.Options()
	tally.Take()
	// The importer's verifyKey compares a Redis key with a table key,
	// whichever way the copy went.
	im := &importer{flags: f, src: rdb, dst: src, tally: tally, out: stdout, errw: stderr,
		cp: &checkpoint{Stats: importStats{Skipped: map[string]int64{}}}}
	start := time.Now()
	var (
		mu       sync.Mutex
		exported []typedKey
		members  int64
		vanished int64
	)
	err := parallel(ctx, f.parallel, func(yield func(typedKey) bool) error {
		for _, typ := range []string{"set", "zset"} {
			var cursor uint64
			for {
				keys, next, err := src.ScanType(ctx, cursor, f.match, f.count, typ)
				if err != nil {
					return err
				}
				for _, k := range keys {
					if !yield(typedKey{k, typ}) {
						return nil
					}
				}
				if cursor = next; cursor == 0 {
					break
				}
			}
		}
		return nil
	}, func(k typedKey) error {
		n, err := exportKey(ctx, src, rdb, k, f.count)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			return err
		case n == 0:
			vanished++
		default:
			exported = append(exported, k)
			members += n
		}
		return nil
	})
	copyTime := time.Since(start)
	copyCost := im.tallied()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "redimo export: interrupted; run the same command again (keys already exported are rewritten)")
		} else {
			fmt.Fprintln(stderr, "redimo export:", err)
		}
		return 1
	}
	match := ""
	if f.match != "" {
		match = fmt.Sprintf(" (MATCH %q)", f.match)
	}
	fmt.Fprintf(stdout, "exported table %s, db %d%s to redis://%s/%d\n", table, f.db, match, opt.Addr, opt.DB)
	fmt.Fprintf(stdout, "keys:     %d exported", len(exported))
	if vanished > 0 {
		fmt.Fprintf(stdout, ", %d deleted or expired in the table during the export", vanished)
	}
	fmt.Fprintf(stdout, "\nmembers:  %d exported\n", members)
	fmt.Fprintf(stdout, "DynamoDB: %s for the export\n", showCost(copyCost))
	fmt.Fprintf(stdout, "time:     %s exporting (%.0f members/s)\n", copyTime.Round(time.Millisecond), float64(members)/copyTime.Seconds())
	if !f.verify {
		return 0
	}
	before := im.tallied()
	mismatches, err := im.verifyKeys(ctx, f.parallel, func(yield func(typedKey) bool) error {
		for _, k := range exported {
			if !yield(k) {
				break
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "redimo export: verify:", err)
		return 1
	}
	fmt.Fprintf(stdout, "          %s for the verify pass\n", showCost(minus(im.tallied(), before)))
	im.reportVerify(mismatches)
	if len(mismatches) > 0 {
		return 1
	}
	return 0
}

// exportKey writes one key of the table to Redis, staged and renamed
// (see the top of this file), and returns how many members it wrote: 0
// when the key is gone from the table.
func exportKey(ctx context.Context, src *redimo.Client, rdb *redis.Client, k typedKey, count int64) (int64, error) {
	staging := exportStaging(k.key)
	if err := rdb.Del(ctx, staging).Err(); err != nil {
		return 0, err
	}
	var n int64
	var chunk []string
	var zchunk []redis.Z
	flush := func() error {
		var err error
		switch {
		case len(chunk) > 0:
			err = rdb.SAdd(ctx, staging, toAny(chunk)...).Err()
		case len(zchunk) > 0:
			err = rdb.ZAdd(ctx, staging, zchunk...).Err()
		}
		n += int64(len(chunk) + len(zchunk))
		chunk, zchunk = chunk[:0], zchunk[:0]
		return err
	}
	if k.typ == "set" {
		for m, err := range src.SScan(ctx, k.key, "") {
			if err != nil {
				return 0, err
			}
			if chunk = append(chunk, m); int64(len(chunk)) >= count {
				if err := flush(); err != nil {
					return 0, err
				}
			}
		}
	} else {
		for z, err := range src.ZScan(ctx, k.key, "") {
			if err != nil {
				return 0, err
			}
			if zchunk = append(zchunk, redis.Z{Member: z.Member, Score: z.Score}); int64(len(zchunk)) >= count {
				if err := flush(); err != nil {
					return 0, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	at := time.Now()
	ttl, err := src.PTTL(ctx, k.key)
	if err != nil {
		return 0, err
	}
	if n == 0 || ttl == redimo.TTLMissing {
		return 0, rdb.Del(ctx, staging).Err()
	}
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Rename(ctx, staging, k.key)
		if ttl >= 0 {
			p.PExpireAt(ctx, k.key, at.Add(ttl))
		}
		return nil
	})
	return n, err
}
