// Synthetic rules for the latency part of the learning benchmark: 5,000 active rules of one
// project, built from software vocabulary (a tenth in Chinese) so the text index holds many
// distinct terms and common words, as a long-lived project's would.
const SUBJECTS = [
  "the payment service",
  "the billing worker",
  "the search index",
  "the mobile app",
  "the admin panel",
  "the CSV export",
  "the auth middleware",
  "the cache layer",
  "the GraphQL gateway",
  "the cron scheduler",
  "the image resizer",
  "the email sender",
  "the feature flags",
  "the audit log",
  "the report builder",
  "the websocket hub",
  "the rate limiter",
  "the upload handler",
  "the invoice PDF",
  "the tenant router",
];
const SYMPTOMS = [
  "times out under load",
  "returns stale data",
  "leaks memory",
  "fails its health check",
  "drops messages",
  "logs duplicate events",
  "rejects valid tokens",
  "double charges",
  "deadlocks on startup",
  "corrupts unicode",
  "loses the session",
  "sends two emails",
  "skips the last page",
  "ignores the locale",
  "panics on empty input",
];
const ACTIONS = [
  "restart it with the warm-up flag",
  "bump the pool size in config/pool.yml",
  "clear the redis namespace first",
  "pin the client library to the previous minor",
  "run the backfill script with --dry-run first",
  "regenerate the fixtures with make fixtures",
  "rotate the signing key in the vault",
  "raise the queue visibility timeout",
  "add the tenant id to the cache key",
  "wrap the call in a transaction",
  "set the batch size to 100",
  "disable the HTTP keep-alive for that host",
  "read the file as UTF-8 with BOM stripped",
];
const ZH = [
  ["支付服务在高峰期超时", "把连接池调大到 50"],
  ["搜索索引返回旧数据", "先清空缓存再重建索引"],
  ["导出报表时内存暴涨", "改成分批导出，每批一千行"],
  ["定时任务重复执行", "给任务加分布式锁"],
  ["上传图片后缩略图丢失", "检查队列里的缩放任务是否失败"],
];

export function synthesiseRules(count, projectKey) {
  const now = Date.now();
  const rules = [];
  for (let i = 0; i < count; i++) {
    const id = `01KBENCH${String(i).padStart(18, "0")}`;
    const zh = i % 10 === 9 ? ZH[i % ZH.length] : undefined;
    const subject = SUBJECTS[i % SUBJECTS.length];
    const symptom = SYMPTOMS[(i * 7) % SYMPTOMS.length];
    const action = ACTIONS[(i * 11) % ACTIONS.length];
    rules.push({
      id,
      projectKey,
      scope: `project:${projectKey.slice(0, 12)}`,
      condition: zh ? `${zh[0]}（第 ${i} 号）` : `${subject} ${symptom} in module m${i}`,
      rule: zh ? zh[1] : `${action}; see ticket OPS-${i}`,
      keys: zh ? [zh[0], `OPS-${i}`] : [`${symptom}`, `m${i}`, `OPS-${i}`],
      conditionFilter: null,
      evidence: [{ traceId: id, outcome: "success", note: "synthetic", at: now }],
      confidence: 0.5,
      usageCount: 0,
      successCount: 0,
      failureCount: 0,
      holdoutSuccessCount: 0,
      holdoutFailureCount: 0,
      votes: 2,
      provenance: "agent",
      status: "active",
      createdAt: now - i,
      updatedAt: now - i,
      lastUsedAt: null,
    });
  }
  return rules;
}
