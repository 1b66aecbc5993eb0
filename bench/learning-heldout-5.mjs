// HELD OUT, fifth set (learning.mjs --set heldout5). Written on 2026-12-06 and committed before
// any change to retrieval in that round; measured on main first. Tuning uses
// learning-families.mjs and the first four held-out sets (all looked at by now); this set's
// cases are not looked at before the final run of a build.
//
// Same shape as learning-heldout-4.mjs: each family is a teaching run and the reflection a
// careful model would write from that run alone, following reson's reflection prompt
// (`ADD: WHEN <condition> THEN <rule> KEYS: …`):
//   keys: what the teaching run showed (the error, commands, files, the task's words), in the
//     teaching task's language and in English;
//   otherKeys: what such a model adds when the request lists the project's languages (English
//     and Chinese) rather than the task's own;
//   asks: two rewordings a future task could use that share few words with the run (what the
//     user would see or say, not the fix), as the prompt asks for them among the keys.
// The lessons were written first, the probes after:
//   taught   - the teaching trouble told again, in the teaching language
//   reworded - the same trouble described differently (may share words), one English, one Chinese
//   far      - the same trouble sharing no term with condition, rule, keys and otherKeys, one
//              English, one Chinese (checked with reson's own term cutting, weightedTerms); the
//              asks were not consulted
//   near     - a task sharing words with the lesson that needs no lesson
// 16 families in domains none of sets 1-4 has (10 taught in English, 6 in Chinese);
// HELDOUT5_UNRELATED: 24 tasks needing no lesson, a few of them reporting a trouble of their own
// that no lesson covers, a few sharing an everyday word with a lesson.

