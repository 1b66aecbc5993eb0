// Does the time `reson serve` takes to refuse a wrong token depend on how much of it is right?
// Wrong tokens of five kinds (nothing right, first half right, all but the last character,
// one character, the token plus one), interleaved with a repeat of the first as the noise floor, over real HTTP on loopback and, closer to
// the comparison itself, through TokenCheck.matches. Medians and ratios to "nothing right".
//   npm run build && node bench/serve-auth-timing.mjs [--requests 3000] [--calls 200000]
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { startHttpServer, TokenCheck } from "../dist/server/index.js";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const requests = arg("--requests", 3000);
const calls = arg("--calls", 200_000);

const token = "Zq3xV9mK2pL7rT4wY8nB1cF6hJ0dS5gA-uE_iO3kM2v"; // 43 chars, like a created one
const flip = (c) => (c === "a" ? "b" : "a");
const kinds = {
  "nothing right": [...token].map(flip).join(""),
  "first half right": token.slice(0, 21) + [...token.slice(21)].map(flip).join(""),
  "all but last right": token.slice(0, -1) + flip(token.at(-1)),
  "one character": "a",
  "token plus one": `${token}x`,
  // The same guess as the first: how far apart two identical kinds land is the noise floor.
  "nothing right (again)": [...token].map(flip).join(""),
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function table(title, unit, samples) {
  const base = median(samples["nothing right"]);
  console.log(`\n${title}`);
  console.log(`| wrong token | median ${unit} | × nothing right |`);
  console.log("| --- | --- | --- |");
  for (const [kind, values] of Object.entries(samples)) {
    const m = median(values);
    console.log(`| ${kind} | ${m.toFixed(3)} | ${(m / base).toFixed(3)} |`);
  }
}

// Through HTTP: one keep-alive connection, kinds in rotation so drift hits them all alike.
const server = await startHttpServer({ token: { value: token, source: "env", created: false }, routes: [] });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const once = (value) =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      `${server.url}/openapi.json`,
      { agent, headers: { authorization: `Bearer ${value}` } },
      (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode !== 401) reject(new Error(`expected 401, got ${res.statusCode}`));
          resolve(performance.now() - started);
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
const http = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let i = 0; i < 200; i++) for (const value of Object.values(kinds)) await once(value); // warm up
for (let i = 0; i < requests; i++) {
  for (const [kind, value] of Object.entries(kinds)) http[kind].push(await once(value));
}
agent.destroy();
await server.close();

// The comparison alone: batches of 1000 calls, kinds in rotation.
const check = new TokenCheck(token);
const micro = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
const batch = 1000;
for (let i = 0; i < calls / batch; i++) {
  for (const [kind, value] of Object.entries(kinds)) {
    const started = process.hrtime.bigint();
    for (let j = 0; j < batch; j++) check.matches(value);
    micro[kind].push(Number(process.hrtime.bigint() - started) / batch);
  }
}

console.log(`node ${process.version}, ${requests} requests and ${calls} calls per kind`);
table("HTTP: request with a wrong token to its 401 (loopback, keep-alive)", "ms", http);
table("TokenCheck.matches (SHA-256 of the guess, timingSafeEqual of digests)", "ns/call", micro);
