// HELD OUT, second set (learning.mjs --set heldout2). Written on 2026-12-05 and committed before
// any change to retrieval that day; not looked at case by case while tuning (tuning uses
// learning-families.mjs and the first held-out set, learning-heldout.mjs, which has been looked
// at and so no longer counts as held out). Its figures are the headline of that day's report.
//
// Same shape as learning-heldout.mjs: each family is a teaching run and the reflection a
// careful model would write from that run alone, following reson's reflection prompt
// (`ADD: WHEN <condition> THEN <rule> KEYS: …`):
//   keys: what the teaching run showed (the error, commands, files, the task's words), in the
//     teaching task's language and in English;
//   otherKeys: what such a model adds when the request lists the project's languages (English
//     and Chinese) rather than the task's own;
//   asks: two or three rewordings a future task could use (symptoms, the user's words), for a
//     prompt that asks for them.
// The lessons were written first, the probes after:
//   taught   - the teaching trouble told again, in the teaching language
//   reworded - the same trouble described differently (may share words), one English, one Chinese
//   far      - the same trouble sharing no content word with condition, rule, keys and
//              otherKeys, one English, one Chinese (what a user would say who never saw the
//              lesson); the asks were not consulted when writing them
//   near     - a task sharing words with the lesson that needs no lesson
// 16 families, 6 of them taught in Chinese; HELDOUT2_UNRELATED: 24 tasks needing no lesson.

