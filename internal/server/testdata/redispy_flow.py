# The redis-py flows of issue 11 (default pipeline, WATCH retry loop,
# scan_iter with match and _type, keys, dbsize, rename, copy, zmpop,
# bzpopmin with and without a timeout, 2000-byte members, flushdb), run
# by TestRedisPy against redis-server and redimo-server: the outputs must
# be the same. Arguments: port, database (FLUSHDB: a database of its own).
import sys, redis, threading, time
port, db = int(sys.argv[1]), int(sys.argv[2])
r = redis.Redis(port=port, db=db, decode_responses=True)
out = []
def log(*a): out.append(" ".join(repr(x) for x in a))
r.flushdb()
p = r.pipeline()  # transaction=True: MULTI/EXEC
p.sadd("s", "a", "b"); p.zadd("z", {"m": 1, "n": 2}); p.scard("s"); p.zrange("z", 0, -1, withscores=True)
log("pipeline", p.execute())
# WATCH retry loop
other = redis.Redis(port=port, db=db, decode_responses=True)
tries = 0
with r.pipeline() as pw:
    while True:
        tries += 1
        try:
            pw.watch("z")
            v = pw.zscore("z", "m")
            if tries == 1:
                other.zincrby("z", 5, "m")
            pw.multi()
            pw.zadd("z", {"m": v * 2})
            pw.execute()
            break
        except redis.WatchError:
            continue
log("watch tries", tries, r.zscore("z", "m"))
for i in range(12):
    r.sadd("k:%02d" % i, "x")
r.zadd("zz:1", {"a": 1})
log("scan_iter match", sorted(r.scan_iter(match="k:0*", count=3)))
log("scan_iter _type", sorted(r.scan_iter(_type="zset")))
log("keys", sorted(r.keys("k:1*")))
log("dbsize", r.dbsize())
log("rename", r.rename("k:00", "renamed"), r.exists("k:00"), r.smembers("renamed"))
log("copy", r.copy("renamed", "copied"), r.copy("renamed", "copied"), r.copy("renamed", "copied", replace=True))
log("zmpop", r.execute_command("ZMPOP", 2, "nope", "z", "MIN", "COUNT", 5))
log("bzpopmin timeout", r.bzpopmin(["nope1", "nope2"], timeout=0.2))
def later():
    time.sleep(0.5)
    other.zadd("q", {"job": 3})
threading.Thread(target=later).start()
log("bzpopmin no timeout", r.bzpopmin(["q"], timeout=0))
r.expire("renamed", 1000)
log("expiretime>0", r.execute_command("EXPIRETIME", "renamed") > 0)
big = "x" * 2000
wide = "é" * 1000  # 2000 bytes of UTF-8
log("2000-byte members", r.sadd("big", big, wide), r.sismember("big", wide), r.zadd("zbig", {big: 1, wide: 2}),
    r.zrange("zbig", 0, -1) == [big, wide])
log("flushdb", r.flushdb(), r.dbsize())
print("\n".join(out))
