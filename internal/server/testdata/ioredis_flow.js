// The ioredis flows of issue 11 (multi() transaction, WATCH retry loop,
// scanStream with match and type, keys, dbsize, rename, copy, zmpop,
// bzpopmin with and without a timeout, expiretime, 2000-byte members,
// flushdb), run by TestIORedis against redis-server and redimo-server: the
// outputs must be the same. Arguments: port, database.
const Redis = require("ioredis");
const [port, db] = [Number(process.argv[2]), Number(process.argv[3])];
const opts = { port, db, lazyConnect: false, maxRetriesPerRequest: 1 };
const r = new Redis(opts);
const other = new Redis(opts);
const out = [];
const log = (...a) => out.push(a.map((x) => JSON.stringify(x)).join(" "));
// exec's [[error, reply], ...] with errors as their messages.
const replies = (res) => (res === null ? null : res.map(([e, v]) => (e ? "error: " + e.message : v)));

async function scanAll(options) {
  const keys = [];
  for await (const page of r.scanStream(options)) keys.push(...page);
  return [...new Set(keys)].sort();
}

async function main() {
  await r.flushdb();
  log("multi", replies(await r.multi().sadd("s", "a", "b").zadd("z", 1, "m", 2, "n").scard("s").zrange("z", 0, -1, "WITHSCORES").exec()));
  log("multi error", replies(await r.multi().sadd("z", "x").zincrby("z", 1, "n").exec()));
  // WATCH retry loop
  let tries = 0;
  for (;;) {
    tries++;
    await r.watch("z");
    const v = Number(await r.zscore("z", "m"));
    if (tries === 1) await other.zincrby("z", 5, "m");
    const res = await r.multi().zadd("z", v * 2, "m").exec();
    if (res !== null) break;
  }
  log("watch tries", tries, await r.zscore("z", "m"));
  for (let i = 0; i < 12; i++) await r.sadd("k:" + String(i).padStart(2, "0"), "x");
  await r.zadd("zz:1", 1, "a");
  log("scanStream match", await scanAll({ match: "k:0*", count: 3 }));
  log("scanStream type", await scanAll({ type: "zset" }));
  log("keys", (await r.keys("k:1*")).sort());
  log("dbsize", await r.dbsize());
  log("rename", await r.rename("k:00", "renamed"), await r.exists("k:00"), await r.smembers("renamed"));
  log("copy", await r.copy("renamed", "copied"), await r.copy("renamed", "copied"), await r.copy("renamed", "copied", "REPLACE"));
  log("zmpop", await r.call("ZMPOP", 2, "nope", "z", "MIN", "COUNT", 5));
  log("bzpopmin timeout", await r.bzpopmin("nope1", "nope2", 0.2));
  setTimeout(() => other.zadd("q", 3, "job"), 500);
  log("bzpopmin no timeout", await r.bzpopmin("q", 0));
  await r.expire("renamed", 1000);
  log("expiretime>0", (await r.call("EXPIRETIME", "renamed")) > 0);
  const big = "x".repeat(2000);
  const wide = "é".repeat(1000); // 2000 bytes of UTF-8
  log("2000-byte members", await r.sadd("big", big, wide), await r.sismember("big", wide),
    await r.zadd("zbig", 1, big, 2, wide), JSON.stringify(await r.zrange("zbig", 0, -1)) === JSON.stringify([big, wide]));
  log("flushdb", await r.flushdb(), await r.dbsize());
  console.log(out.join("\n"));
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    r.disconnect();
    other.disconnect();
  });
