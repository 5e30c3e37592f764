// Runs client_script.json (see its "about") with ioredis or node-redis.
// Arguments: ioredis|node-redis, port, database, 1 to run the
// redimo-server-only steps. Prints name<TAB>reply as JSON, one line a step.
const fs = require("fs");
const path = require("path");
const [lib, port, db, redimoOnly] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5] === "1"];
const script = JSON.parse(fs.readFileSync(path.join(__dirname, "client_script.json"), "utf8"));
// repeat: c*n is c repeated n times.
const expand = (args) => args.map((a) => a.replace(/^(.+)\*(\d+)$/, (_, c, n) => c.repeat(Number(n))));
for (const step of script.steps) {
  if (!step.repeat) continue;
  if (step.do) step.do = expand(step.do);
  if (step.multi) step.multi = step.multi.map(expand);
}
const errText = (e) => "error: " + e.message;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Each client offers: call(args), multi(cmds), pipeline(cmds) (replies
// with errors as values), watchTry(key, member, during) (one try of the
// WATCH loop with the library's own watch and multi), close().
async function ioredisClient() {
  const Redis = require("ioredis");
  const r = new Redis({ port, db, maxRetriesPerRequest: 1 });
  const each = (res) => res.map(([e, v]) => (e ? errText(e) : v));
  return {
    call: (args) => r.call(...args),
    multi: async (cmds) => each(await r.multi(cmds.map((c) => ["call", ...c])).exec()),
    pipeline: async (cmds) => each(await r.pipeline(cmds.map((c) => ["call", ...c])).exec()),
    // One try of the WATCH loop: false when EXEC was aborted.
    watchTry: async (key, member, during) => {
      await r.watch(key);
      const v = Number(await r.zscore(key, member));
      await during();
      return (await r.multi().zadd(key, v * 2, member).exec()) !== null;
    },
    close: () => r.disconnect(),
  };
}

async function nodeRedisClient() {
  const { createClient } = require("redis");
  const r = createClient({ socket: { port }, database: db });
  r.on("error", () => {});
  await r.connect();
  const batch = async (cmds, run) => {
    let m = r.multi();
    for (const c of cmds) m = m.addCommand(c);
    try {
      return await run(m);
    } catch (e) {
      if (!e.replies) throw e;
      return e.replies.map((v) => (v instanceof Error ? errText(v) : v));
    }
  };
  return {
    call: (args) => r.sendCommand(args),
    multi: (cmds) => batch(cmds, (m) => m.exec()),
    pipeline: (cmds) => batch(cmds, (m) => m.execAsPipeline()),
    watchTry: async (key, member, during) => {
      await r.watch(key);
      const v = Number(await r.zScore(key, member));
      await during();
      try {
        await r.multi().zAdd(key, { score: v * 2, value: member }).exec();
        return true;
      } catch (e) {
        if (e.constructor.name === "WatchError") return false;
        throw e;
      }
    },
    close: () => r.destroy(),
  };
}

async function main() {
  const connect = { ioredis: ioredisClient, "node-redis": nodeRedisClient }[lib];
  const [c, other] = [await connect(), await connect()];
  const out = [];
  try {
    for (const step of script.steps) {
      if (step.redimo !== undefined && !redimoOnly) continue;
      let v;
      try {
        if (step.do) v = await c.call(step.do);
        else if (step.multi) v = await c.multi(step.multi);
        else if (step.pipeline) v = await c.pipeline(step.pipeline);
        else if (step.scan) {
          const keys = [];
          let cursor = "0";
          do {
            const args = ["SCAN", cursor, "MATCH", step.scan, "COUNT", "2"];
            if (step.type) args.push("TYPE", step.type);
            const [next, page] = await c.call(args);
            keys.push(...page);
            cursor = String(next);
          } while (cursor !== "0");
          v = [...new Set(keys)].sort();
        } else if (step.watch) {
          let tries = 0;
          for (;;) {
            tries++;
            const first = tries === 1;
            const during = () => (first ? other.call(["ZINCRBY", step.watch, "5", step.member]) : Promise.resolve());
            if (await c.watchTry(step.watch, step.member, during)) break;
          }
          v = [tries, await c.call(["ZSCORE", step.watch, step.member])];
        } else if (step.bzpopmin) {
          const popped = c.call(["BZPOPMIN", step.bzpopmin, "0"]);
          await sleep(300);
          await other.call(step.push);
          v = await popped;
        }
      } catch (e) {
        v = errText(e);
      }
      if (step.sort && Array.isArray(v)) v = [...v].sort();
      out.push(step.name + "\t" + JSON.stringify(v));
    }
  } finally {
    c.close();
    other.close();
  }
  console.log(out.join("\n"));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