export const HELDOUT5_FAMILIES = [
  {
    id: "emfile",
    taughtIn: "en",
    teach:
      "The dev server crashes with Error: EMFILE: too many open files, watch as soon as the project has many files",
    condition:
      "a Node process fails with EMFILE because it opens more files than the per-process limit allows",
    rule: "raise the limit (ulimit -n 65536 in the shell, LimitNOFILE in the systemd unit) and make the watcher ignore node_modules and dist",
    keys: [
      "EMFILE",
      "too many open files",
      "ulimit -n",
      "LimitNOFILE",
      "file watcher crash",
      "dev server crashes on start",
    ],
    otherKeys: ["打开的文件太多", "文件句柄数上限"],
    asks: ["the dev server dies as soon as the repo gets big", "watch mode crashes on the larger checkout"],
    probes: [
      { lang: "en", kind: "taught", task: "npm run dev dies with EMFILE: too many open files, watch" },
      {
        lang: "en",
        kind: "reworded",
        task: "The watcher hits the open files limit and the process crashes",
      },
      { lang: "zh", kind: "reworded", task: "开发服务器一启动就崩，提示打开的文件数超过上限" },
      {
        lang: "en",
        kind: "far",
        task: "Hot reload quits with a descriptor quota message once the monorepo grew",
      },
      { lang: "zh", kind: "far", task: "热重载在代码仓库变大以后直接退出，说描述符配额耗尽" },
      { lang: "en", kind: "near", task: "List the open files of a running process with lsof" },
    ],
  },
  {
    id: "react-key-index",
    taughtIn: "en",
    teach:
      "After deleting a row in the todo list, the text typed in the next row's input shows up in the wrong row; the list uses key={index}",
    condition:
      "React list items keep the wrong state or input text after items are removed or reordered because the key is the array index",
    rule: "use a stable id from the data as the key (key={todo.id}), never the map index, in components/TodoList.tsx",
    keys: [
      "key={index}",
      "React list key",
      "wrong row after delete",
      "input text moves to another row",
      "TodoList.tsx",
      "reorder list state",
    ],
    otherKeys: ["删除一行后输入内容错位", "React 列表 key"],
    asks: [
      "typing in one row then removing another puts my text in the wrong place",
      "checkboxes jump to a different item after sorting",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Deleting a todo makes the typed text appear in the wrong row; we map with key={index}",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "After reordering the React list, each row shows another item's state",
      },
      { lang: "zh", kind: "reworded", task: "React 列表删掉一项后，输入框里的内容跑到了别的行" },
      {
        lang: "en",
        kind: "far",
        task: "Drop a card from the kanban column and the notes being edited land on its neighbour",
      },
      { lang: "zh", kind: "far", task: "看板上拖走一张卡片，正在编辑的备注就跑到旁边那张上了" },
      { lang: "en", kind: "near", task: "Show the customer list as a React table with paging" },
    ],
  },
  {
    id: "month-overflow",
    taughtIn: "en",
    teach:
      "Billing dates jump from Jan 31 to Mar 3 when we add one month with date.setMonth(date.getMonth() + 1)",
    condition: "adding a month to a JavaScript Date on the 29th to 31st rolls over into the month after next",
    rule: "clamp to the last day of the target month (date-fns addMonths does this) in billing/schedule.ts instead of setMonth(+1)",
    keys: [
      "setMonth",
      "addMonths",
      "Jan 31 plus one month",
      "March 3",
      "billing date skips February",
      "billing/schedule.ts",
    ],
    otherKeys: ["加一个月日期跳到三月", "月底日期溢出"],
    asks: [
      "customers who signed up at month end are charged on the wrong day",
      "the renewal date skips February",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Adding one month to Jan 31 with setMonth gives March 3 for our billing dates",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Monthly renewal dates drift past the end of February for accounts created on the 31st",
      },
      { lang: "zh", kind: "reworded", task: "1 月 31 日加一个月变成了 3 月 3 日，账单日期错了" },
      {
        lang: "en",
        kind: "far",
        task: "Members who joined on the thirty-first get their following invoice weeks too late",
      },
      { lang: "zh", kind: "far", task: "三十一号注册的会员，下次扣费总是晚了好几天" },
      { lang: "en", kind: "near", task: "Show the billing date in the user's own locale" },
    ],
  },
  {
    id: "kafka-rebalance",
    taughtIn: "en",
    teach:
      "Kafka consumers keep rejoining the group and messages are processed twice; the log says max.poll.interval.ms was exceeded",
    condition:
      "a Kafka consumer is kicked out of its group and partitions rebalance because processing a batch takes longer than max.poll.interval.ms",
    rule: "lower max.poll.records (e.g. 50) or raise max.poll.interval.ms in consumer/config.py, and commit offsets after each batch",
    keys: [
      "max.poll.interval.ms",
      "max.poll.records",
      "Kafka rebalance",
      "consumer left group",
      "CommitFailedException",
      "messages processed twice",
    ],
    otherKeys: ["Kafka 消费者频繁重平衡", "消息重复消费"],
    asks: [
      "the queue workers keep restarting their assignments",
      "the same event is handled again after a pause",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Kafka consumer leaves the group with max.poll.interval.ms exceeded and messages get processed twice",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Our consumer group rebalances every few minutes and commits fail",
      },
      { lang: "zh", kind: "reworded", task: "Kafka 消费组一直在重平衡，消息被重复消费" },
      {
        lang: "en",
        kind: "far",
        task: "Stream subscribers keep getting reshuffled and some events are handled again",
      },
      { lang: "zh", kind: "far", task: "订阅端隔几分钟就重新分配分区，有些事件被执行了两遍" },
      { lang: "en", kind: "near", task: "Add a new Kafka topic for the audit log" },
    ],
  },
  {
    id: "decimal-comma",
    taughtIn: "en",
    teach:
      "German users entering 3,5 in the price field save 3 instead of 3.5; parseFloat stops at the comma",
    condition: "numbers typed with a decimal comma are cut off because parseFloat or Number expects a dot",
    rule: "parse amounts with the user's locale (Intl.NumberFormat parts, or replace the locale's decimal separator before parsing) in forms/parseAmount.ts, and show an error for input that does not parse",
    keys: [
      "parseFloat comma",
      "decimal comma",
      "3,5 saved as 3",
      "decimal separator",
      "German locale price input",
      "forms/parseAmount.ts",
    ],
    otherKeys: ["小数逗号", "输入的价格小数被截掉"],
    asks: [
      "European customers lose the cents when they type a price",
      "amounts typed in France come out rounded down",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Typing 3,5 in the price field saves 3 because parseFloat stops at the comma",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Users in Germany enter prices with a comma and the decimals are dropped",
      },
      { lang: "zh", kind: "reworded", task: "德国用户输入 3,5 保存成了 3，小数部分丢了" },
      { lang: "en", kind: "far", task: "Shoppers from Italy enter 12,99 and checkout bills them 12" },
      { lang: "zh", kind: "far", task: "意大利的顾客填 12,99，结账时只收了 12" },
      { lang: "en", kind: "near", task: "Format prices with a thousands separator on the invoice" },
    ],
  },
  {
    id: "shallow-describe",
    taughtIn: "en",
    teach:
      "The CI release job fails with fatal: No names found, cannot describe anything; the version script runs git describe --tags",
    condition:
      "git describe or tag-based versioning fails in CI because the checkout is shallow and has no tags",
    rule: "set fetch-depth: 0 on actions/checkout in .github/workflows/release.yml (or run git fetch --tags --unshallow) before computing the version",
    keys: [
      "No names found, cannot describe anything",
      "git describe --tags",
      "fetch-depth: 0",
      "shallow clone",
      "actions/checkout",
      "version 0.0.0 in CI",
    ],
    otherKeys: ["CI 里拿不到 git 标签", "浅克隆"],
    asks: [
      "the build number is wrong only on the build server",
      "the release is stamped 0.0.0 after the pipeline runs",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "git describe --tags fails in CI with No names found, cannot describe anything",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Our version script works locally but CI sees no tags in the checkout",
      },
      { lang: "zh", kind: "reworded", task: "CI 里执行 git describe 报错，找不到任何标签" },
      {
        lang: "en",
        kind: "far",
        task: "Pipeline artifacts carry an unknown build label, yet on laptops the label is right",
      },
      { lang: "zh", kind: "far", task: "流水线产出的包标号不对，本地打出来却正常" },
      { lang: "en", kind: "near", task: "Create a git tag for the 2.1 release" },
    ],
  },
  {
    id: "sort-numbers",
    taughtIn: "en",
    teach: "The leaderboard shows 100 before 25 and 9; scores.sort() is called with no compare function",
    condition:
      "JavaScript's array sort orders numbers as strings when it is called without a compare function",
    rule: "pass a comparator: scores.sort((a, b) => a - b), or b - a for descending, in ui/leaderboard.js",
    keys: [
      "sort() without compare function",
      "100 before 25",
      "numbers sorted as strings",
      "array sort numeric",
      "ui/leaderboard.js",
      "comparator",
    ],
    otherKeys: ["数字排序不对", "sort 按字符串排序"],
    asks: ["the high score table is in a weird order", "ten comes before two in the list"],
    probes: [
      { lang: "en", kind: "taught", task: "scores.sort() puts 100 before 25 on the leaderboard" },
      {
        lang: "en",
        kind: "reworded",
        task: "Sorting an array of numbers in JavaScript gives 10, 2, 33 instead of numeric order",
      },
      { lang: "zh", kind: "reworded", task: "JS 数组排序后 100 排在 25 前面，数字顺序乱了" },
      { lang: "en", kind: "far", task: "On the rankings page eleven appears above three" },
      { lang: "zh", kind: "far", task: "排行榜上十一分排在三分上面" },
      { lang: "en", kind: "near", task: "Sort the product list by name" },
    ],
  },
  {
    id: "event-loop-block",
    taughtIn: "en",
    teach:
      "Health checks time out whenever someone logs in; login hashes the password with crypto.pbkdf2Sync on the request path",
    condition:
      "a Node server stops answering all requests while one request runs synchronous CPU-heavy work such as pbkdf2Sync or bcrypt.hashSync",
    rule: "use the async versions (crypto.pbkdf2 with a callback, bcrypt.hash) in auth/login.js, or move the work to a worker thread",
    keys: [
      "pbkdf2Sync",
      "hashSync",
      "event loop blocked",
      "health check timeout during login",
      "auth/login.js",
      "synchronous hashing",
    ],
    otherKeys: ["事件循环被阻塞", "登录时服务卡住"],
    asks: [
      "the whole site freezes for a second when someone signs in",
      "other users wait while one person logs in",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Health checks fail during logins because pbkdf2Sync blocks the server",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The Node event loop is blocked by password hashing and every other request stalls",
      },
      { lang: "zh", kind: "reworded", task: "有人登录时 Node 服务的所有请求都卡住，健康检查超时" },
      {
        lang: "en",
        kind: "far",
        task: "Whenever a customer signs in, every other visitor's page spins for a moment",
      },
      { lang: "zh", kind: "far", task: "只要有顾客登进来，别的访客页面就转圈好一会" },
      { lang: "en", kind: "near", task: "Add rate limiting to the login endpoint" },
    ],
  },
  {
    id: "samesite-cookie",
    taughtIn: "en",
    teach:
      "Our app embedded in the partner's iframe loses the session: the session cookie is not sent on cross-site requests since Chrome 80",
    condition:
      "a session cookie is not sent in a cross-site iframe or POST because browsers default it to SameSite=Lax",
    rule: "set the cookie with SameSite=None; Secure (SESSION_COOKIE_SAMESITE = 'None' and SESSION_COOKIE_SECURE = True in settings.py) and serve the app over https",
    keys: [
      "SameSite=None; Secure",
      "SameSite=Lax",
      "cookie not sent in iframe",
      "cross-site session lost",
      "SESSION_COOKIE_SAMESITE",
      "settings.py",
    ],
    otherKeys: ["iframe 里 cookie 丢失", "跨站请求不带 cookie"],
    asks: [
      "users embedded on the partner site get logged out on every click",
      "the embedded login keeps asking to sign in again",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The session cookie is not sent inside the partner's iframe; Chrome applies SameSite=Lax",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Our login stops working when the app is embedded in another site's iframe",
      },
      { lang: "zh", kind: "reworded", task: "页面嵌在合作方的 iframe 里，cookie 没带上，一直是未登录" },
      {
        lang: "en",
        kind: "far",
        task: "When shown inside the reseller's portal our dashboard keeps forgetting who is signed in",
      },
      { lang: "zh", kind: "far", task: "放进合作伙伴网站的框架里以后，我们的后台老是忘了谁在线" },
      { lang: "en", kind: "near", task: "Add a cookie consent banner to the site" },
    ],
  },
  {
    id: "sourcemaps",
    taughtIn: "en",
    teach:
      "Sentry shows stack traces like t.a is not a function at main.8f3c.js:1:20345; the production build's source maps are not uploaded",
    condition:
      "errors from production show minified names and line 1 positions because the source maps were not uploaded with the release",
    rule: "build with sourcemap: 'hidden' in vite.config.ts and upload dist/assets/*.map with sentry-cli sourcemaps upload in the deploy job, then delete the .map files from the server",
    keys: [
      "source maps",
      "minified stack trace",
      "sentry-cli sourcemaps upload",
      "main.js:1:20345",
      "vite.config.ts",
      "t.a is not a function",
    ],
    otherKeys: ["线上报错堆栈看不懂", "sourcemap 没上传"],
    asks: ["crash reports point at line 1 of a huge file", "error reports are unreadable gibberish"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Sentry stack traces are minified (t.a is not a function in main.js line 1); source maps missing",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Production errors in Sentry show unreadable minified names instead of our code",
      },
      { lang: "zh", kind: "reworded", task: "Sentry 上的线上报错全是压缩后的变量名，看不出是哪行代码" },
      {
        lang: "en",
        kind: "far",
        task: "Crash reports from live users contain gibberish symbols nobody can follow",
      },
      { lang: "zh", kind: "far", task: "用户那边的崩溃记录全是乱七八糟的符号，定位不到源头" },
      { lang: "en", kind: "near", task: "Add Sentry to the mobile app" },
    ],
  },
  {
    id: "cache-stampede",
    taughtIn: "zh",
    teach: "每天零点大量缓存同时过期，请求全部打到 MySQL，数据库 CPU 飙到 100%",
    condition: "大量缓存设置了相同的过期时间，同时失效后请求全部落到数据库（缓存雪崩）",
    rule: "在 cache/keys.py 里给过期时间加随机偏移（ttl + random(0, 300)），热点数据用互斥锁重建缓存",
    keys: [
      "缓存雪崩",
      "缓存同时过期",
      "数据库 CPU 飙升",
      "过期时间加随机值",
      "cache/keys.py",
      "cache stampede",
    ],
    otherKeys: ["cache keys expire at the same time", "database overloaded at midnight"],
    asks: ["每天半夜网站卡一阵", "整点时数据库被打满"],
    probes: [
      { lang: "zh", kind: "taught", task: "零点缓存集中过期，请求全打到数据库，CPU 飙到 100%" },
      {
        lang: "en",
        kind: "reworded",
        task: "All our cache entries expire at once and the database gets hammered",
      },
      { lang: "zh", kind: "reworded", task: "缓存一起失效以后 MySQL 瞬间被压垮" },
      {
        lang: "en",
        kind: "far",
        task: "Every night right after twelve the site crawls for a few minutes",
      },
      { lang: "zh", kind: "far", task: "每晚十二点一过，网站就慢上好几分钟" },
      { lang: "zh", kind: "near", task: "把缓存的过期时间改成一小时" },
    ],
  },
  {
    id: "deep-pagination",
    taughtIn: "zh",
    teach: "订单列表翻到后面几千页特别慢，SQL 是 LIMIT 100000, 20",
    condition: "大偏移量的 LIMIT offset 分页越往后越慢，因为数据库要先扫过前面所有行",
    rule: "在 orders/list.py 里改成游标分页：记住上一页最后一条的 id，用 WHERE id < last_id ORDER BY id DESC LIMIT 20",
    keys: ["深分页", "LIMIT offset 慢", "翻页越往后越慢", "游标分页", "orders/list.py", "deep pagination"],
    otherKeys: ["large OFFSET is slow", "keyset pagination"],
    asks: ["翻到最后几页要等很久", "后台列表越翻越卡"],
    probes: [
      { lang: "zh", kind: "taught", task: "订单列表翻到几千页以后很慢，用的是 LIMIT 100000, 20" },
      {
        lang: "en",
        kind: "reworded",
        task: "Pages deep into the order list load slowly because of a big OFFSET",
      },
      { lang: "zh", kind: "reworded", task: "分页查询越往后翻越慢，offset 太大了" },
      { lang: "en", kind: "far", task: "Jumping to the final screens of the admin table takes ages" },
      { lang: "zh", kind: "far", task: "后台表格点到末尾那几屏要等很久" },
      { lang: "zh", kind: "near", task: "给订单列表加一个按日期筛选" },
    ],
  },
  {
    id: "ios-input-zoom",
    taughtIn: "zh",
    teach: "iPhone 上点输入框，整个页面自动放大，输完也缩不回去",
    condition: "iOS Safari 在字号小于 16px 的输入框获得焦点时自动放大页面",
    rule: "把 input、select、textarea 的 font-size 设为 16px（styles/form.css），不要用 maximum-scale=1 禁止缩放",
    keys: [
      "输入框聚焦页面放大",
      "iOS Safari 自动缩放",
      "font-size 16px",
      "styles/form.css",
      "input zoom on iPhone",
      "页面缩不回去",
    ],
    otherKeys: ["iOS zooms in when tapping an input", "page zoom on focus"],
    asks: ["手机上一点填写框画面就变大", "在苹果手机上填表单时页面突然拉近"],
    probes: [
      { lang: "zh", kind: "taught", task: "iPhone 上一点输入框页面就自动放大" },
      {
        lang: "en",
        kind: "reworded",
        task: "On iOS Safari the page zooms in whenever a form field gets focus",
      },
      { lang: "zh", kind: "reworded", task: "苹果手机 Safari 点表单输入框时页面会缩放" },
      {
        lang: "en",
        kind: "far",
        task: "Touching the email box on an iPad enlarges everything and people have to pinch back",
      },
      { lang: "zh", kind: "far", task: "在平板上点邮箱那一栏，画面整个变大，还得手动捏回来" },
      { lang: "zh", kind: "near", task: "把输入框的边框改成圆角" },
    ],
  },
  {
    id: "sms-abuse",
    taughtIn: "zh",
    teach: "短信验证码接口被人用脚本刷，一晚上发了几万条，短信费暴涨",
    condition: "发送短信验证码的接口没有限频，被脚本批量调用",
    rule: "在 api/sms.py 里先校验图形验证码，再按手机号（60 秒一次、每天 10 次）和 IP 限频，超出直接拒绝",
    keys: ["短信验证码被刷", "短信费暴涨", "限频", "图形验证码", "api/sms.py", "SMS verification abuse"],
    otherKeys: ["SMS code endpoint abused by bots", "rate limit verification codes"],
    asks: ["短信账单突然多了好几倍", "有人收到一堆不是自己请求的验证码"],
    probes: [
      { lang: "zh", kind: "taught", task: "发短信验证码的接口被脚本刷了，短信费一晚上暴涨" },
      {
        lang: "en",
        kind: "reworded",
        task: "Bots keep hitting our SMS verification endpoint and the texting bill exploded",
      },
      { lang: "zh", kind: "reworded", task: "验证码短信被恶意刷量，一天发出去几万条" },
      {
        lang: "en",
        kind: "far",
        task: "Our messaging invoice tripled overnight and strangers complain about unrequested login pins",
      },
      { lang: "zh", kind: "far", task: "通讯服务商的账单一夜翻了三倍，陌生人抱怨总收到没申请过的登录口令" },
      { lang: "zh", kind: "near", task: "把短信模板里的公司名改一下" },
    ],
  },
  {
    id: "python-gil",
    taughtIn: "zh",
    teach: "用 threading 开 8 个线程算报表，CPU 只用到一个核，一点没变快",
    condition: "Python 多线程跑 CPU 密集的计算没有变快，因为 GIL 同一时间只让一个线程执行字节码",
    rule: "在 reports/build.py 里把 ThreadPoolExecutor 换成 ProcessPoolExecutor（或 multiprocessing.Pool），线程只留给等 IO 的任务",
    keys: [
      "GIL",
      "多线程不加速",
      "只用到一个核",
      "ThreadPoolExecutor",
      "ProcessPoolExecutor",
      "Python threads CPU bound",
    ],
    otherKeys: ["threads do not speed up CPU work", "only one core busy"],
    asks: ["机器八个核，报表照样跑半天", "加了并发反而没快"],
    probes: [
      { lang: "zh", kind: "taught", task: "Python 开了多个线程算报表，CPU 只跑满一个核" },
      {
        lang: "en",
        kind: "reworded",
        task: "Using threads in Python for heavy number crunching gives no speedup because of the GIL",
      },
      { lang: "zh", kind: "reworded", task: "Python 多线程计算一点都没提速" },
      {
        lang: "en",
        kind: "far",
        task: "Our sixteen-way machine still needs an hour to produce the monthly summary although we parallelised it",
      },
      { lang: "zh", kind: "far", task: "服务器十六颗核心，月度汇总还是要耗一个钟头，并行化了也没用" },
      { lang: "zh", kind: "near", task: "把报表导出成 Excel" },
    ],
  },
  {
    id: "download-filename",
    taughtIn: "zh",
    teach: "下载的文件名是中文时，浏览器里显示成一串乱码或者变成 download",
    condition: "下载接口的 Content-Disposition 里直接写了中文文件名，浏览器解析成乱码",
    rule: "在 views/export.py 里按 RFC 5987 写 filename*=UTF-8''<URL 编码后的文件名>，同时给一个 ASCII 的 filename 作后备",
    keys: [
      "Content-Disposition",
      "中文文件名乱码",
      "filename*=UTF-8''",
      "下载文件名变成 download",
      "views/export.py",
      "non-ASCII download filename",
    ],
    otherKeys: ["Chinese file name garbled on download", "RFC 5987"],
    asks: ["用户下载到的文件名全是问号", "导出的报表名字显示不正常"],
    probes: [
      { lang: "zh", kind: "taught", task: "下载中文名的文件，浏览器里文件名变成乱码" },
      { lang: "en", kind: "reworded", task: "Files with Chinese names download with a garbled filename" },
      { lang: "zh", kind: "reworded", task: "导出接口返回的中文文件名在浏览器里是乱码" },
      {
        lang: "en",
        kind: "far",
        task: "Saved attachments arrive titled with question marks instead of the accented heading",
      },
      { lang: "zh", kind: "far", task: "保存下来的附件标题全是问号，原本的汉字标题不见了" },
      { lang: "zh", kind: "near", task: "给下载按钮加一个进度条" },
    ],
  },
];

