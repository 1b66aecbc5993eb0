// Whether a text tells of trouble: an error, a failure, something slow, missing, wrong or
// unexpected, in English or Chinese. A lesson whose condition is a trouble ("the import fails",
// "连接数打满") is for a task that reports one; a task that asks for something new ("Add a
// pytest test for the invoice total", "给小程序首页加一个轮播图") shares its words but not its
// need. One list reads both sides, so a condition and a task are judged alike.

// Words of trouble, of contrast and of recurrence (a symptom is told as "works here but not
// there", "again", "still"), as word beginnings.
const ENGLISH_SIGNS = new RegExp(
  `\\b(?:${[
    "error",
    "errno",
    "fail",
    "crash",
    "broke",
    "break",
    "bug",
    "wrong",
    "exception",
    "traceback",
    "panic",
    "refus",
    "reject",
    "denied",
    "cannot",
    "can't",
    "can not",
    "couldn't",
    "won't",
    "wouldn't",
    "doesn't",
    "don't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "hasn't",
    "haven't",
    "not\\b",
    "never",
    "no longer",
    "missing",
    "lost\\b",
    "stuck",
    "hang",
    "hung\\b",
    "freez",
    "froze",
    "slow",
    "lag\\b",
    "lags\\b",
    "timeout",
    "timed out",
    "time out",
    "killed",
    "garbl",
    "gibberish",
    "corrupt",
    "warn",
    "invalid",
    "unexpected",
    "undefined",
    "nan\\b",
    "again",
    "still\\b",
    "instead",
    "but\\b",
    "yet\\b",
    "although",
    "though",
    "however",
    "because",
    "why\\b",
    "weird",
    "strange",
    "random",
    "flak",
    "leak",
    "drop",
    "disappear",
    "vanish",
    "empty",
    "blank",
    "duplicat",
    "twice",
    "doubled",
    "mismatch",
    "inconsistent",
    "unable",
    "problem",
    "issue",
    "trouble",
    "dies\\b",
    "died\\b",
    "dead\\b",
    "abort",
    "unavailable",
    "outage",
    "down\\b",
    "only\\b",
    // A program's message relayed, a state gone out of bounds, time taken.
    "says\\b",
    "said\\b",
    "reports an?\\b",
    "complain",
    // The classic system messages: No such file, No space left, No route to host.
    "no such",
    "no space",
    "no route",
    "no more",
    "out of",
    "off by",
    "differ",
    "stops\\b",
    "stopped",
    "already",
    "in use\\b",
    "closed\\b",
    "closes\\b",
    "takes (?:over |more than |about |nearly |ages|forever|too)",
  ].join("|")})`,
  "i",
);

/** Error names and codes as programs print them (TypeError, OOMKilled, EADDRINUSE, ERR_…). */
const ERROR_NAMES = /(?:Error|Exception|Warning|Killed|BackOff)\b|\bE[A-Z]{4,}\b|\bERR_|\b[45][0-9]{2}\b/;

// From strings, which the CLI bundle writes as \u escapes (it must stay ASCII). Single
// characters where the character alone says trouble in nearly every use (不, 没, 崩, 卡, 慢).
const CHINESE_SIGNS = new RegExp(
  [
    "报错 错误 出错 失败 异常 崩 挂 卡 慢 乱码 不 没 无法 拒绝 断开 断了 超时 警告 问题 为什么",
    "怎么回事 总是 老是 又 重复 两遍 丢 空白 却 但 可是 然而 竟然 居然 莫名 奇怪 漏 死锁 冲突",
    "失效 泄漏 被杀 重启 因为 导致 占用 差",
    // The passive 被 tells of something done to the speaker's harm (被占用, 被关闭, 被锁).
    "被",
    // 报 before the message it reports (报 ImportError, 时报 no space left on device).
    "报\\s*[A-Za-z]",
  ]
    .join(" ")
    .split(" ")
    .join("|"),
);

const HAN = /\p{scx=Han}/u;
/** English enough to judge: ASCII, with one of the commonest English words in it. */
const ENGLISH = /^[\t\n\r -~]*$/;
const ENGLISH_WORDS = /\b(?:the|is|are|to|of|and|with|my|our|it|this|when|after|from|for|i)\b/i;

/**
 * Whether `text` tells of trouble; undefined when it is in a language this list does not
 * know (neither Chinese nor plain English), so no decision rests on it.
 */
export function showsTrouble(text: string): boolean | undefined {
  if (ENGLISH_SIGNS.test(text) || ERROR_NAMES.test(text)) return true;
  if (HAN.test(text)) return CHINESE_SIGNS.test(text);
  if (ENGLISH.test(text) && ENGLISH_WORDS.test(text)) return false;
  return undefined;
}

/**
 * Whether a lesson for `condition` belongs to a run of `task`: a lesson about a trouble waits
 * for a task that tells of one. A condition that is no trouble (a convention, "the tests are
 * run with make test"), or a text in a language the signs do not know, keeps every lesson.
 */
export function suitsTask(condition: string, task: string): boolean {
  if (showsTrouble(condition) !== true) return true;
  return showsTrouble(task) !== false;
}
