# Runs client_script.json (see its "about") with redis-py (Debian's
# python3-redis). Arguments: port, database, 1 to run the
# redimo-server-only steps. Prints name<TAB>reply as JSON, one line a step.
import json, os, re, sys, threading, time
import redis

port, db, redimo_only = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "client_script.json")) as f:
    script = json.load(f)


def expand(args):  # repeat: c*n is c repeated n times
    return [re.sub(r"^(.+)\*(\d+)$", lambda m: m.group(1) * int(m.group(2)), a) for a in args]


for step in script["steps"]:
    if step.get("repeat"):
        if "do" in step:
            step["do"] = expand(step["do"])
        if "multi" in step:
            step["multi"] = [expand(c) for c in step["multi"]]
c = redis.Redis(port=port, db=db, decode_responses=True)
other = redis.Redis(port=port, db=db, decode_responses=True)


def err(e):
    return "error: " + str(e)


def batch(cmds, transaction):
    p = c.pipeline(transaction=transaction)
    for cmd in cmds:
        p.execute_command(*cmd)
    return [err(v) if isinstance(v, Exception) else v for v in p.execute(raise_on_error=False)]


def scan(pattern, typ):
    keys, cursor = set(), 0
    while True:
        args = ["SCAN", cursor, "MATCH", pattern, "COUNT", 2] + (["TYPE", typ] if typ else [])
        cursor, page = c.execute_command(*args)
        keys.update(page)
        if int(cursor) == 0:
            return sorted(keys)


def watch(key, member):
    tries = 0
    with c.pipeline() as p:
        while True:
            tries += 1
            try:
                p.watch(key)
                v = float(p.zscore(key, member))
                if tries == 1:
                    other.zincrby(key, 5, member)
                p.multi()
                p.zadd(key, {member: v * 2})
                p.execute()
                return [tries, c.execute_command("ZSCORE", key, member)]
            except redis.WatchError:
                continue


def bzpopmin(key, push):
    t = threading.Timer(0.3, lambda: other.execute_command(*push))
    t.start()
    try:
        return c.execute_command("BZPOPMIN", key, 0)
    finally:
        t.join()


out = []
for step in script["steps"]:
    if "redimo" in step and not redimo_only:
        continue
    try:
        if "do" in step:
            v = c.execute_command(*step["do"])
        elif "multi" in step:
            v = batch(step["multi"], True)
        elif "pipeline" in step:
            v = batch(step["pipeline"], False)
        elif "scan" in step:
            v = scan(step["scan"], step.get("type"))
        elif "watch" in step:
            v = watch(step["watch"], step["member"])
        elif "bzpopmin" in step:
            v = bzpopmin(step["bzpopmin"], step["push"])
    except redis.RedisError as e:
        v = err(e)
    if step.get("sort") and isinstance(v, (list, set)):
        v = sorted(v)
    out.append(step["name"] + "\t" + json.dumps(v))
print("\n".join(out))