export const HELDOUT5_UNRELATED = [
  { lang: "en", task: "Write a haiku about autumn leaves" },
  { lang: "en", task: "Add a dark mode toggle to the settings page" },
  { lang: "en", task: "Rename the getUserData function to fetchProfile everywhere" },
  { lang: "en", task: "Explain the difference between TCP and UDP" },
  { lang: "en", task: "The logo looks blurry on retina screens" },
  { lang: "en", task: "Translate the onboarding emails into Spanish" },
  { lang: "en", task: "Write a unit test for the slugify helper" },
  { lang: "en", task: "Draw an ASCII diagram of the request flow" },
  { lang: "en", task: "Add previous and next links at the bottom of each blog post" },
  { lang: "en", task: "Summarise this week's changelog for the newsletter" },
  { lang: "en", task: "The close icon of the modal is misaligned in Firefox" },
  { lang: "en", task: "Export a list of every user who signed up in November" },
  { lang: "zh", task: "写一首关于春天的小诗" },
  { lang: "zh", task: "给设置页加一个深色模式开关" },
  { lang: "zh", task: "把 getUserData 函数统一改名为 fetchProfile" },
  { lang: "zh", task: "解释一下 TCP 和 UDP 的区别" },
  { lang: "zh", task: "网站的 logo 在高清屏上看起来很模糊" },
  { lang: "zh", task: "把新用户欢迎邮件翻译成英文" },
  { lang: "zh", task: "给 slugify 函数写单元测试" },
  { lang: "zh", task: "画一张请求流程的示意图" },
  { lang: "zh", task: "首页轮播图切换太快了，调慢一点" },
  { lang: "zh", task: "总结一下本周的更新日志发到群里" },
  { lang: "zh", task: "弹窗的关闭图标在火狐上没对齐" },
  { lang: "zh", task: "导出十一月注册的所有用户名单" },
];