export const HELDOUT2_FAMILIES = [
  {
    id: "circular-import",
    taughtIn: "en",
    teach:
      "python manage.py runserver fails: ImportError: cannot import name 'Customer' from partially initialized module 'billing.models'",
    condition: "a Python module fails to import because two modules import each other at load time",
    rule: "move the shared import inside the function that needs it, or put the shared types in billing/types.py that both import",
    keys: [
      "ImportError: cannot import name",
      "partially initialized module",
      "circular import",
      "billing.models",
      "manage.py runserver",
    ],
    otherKeys: ["循环导入", "无法导入名称"],
    asks: [
      "two files depend on each other and Python refuses to load",
      "import works in the shell but not on startup",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "runserver crashes again with cannot import name from partially initialized module",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "After I added an import of the invoice model in orders.py, Python reports a circular import",
      },
      { lang: "zh", kind: "reworded", task: "Python 启动时报 ImportError，两个模块互相 import 了" },
      {
        lang: "en",
        kind: "far",
        task: "Since the payments package references the accounts package and vice versa, Django won't boot",
      },
      { lang: "zh", kind: "far", task: "两个文件相互引用，Django 服务起不来了" },
      { lang: "en", kind: "near", task: "Sort the imports in billing/models.py alphabetically" },
    ],
  },
  {
    id: "test-isolation",
    taughtIn: "en",
    teach:
      "pytest: test_invoices.py passes alone but fails in the full suite because rows left by test_orders.py are still in the test database",
    condition:
      "tests pass one at a time but fail when the whole suite runs, from data earlier tests left behind",
    rule: "give each test a transaction that the db fixture in conftest.py rolls back, instead of committing in tests",
    keys: [
      "passes alone but fails in the full suite",
      "leftover rows",
      "test database",
      "conftest.py",
      "db fixture",
      "pytest",
    ],
    otherKeys: ["单独运行通过", "一起跑就失败", "测试数据残留"],
    asks: ["tests depend on the order they run in", "flaky tests that only break in CI"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "test_invoices passes on its own but fails when pytest runs the whole suite",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Records created by one test are still in the database when the next test starts",
      },
      { lang: "zh", kind: "reworded", task: "pytest 单独跑某个测试能过，全部一起跑就失败" },
      {
        lang: "en",
        kind: "far",
        task: "A spec goes green by itself yet red once the others execute before it",
      },
      { lang: "zh", kind: "far", task: "用例单个执行没事，批量执行的时候总有几个挂掉" },
      { lang: "en", kind: "near", task: "Add a pytest test for the invoice total calculation" },
    ],
  },
  {
    id: "docker-layer-cache",
    taughtIn: "en",
    teach: "docker build runs npm ci again on every source change and takes 6 minutes each time",
    condition: "a Docker image reinstalls all dependencies whenever any source file changes",
    rule: "COPY package.json and package-lock.json and run npm ci before COPY of the rest of the source in the Dockerfile",
    keys: ["docker build", "npm ci on every change", "Dockerfile", "layer cache", "COPY package.json"],
    otherKeys: ["镜像构建很慢", "每次都重新安装依赖"],
    asks: [
      "image build is slow after a one-line change",
      "the cache is never used when building the container",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "docker build reruns npm ci every time I change a source file" },
      {
        lang: "en",
        kind: "reworded",
        task: "Our Dockerfile reinstalls every dependency on each build, the layer cache never hits",
      },
      { lang: "zh", kind: "reworded", task: "docker build 每次改一行代码都要重新装依赖，太慢了" },
      {
        lang: "en",
        kind: "far",
        task: "Rebuilding the container after editing one line takes ages because node modules download again",
      },
      { lang: "zh", kind: "far", task: "容器每次打包都把 node_modules 从头下载一遍，要等好几分钟" },
      { lang: "en", kind: "near", task: "Write a Dockerfile for a small Python Flask service" },
    ],
  },
  {
    id: "ssh-host-key",
    taughtIn: "en",
    teach:
      "git pull from the deploy server fails: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! Host key verification failed.",
    condition: "ssh or git refuses to connect because a rebuilt server presents a new host key",
    rule: "check the new fingerprint with the server's owner, then run ssh-keygen -R <host> and connect again; never disable StrictHostKeyChecking",
    keys: [
      "REMOTE HOST IDENTIFICATION HAS CHANGED",
      "Host key verification failed",
      "ssh-keygen -R",
      "known_hosts",
      "git pull",
      "deploy server",
    ],
    otherKeys: ["主机密钥验证失败", "主机指纹变了"],
    asks: [
      "ssh warns about a man-in-the-middle attack after the server was reinstalled",
      "can't connect to the box after it was rebuilt",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "git pull says REMOTE HOST IDENTIFICATION HAS CHANGED and Host key verification failed",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The build server was reinstalled and now ssh refuses with a changed host key warning",
      },
      { lang: "zh", kind: "reworded", task: "服务器重装后 ssh 连接报 Host key verification failed" },
      {
        lang: "en",
        kind: "far",
        task: "Since the machine was reimaged, reaching it prints a scary man-in-the-middle notice and aborts",
      },
      { lang: "zh", kind: "far", task: "机器重做系统以后，远程登录提示可能有中间人攻击，直接断开" },
      { lang: "en", kind: "near", task: "Generate a new ssh key pair for the deploy user" },
    ],
  },
  {
    id: "cron-path",
    taughtIn: "en",
    teach:
      "scripts/backup.sh works when I run it by hand but the cron job writes 'pg_dump: command not found' to the log",
    condition:
      "a script that works in an interactive shell fails under cron because the command is not found",
    rule: "set PATH=/usr/local/bin:/usr/bin:/bin at the top of the crontab, or call /usr/bin/pg_dump by its full path",
    keys: ["command not found", "cron job", "crontab", "pg_dump", "works by hand", "scripts/backup.sh"],
    otherKeys: ["定时任务", "命令找不到"],
    asks: [
      "scheduled job does nothing at night though the script is fine",
      "environment variables missing when run from a schedule",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The backup cron job logs pg_dump: command not found, but the script works by hand",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "My crontab entry runs the script but every command inside it is not found",
      },
      { lang: "zh", kind: "reworded", task: "脚本手动执行没问题，放进 crontab 就报 command not found" },
      {
        lang: "en",
        kind: "far",
        task: "The nightly database export never happens, although launching it myself from the terminal is fine",
      },
      { lang: "zh", kind: "far", task: "每天凌晨自动跑的备份根本没生成，自己在终端里敲就正常" },
      { lang: "en", kind: "near", task: "Add a cron job that cleans the tmp folder every Sunday" },
    ],
  },
  {
    id: "float-money",
    taughtIn: "en",
    teach: "Invoice totals are off by one cent: summing 0.1 + 0.2 in the cart gives 0.30000000000000004",
    condition:
      "money amounts come out a cent off because they are stored or summed as floating point numbers",
    rule: "keep amounts as integer cents (or Decimal) in the cart and the invoice code and format only when displaying",
    keys: ["off by one cent", "0.30000000000000004", "floating point", "invoice totals", "integer cents"],
    otherKeys: ["金额差一分钱", "浮点数精度"],
    asks: ["prices add up to a strange long decimal", "rounding errors in the order sum"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The cart total is a cent off again, 0.1 + 0.2 is 0.30000000000000004",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Floating point rounding makes the invoice sum differ from the line items",
      },
      { lang: "zh", kind: "reworded", task: "订单金额合计总是差一分钱，是不是浮点数的问题" },
      {
        lang: "en",
        kind: "far",
        task: "Customers see 19.999999 dollars at checkout instead of 20",
      },
      { lang: "zh", kind: "far", task: "结算页面价格显示成 19.999999 元，对账也对不上" },
      { lang: "en", kind: "near", task: "Add a discount code field to the cart page" },
    ],
  },
  {
    id: "oom-killed",
    taughtIn: "en",
    teach:
      "The worker pod keeps restarting in CrashLoopBackOff; kubectl describe pod shows Last State: OOMKilled",
    condition: "a Kubernetes pod restarts over and over because it exceeds its memory limit",
    rule: "raise resources.limits.memory for the worker in deploy/values.yaml to 1Gi and lower WORKER_CONCURRENCY to 2",
    keys: [
      "CrashLoopBackOff",
      "OOMKilled",
      "kubectl describe pod",
      "memory limit",
      "worker pod",
      "deploy/values.yaml",
    ],
    otherKeys: ["内存超限被杀", "容器反复重启"],
    asks: ["the service keeps getting killed and coming back", "exit code 137 in the cluster"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The worker pod is in CrashLoopBackOff again and describe says OOMKilled",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "kubectl shows the worker restarting every few minutes, killed for using too much memory",
      },
      { lang: "zh", kind: "reworded", task: "k8s 里的 worker 一直重启，describe 看到 OOMKilled" },
      {
        lang: "en",
        kind: "far",
        task: "Our queue consumer in the cluster dies with exit status 137 and comes back endlessly",
      },
      { lang: "zh", kind: "far", task: "集群里消费队列的服务隔几分钟就挂掉又拉起来，退出码 137" },
      { lang: "en", kind: "near", task: "Scale the worker deployment to five replicas" },
    ],
  },
  {
    id: "eslint-ts",
    taughtIn: "en",
    teach: "npm run lint fails on every .ts file with 'Parsing error: Unexpected token :' from ESLint",
    condition: "ESLint cannot parse TypeScript files",
    rule: "set the parser to @typescript-eslint/parser in eslint.config.js and add the .ts files to its files pattern",
    keys: [
      "Parsing error: Unexpected token",
      "ESLint",
      "@typescript-eslint/parser",
      "eslint.config.js",
      "npm run lint",
    ],
    otherKeys: ["解析错误", "代码检查失败"],
    asks: ["the linter chokes on type annotations", "lint breaks after converting files to TypeScript"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "ESLint reports Parsing error: Unexpected token on all the .ts files",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "After renaming the sources to TypeScript, npm run lint fails with parsing errors",
      },
      { lang: "zh", kind: "reworded", task: "ESLint 检查 TypeScript 文件时报 Parsing error" },
      {
        lang: "en",
        kind: "far",
        task: "The style checker stops at the first type annotation it meets",
      },
      { lang: "zh", kind: "far", task: "风格工具一碰到类型注解就说语法不对" },
      { lang: "en", kind: "near", task: "Add an ESLint rule that forbids console.log" },
    ],
  },
  {
    id: "nginx-upload",
    taughtIn: "en",
    teach: "Uploading a 20 MB video returns 413 Request Entity Too Large from nginx",
    condition: "nginx rejects large uploads before they reach the application",
    rule: "set client_max_body_size 100m in the server block of nginx/site.conf and reload nginx",
    keys: ["413 Request Entity Too Large", "client_max_body_size", "nginx", "upload", "nginx/site.conf"],
    otherKeys: ["上传大文件失败", "请求实体过大"],
    asks: ["big files fail to upload but small ones work", "the proxy refuses large request bodies"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "nginx answers 413 Request Entity Too Large when I upload a big video",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Uploads over a few megabytes fail with HTTP 413 behind our proxy",
      },
      { lang: "zh", kind: "reworded", task: "上传 20MB 的文件时 nginx 返回 413" },
      {
        lang: "en",
        kind: "far",
        task: "Small photos attach fine but any larger video gets refused by the website",
      },
      { lang: "zh", kind: "far", task: "小图片能传上去，稍微长一点的视频就传不上去" },
      { lang: "en", kind: "near", task: "Add gzip compression to the nginx config" },
    ],
  },
  {
    id: "path-alias",
    taughtIn: "en",
    teach: "tsc compiles fine but node dist/server.js crashes with Error: Cannot find module '@/utils/date'",
    condition: "TypeScript path aliases work at compile time but the compiled JavaScript cannot resolve them",
    rule: "run tsc-alias after tsc in the build script (or use relative imports); tsc does not rewrite paths from tsconfig.json",
    keys: ["Cannot find module '@/", "path alias", "tsconfig.json paths", "tsc-alias", "dist/server.js"],
    otherKeys: ["路径别名", "找不到模块"],
    asks: [
      "the build succeeds but the app fails to start on imports",
      "imports with @ work in the editor but not when running",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "node dist/server.js cannot find module '@/utils/date' though tsc passed",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The @/ imports from tsconfig paths are not resolved in the compiled output",
      },
      { lang: "zh", kind: "reworded", task: "tsc 编译通过了，运行时却报 Cannot find module '@/utils'" },
      {
        lang: "en",
        kind: "far",
        task: "Shortcuts starting with an at sign in our require lines break once the transpiled code is launched",
      },
      { lang: "zh", kind: "far", task: "用 @ 开头的引用在编辑器里好好的，打包完启动就崩" },
      { lang: "en", kind: "near", task: "Add a path to the tsconfig.json include list" },
    ],
  },
  {
    id: "redis-clients",
    taughtIn: "zh",
    teach: "高峰期接口报错：ERR max number of clients reached，Redis 连接数打满了",
    condition: "Redis 连接数达到上限，因为每个请求都新建连接",
    rule: "在 cache/client.py 里用一个全局的连接池（redis.ConnectionPool，max_connections=50），请求之间复用，不要每次 new Redis()",
    keys: [
      "ERR max number of clients reached",
      "连接数打满",
      "Redis 连接池",
      "max_connections",
      "cache/client.py",
      "Redis connection pool",
    ],
    otherKeys: ["too many Redis connections", "new connection per request"],
    asks: ["高峰期缓存服务拒绝新连接", "流量一大就连不上缓存"],
    probes: [
      { lang: "zh", kind: "taught", task: "又报 ERR max number of clients reached 了，Redis 连接数满了" },
      {
        lang: "en",
        kind: "reworded",
        task: "Redis refuses new connections under load: max number of clients reached",
      },
      { lang: "zh", kind: "reworded", task: "每个请求都新建 Redis 连接，高峰时连接数不够用" },
      {
        lang: "en",
        kind: "far",
        task: "During the evening rush the key-value store turns away our app and pages fail",
      },
      { lang: "zh", kind: "far", task: "晚上流量一大，缓存服务器就拒绝我们应用的访问" },
      { lang: "zh", kind: "near", task: "给 Redis 里的会话数据设置过期时间" },
    ],
  },
  {
    id: "miniprogram-domain",
    taughtIn: "zh",
    teach: "微信小程序调用接口失败：request:fail url not in domain list，api.example.cn 不在合法域名列表中",
    condition: "微信小程序请求的域名不在后台配置的 request 合法域名里",
    rule: "在小程序管理后台的 开发管理 → 服务器域名 里加上 https://api.example.cn；开发时可在开发者工具勾选不校验合法域名，但上线前必须配置",
    keys: [
      "request:fail url not in domain list",
      "合法域名",
      "微信小程序",
      "服务器域名",
      "api.example.cn",
      "WeChat mini program",
    ],
    otherKeys: ["request domain not allowed", "mini program request fails"],
    asks: ["真机上接口请求不通，开发者工具里却可以", "上线后小程序拿不到数据"],
    probes: [
      { lang: "zh", kind: "taught", task: "小程序请求报 url not in domain list，说不在合法域名列表" },
      {
        lang: "en",
        kind: "reworded",
        task: "WeChat mini program request fails with url not in domain list on the phone",
      },
      { lang: "zh", kind: "reworded", task: "微信小程序上线后接口全部 request:fail" },
      {
        lang: "en",
        kind: "far",
        task: "Our little app inside the chat messenger loads nothing on real phones though the simulator shows everything",
      },
      { lang: "zh", kind: "far", task: "手机上打开我们挂在聊天软件里的应用一片空白，模拟器里数据都正常" },
      { lang: "zh", kind: "near", task: "给小程序首页加一个轮播图" },
    ],
  },
  {
    id: "replica-lag",
    taughtIn: "zh",
    teach: "下单后马上查询订单详情返回 404，过几秒又有了，MySQL 主从延迟导致从库还没同步",
    condition: "刚写入的数据马上去从库读，因为主从复制延迟读不到",
    rule: "写入后紧接着的读（下单后查询订单）走主库：在 db/router.py 里对同一请求内写过的表用 primary 连接",
    keys: [
      "主从延迟",
      "从库读不到",
      "刚写入查不到",
      "db/router.py",
      "MySQL replication lag",
      "read after write",
    ],
    otherKeys: ["replica lag", "just-written row not found"],
    asks: ["刚创建的东西刷新一下才出现", "新数据偶尔查不到"],
    probes: [
      { lang: "zh", kind: "taught", task: "刚下的订单立刻去查又是 404，几秒后才能查到" },
      {
        lang: "en",
        kind: "reworded",
        task: "Reads right after a write return nothing because of MySQL replication lag",
      },
      { lang: "zh", kind: "reworded", task: "写入数据库以后马上读，从库还没同步过来" },
      {
        lang: "en",
        kind: "far",
        task: "A freshly placed purchase is missing from the user's history for a few seconds",
      },
      { lang: "zh", kind: "far", task: "用户提交的评论，跳转后页面上没显示，再刷新两次才出来" },
      { lang: "zh", kind: "near", task: "给订单表加一个按创建时间的索引" },
    ],
  },
  {
    id: "duplicate-cron",
    taughtIn: "zh",
    teach: "定时任务部署到三台机器后每天的对账邮件发了三遍",
    condition: "同一个定时任务在多个实例上同时执行",
    rule: "任务开始前用 Redis SET key NX EX 600 抢分布式锁，抢不到的实例直接跳过；锁名用任务名加日期",
    keys: [
      "定时任务重复执行",
      "多台机器",
      "分布式锁",
      "SET NX",
      "对账邮件发了三遍",
      "scheduled job runs on every instance",
    ],
    otherKeys: ["duplicate scheduled job", "distributed lock"],
    asks: ["扩容以后同一封通知收到好几封", "每个节点都跑了一遍"],
    probes: [
      { lang: "zh", kind: "taught", task: "对账邮件又发了三遍，定时任务在每台机器上都跑了" },
      {
        lang: "en",
        kind: "reworded",
        task: "Our scheduled job runs once per instance since we scaled to three machines",
      },
      { lang: "zh", kind: "reworded", task: "多台机器部署后，同一个定时任务重复执行" },
      {
        lang: "en",
        kind: "far",
        task: "After adding servers, customers get the same daily report email several times",
      },
      { lang: "zh", kind: "far", task: "扩容之后，客户每天早上收到好几份一模一样的日报" },
      { lang: "zh", kind: "near", task: "新增一个每周一早上九点执行的定时任务" },
    ],
  },
  {
    id: "websocket-proxy",
    taughtIn: "zh",
    teach: "WebSocket 经过 nginx 反向代理后连上 60 秒就断开，直连后端没问题",
    condition: "经 nginx 代理的 WebSocket 连接一段时间没有消息就被断开",
    rule: "在 nginx 的 location /ws 里设置 proxy_http_version 1.1、Upgrade 和 Connection 头，并把 proxy_read_timeout 调到 3600s；客户端每 30 秒发心跳",
    keys: [
      "WebSocket 断开",
      "nginx 反向代理",
      "60 秒断开",
      "proxy_read_timeout",
      "Upgrade",
      "WebSocket disconnects behind nginx",
    ],
    otherKeys: ["websocket closes after 60 seconds", "reverse proxy timeout"],
    asks: ["实时消息过一分钟就收不到了", "聊天页面隔一会儿要重连"],
    probes: [
      { lang: "zh", kind: "taught", task: "WebSocket 走 nginx 代理，一分钟左右就断开" },
      {
        lang: "en",
        kind: "reworded",
        task: "Our WebSocket connection drops after 60 seconds when it goes through nginx",
      },
      { lang: "zh", kind: "reworded", task: "nginx 代理后的 ws 连接空闲一会儿就被关闭" },
      {
        lang: "en",
        kind: "far",
        task: "The live chat stops receiving messages after about a minute of quiet and has to reconnect",
      },
      { lang: "zh", kind: "far", task: "聊天室安静一小会儿就收不到新的发言，要刷新页面" },
      { lang: "zh", kind: "near", task: "用 WebSocket 实现一个简单的聊天室" },
    ],
  },
  {
    id: "es-chinese-analyzer",
    taughtIn: "zh",
    teach: "Elasticsearch 搜 “手机壳” 搜出来一堆只含 “手” 或 “机” 的商品，默认分词器把中文按单字切了",
    condition: "Elasticsearch 中文搜索结果不准，因为默认 standard 分词器把中文切成单字",
    rule: "安装 analysis-ik 插件，products 索引的 title 字段用 ik_max_word 建索引、ik_smart 搜索，然后重建索引",
    keys: [
      "Elasticsearch 中文分词",
      "按单字切",
      "ik_max_word",
      "analysis-ik",
      "standard analyzer",
      "Chinese search results irrelevant",
    ],
    otherKeys: ["Elasticsearch Chinese tokenizer", "splits Chinese into single characters"],
    asks: ["搜索商品名出来很多不相关的结果", "搜词组匹配到的都是单个字"],
    probes: [
      { lang: "zh", kind: "taught", task: "ES 搜手机壳出来一堆不相关的商品，好像是按单字分词" },
      {
        lang: "en",
        kind: "reworded",
        task: "Elasticsearch returns irrelevant hits for Chinese queries because the standard analyzer splits every character",
      },
      { lang: "zh", kind: "reworded", task: "Elasticsearch 的中文分词效果很差，需要换分词器" },
      {
        lang: "en",
        kind: "far",
        task: "Looking up a phone case in Mandarin on our shop brings up random items that merely share a symbol",
      },
      { lang: "zh", kind: "far", task: "商城里输入“蓝牙耳机”，出来的全是只沾一个字的东西" },
      { lang: "zh", kind: "near", task: "给 Elasticsearch 集群加一个节点" },
    ],
  },
];

/** Tasks that need none of the lessons (second held-out set). */
export const HELDOUT2_UNRELATED = [
  { lang: "en", task: "Write a limerick about a cat who codes" },
  { lang: "en", task: "Add a favicon to the documentation site" },
  { lang: "en", task: "Convert the dates in this table to ISO 8601" },
  { lang: "en", task: "Build a small command line tool that counts words in a file" },
  { lang: "en", task: "Explain how a hash map handles collisions" },
  { lang: "en", task: "Add a contact form to the landing page that sends an email" },
  { lang: "en", task: "Write a Python function that merges two sorted lists" },
  { lang: "en", task: "Create a GitHub Actions workflow that runs the tests on push" },
  { lang: "en", task: "Add a chart of monthly sales to the admin dashboard" },
  { lang: "en", task: "Rename the variable tmp to totalCount in report.js" },
  { lang: "en", task: "Suggest names for a new hiking app" },
  { lang: "en", task: "Make the table on the users page sortable by column" },
  { lang: "zh", task: "写一段介绍我们公司的文案" },
  { lang: "zh", task: "把这张表里的日期统一成 2026-12-05 这种格式" },
  { lang: "zh", task: "实现一个二分查找函数" },
  { lang: "zh", task: "给后台管理页面加一个导出 Excel 的按钮" },
  { lang: "zh", task: "解释一下什么是闭包" },
  { lang: "zh", task: "把登录页的背景换成渐变色" },
  { lang: "zh", task: "写一个统计文件里单词数量的命令行工具" },
  { lang: "zh", task: "给用户列表加上按注册时间排序" },
  { lang: "zh", task: "帮我写一封请假邮件" },
  { lang: "zh", task: "用 Python 画一个正弦函数的图像" },
  { lang: "zh", task: "给文档网站加一个搜索框" },
  { lang: "zh", task: "把 README 里的安装步骤写得更清楚一些" },
];
