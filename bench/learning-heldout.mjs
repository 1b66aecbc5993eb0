// HELD OUT. The learning benchmark's held-out families (learning.mjs --set heldout): written
// before any change to retrieval, and not looked at case by case while tuning; tuning uses
// learning-families.mjs only. Their figures are the ones to report.
//
// Each family is a teaching run and the reflection a careful model would write from that run
// alone, following reson's reflection prompt:
//   condition, rule: ADD: WHEN <condition> THEN <rule>
//   keys: the error seen, the tools, files and words of the teaching task, in the task's
//     language and in English (what the prompt asked for when these were written);
//   otherKeys: the keys such a model adds when asked for the project's languages (English and
//     Chinese) rather than the task's own;
//   asks: two or three rewordings a future task could use that share few words with the
//     teaching run (symptoms, the user's words), for a prompt that asks for them.
// The lessons (teach, condition, rule, keys, otherKeys, asks) were all written first; the probes
// after, apart from them:
//   taught   - the teaching trouble told again, in the teaching language
//   reworded - the same trouble described differently, one English and one Chinese
//   far      - the same trouble sharing no content word with condition, rule and keys, one
//              English and one Chinese (symptoms as a user would tell them)
//   near     - a task sharing words with the lesson that needs no lesson (it must not be shown
//              this family's lesson)
// HELDOUT_UNRELATED: tasks that need none of the lessons.

export const HELDOUT_FAMILIES = [
  {
    id: "go-sum",
    taughtIn: "en",
    teach: "go build fails with: missing go.sum entry for module providing package github.com/lib/pq",
    condition: "a Go build stops because go.sum lacks an entry for a dependency",
    rule: "run go mod tidy, then commit go.mod and go.sum together",
    keys: ["missing go.sum entry", "go mod tidy", "go.sum", "go build", "github.com/lib/pq"],
    otherKeys: ["缺少 go.sum 条目", "Go 依赖"],
    asks: [
      "Go refuses to compile after adding a new dependency",
      "module checksum missing for an imported package",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "go build complains again about a missing go.sum entry" },
      {
        lang: "en",
        kind: "reworded",
        task: "After importing a new package the Go compiler says the module's checksum entry is missing",
      },
      { lang: "zh", kind: "reworded", task: "Go 项目加了新依赖后 go build 报 missing go.sum entry" },
      {
        lang: "en",
        kind: "far",
        task: "I pulled in a third-party library and now the Golang binary won't compile",
      },
      { lang: "zh", kind: "far", task: "引入第三方库以后 Golang 程序编译不过了" },
      { lang: "en", kind: "near", task: "Write a Go function that reverses a string" },
    ],
  },
  {
    id: "cors",
    taughtIn: "en",
    teach:
      "The React app gets 'blocked by CORS policy: No Access-Control-Allow-Origin header' when calling the API on localhost:8080",
    condition: "the browser blocks calls from the frontend dev server to the local API",
    rule: "add http://localhost:5173 to CORS_ORIGINS in api/.env and restart the API; do not disable CORS in the browser",
    keys: [
      "blocked by CORS policy",
      "Access-Control-Allow-Origin",
      "CORS_ORIGINS",
      "localhost:8080",
      "React app calling the API",
    ],
    otherKeys: ["跨域", "CORS 报错"],
    asks: [
      "fetch from the frontend fails in the browser console but works with curl",
      "preflight request rejected",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The React frontend is blocked by CORS policy when it calls the API",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Browser console says No 'Access-Control-Allow-Origin' header is present on the requested resource",
      },
      { lang: "zh", kind: "reworded", task: "前端调用本地接口时浏览器报 CORS 跨域错误" },
      {
        lang: "en",
        kind: "far",
        task: "My Vite page can't fetch data from the backend on another port, though curl works",
      },
      { lang: "zh", kind: "far", task: "网页请求后端数据失败，用 curl 调却正常" },
      { lang: "en", kind: "near", task: "Add a loading spinner to the React app's header" },
    ],
  },
  {
    id: "auth-401",
    taughtIn: "en",
    teach: "Every request to /api/orders returns 401 Unauthorized after the token refresh change",
    condition: "API calls are rejected as unauthorized after a token refresh",
    rule: "send the new access token in the Authorization: Bearer header; the client kept the old one in apiClient.ts",
    keys: [
      "401 Unauthorized",
      "Authorization header",
      "Bearer token",
      "token refresh",
      "/api/orders",
      "apiClient.ts",
    ],
    otherKeys: ["未授权", "令牌刷新"],
    asks: [
      "logged-in users suddenly get kicked out when calling the backend",
      "requests fail with unauthorised after the session renews",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Requests to /api/orders are 401 Unauthorized since the token refresh change",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "After the access token renews, the backend rejects every call as unauthorized",
      },
      { lang: "zh", kind: "reworded", task: "刷新 token 之后所有接口都返回 401" },
      {
        lang: "en",
        kind: "far",
        task: "Signed-in customers get bounced to the login screen whenever they open their purchase history",
      },
      { lang: "zh", kind: "far", task: "登录后过一会儿再点页面就被踢回登录页" },
      { lang: "en", kind: "near", task: "List the books in the catalogue sorted by author" },
    ],
  },
  {
    id: "test-port",
    taughtIn: "en",
    teach: "jest tests fail randomly with EADDRINUSE: address already in use :::3000",
    condition: "tests that start the HTTP server collide on a fixed port",
    rule: "start the server on port 0 in tests and read the assigned port from server.address()",
    keys: ["EADDRINUSE", "address already in use", ":::3000", "jest", "port 0", "server.address()"],
    otherKeys: ["端口冲突", "测试随机失败"],
    asks: ["test suite is flaky when run in parallel", "two test files both try to listen on the same port"],
    probes: [
      { lang: "en", kind: "taught", task: "jest randomly fails with EADDRINUSE on port 3000" },
      {
        lang: "en",
        kind: "reworded",
        task: "Integration tests pass alone but crash when run together, 'address already in use'",
      },
      { lang: "zh", kind: "reworded", task: "并行跑测试时偶尔报 EADDRINUSE 端口被占用" },
      { lang: "en", kind: "far", task: "Running the specs concurrently makes some of them die at random" },
      { lang: "zh", kind: "far", task: "多个用例一起执行时总有几个莫名其妙挂掉" },
      { lang: "en", kind: "near", task: "Change the dev server to listen on port 4000" },
    ],
  },
  {
    id: "lockfile",
    taughtIn: "en",
    teach: "CI fails at npm ci: package-lock.json is not in sync with package.json",
    condition: "CI's dependency install refuses the lockfile",
    rule: "run npm install locally and commit the updated package-lock.json; never edit the lockfile by hand",
    keys: ["npm ci", "package-lock.json", "not in sync", "lockfile", "package.json", "CI install fails"],
    otherKeys: ["锁文件不同步", "依赖安装失败"],
    asks: [
      "pipeline breaks right at installing dependencies",
      "added a package and the build server rejects it",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "npm ci in CI says package-lock.json is out of sync with package.json",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The pipeline's install step rejects the lockfile after I added a dependency",
      },
      { lang: "zh", kind: "reworded", task: "CI 跑 npm ci 报 lock 文件和 package.json 不一致" },
      {
        lang: "en",
        kind: "far",
        task: "Our build server stops at fetching node modules right after I added lodash",
      },
      { lang: "zh", kind: "far", task: "流水线在拉取第三方包那一步就挂了" },
      { lang: "en", kind: "near", task: "Document the npm scripts in the README" },
    ],
  },
  {
    id: "disk-full",
    taughtIn: "en",
    teach: "docker build fails with 'no space left on device'",
    condition: "the machine runs out of disk space during image builds",
    rule: "run docker system prune -af --volumes to delete unused images and build cache, then rebuild",
    keys: ["no space left on device", "docker build", "docker system prune", "disk full", "build cache"],
    otherKeys: ["磁盘空间不足", "磁盘满了"],
    asks: ["the machine's storage filled up while building containers", "image build dies writing a layer"],
    probes: [
      { lang: "en", kind: "taught", task: "docker build died with no space left on device again" },
      { lang: "en", kind: "reworded", task: "Building the image fails because the disk is full" },
      { lang: "zh", kind: "reworded", task: "构建镜像时报 no space left on device" },
      {
        lang: "en",
        kind: "far",
        task: "The laptop shows 0 bytes free and the container toolchain gives up halfway",
      },
      { lang: "zh", kind: "far", task: "硬盘被占光了，容器打包做到一半就停" },
      { lang: "en", kind: "near", task: "Add a healthcheck to the docker compose file" },
    ],
  },
  {
    id: "ssl-cert",
    taughtIn: "en",
    teach: "pip install fails: SSL: CERTIFICATE_VERIFY_FAILED unable to get local issuer certificate",
    condition: "package downloads fail certificate verification behind the company proxy",
    rule: "point pip at the company CA bundle: pip config set global.cert /etc/ssl/certs/corp-ca.pem; never use --trusted-host to skip checks",
    keys: [
      "CERTIFICATE_VERIFY_FAILED",
      "unable to get local issuer certificate",
      "pip install",
      "SSL",
      "corp-ca.pem",
      "proxy",
    ],
    otherKeys: ["证书验证失败", "SSL 错误"],
    asks: [
      "downloads through the office network are refused as untrusted",
      "https requests fail with a self-signed certificate in the chain",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "pip install again fails with CERTIFICATE_VERIFY_FAILED" },
      {
        lang: "en",
        kind: "reworded",
        task: "Installing packages behind the office proxy fails: unable to get local issuer certificate",
      },
      { lang: "zh", kind: "reworded", task: "公司网络下 pip install 报 SSL 证书验证失败" },
      {
        lang: "en",
        kind: "far",
        task: "On the work VPN, fetching Python libraries errors out about who signed the connection",
      },
      { lang: "zh", kind: "far", task: "在办公室连 VPN 时下载 Python 库总是出错" },
      { lang: "en", kind: "near", task: "Pin the numpy version in requirements.txt" },
    ],
  },
  {
    id: "react-hooks",
    taughtIn: "en",
    teach: "The settings page crashes with 'Rendered more hooks than during the previous render'",
    condition: "a React component calls hooks conditionally or after an early return",
    rule: "move every useState/useEffect call above the first early return in the component; hooks must run in the same order each render",
    keys: [
      "Rendered more hooks than during the previous render",
      "React hooks",
      "useState",
      "early return",
      "settings page",
    ],
    otherKeys: ["Hook 调用顺序", "页面崩溃"],
    asks: [
      "the page goes blank after I added an if that returns early",
      "component crashes only when the data is loading",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Rendered more hooks than during the previous render on the settings page again",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "My React component crashes after I added an early return before useEffect",
      },
      {
        lang: "zh",
        kind: "reworded",
        task: "React 组件报 Rendered more hooks than during the previous render",
      },
      {
        lang: "en",
        kind: "far",
        task: "Since yesterday's refactor the profile view turns white whenever the user has no avatar",
      },
      { lang: "zh", kind: "far", task: "重构之后，用户没有头像时个人资料页直接白屏" },
      { lang: "en", kind: "near", task: "Add a dark theme to the settings page" },
    ],
  },
  {
    id: "slow-query",
    taughtIn: "en",
    teach: "The /search endpoint takes 12 seconds; EXPLAIN shows a Seq Scan on events",
    condition: "a query on a large table is slow because it scans every row",
    rule: "add an index on the filtered columns (CREATE INDEX CONCURRENTLY events_user_id_created_at ON events (user_id, created_at)) and check EXPLAIN ANALYZE again",
    keys: [
      "Seq Scan",
      "EXPLAIN ANALYZE",
      "slow query",
      "CREATE INDEX CONCURRENTLY",
      "events table",
      "/search endpoint",
    ],
    otherKeys: ["查询很慢", "缺少索引"],
    asks: ["the page that lists activity takes forever to load", "database CPU spikes when users search"],
    probes: [
      { lang: "en", kind: "taught", task: "The /search endpoint is slow again, EXPLAIN shows a Seq Scan" },
      {
        lang: "en",
        kind: "reworded",
        task: "Listing a user's events takes over ten seconds; the query plan scans the whole table",
      },
      { lang: "zh", kind: "reworded", task: "events 表的查询特别慢，EXPLAIN 里是 Seq Scan" },
      {
        lang: "en",
        kind: "far",
        task: "Customers with years of history wait ages before their timeline shows up",
      },
      { lang: "zh", kind: "far", task: "老用户打开时间线要等好久才出来" },
      { lang: "en", kind: "near", task: "Add a search box to the events page" },
    ],
  },
  {
    id: "git-lfs",
    taughtIn: "en",
    teach:
      "git push fails: remote: error: File assets/video.mp4 is 120.00 MB; this exceeds GitHub's file size limit of 100.00 MB",
    condition: "a push is refused because a committed file is over the host's size limit",
    rule: "remove the file from history (git rm --cached, amend or git filter-repo) and track large media with git lfs track",
    keys: [
      "exceeds GitHub's file size limit",
      "100.00 MB",
      "git lfs",
      "large file",
      "git push fails",
      "assets/video.mp4",
    ],
    otherKeys: ["文件太大", "推送失败"],
    asks: [
      "cannot upload my branch because of a big binary",
      "remote rejects a commit that contains a large media file",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "git push refused: File assets/video.mp4 exceeds GitHub's file size limit",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The remote rejects my commit because a 150 MB file is over the size limit",
      },
      { lang: "zh", kind: "reworded", task: "推送时报文件超过 100 MB 限制，被 GitHub 拒绝" },
      {
        lang: "en",
        kind: "far",
        task: "Sharing my work with the team is blocked ever since I checked in the product demo recording",
      },
      { lang: "zh", kind: "far", task: "把产品演示录像提交进仓库以后，代码就传不上去了" },
      { lang: "en", kind: "near", task: "Add a video player component to the landing page" },
    ],
  },
  {
    id: "listener-leak",
    taughtIn: "en",
    teach:
      "The worker prints MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 message listeners added",
    condition: "listeners are added on every job and never removed",
    rule: "register the listener once at start-up, or remove it with off() when the job ends; do not raise setMaxListeners to hide it",
    keys: [
      "MaxListenersExceededWarning",
      "EventEmitter memory leak",
      "listeners",
      "setMaxListeners",
      "worker",
    ],
    otherKeys: ["内存泄漏", "监听器"],
    asks: ["the background process keeps growing in memory over the day", "warning about too many listeners"],
    probes: [
      { lang: "en", kind: "taught", task: "MaxListenersExceededWarning shows up again in the worker logs" },
      {
        lang: "en",
        kind: "reworded",
        task: "Node warns: Possible EventEmitter memory leak detected, 11 listeners added",
      },
      { lang: "zh", kind: "reworded", task: "worker 进程报 MaxListenersExceededWarning，内存一直涨" },
      { lang: "en", kind: "far", task: "Our queue consumer's RAM climbs for hours until the OS kills it" },
      { lang: "zh", kind: "far", task: "队列消费进程跑几个小时占用越来越大，最后被系统杀掉" },
      { lang: "en", kind: "near", task: "Add a listener for the window resize event" },
    ],
  },
  {
    id: "yaml-manifest",
    taughtIn: "en",
    teach:
      "kubectl apply fails: error converting YAML to JSON: yaml: line 14: mapping values are not allowed in this context",
    condition: "a Kubernetes manifest does not parse",
    rule: "check the indentation around the reported line (spaces, not tabs) and quote values that contain a colon; validate with kubectl apply --dry-run=client first",
    keys: [
      "error converting YAML to JSON",
      "mapping values are not allowed in this context",
      "kubectl apply",
      "YAML indentation",
      "manifest",
    ],
    otherKeys: ["YAML 格式错误", "缩进"],
    asks: ["the deployment file is rejected with a parse error", "a value with a colon breaks the config"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "kubectl apply again fails: mapping values are not allowed in this context",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Applying the deployment manifest errors with 'error converting YAML to JSON' at line 22",
      },
      { lang: "zh", kind: "reworded", task: "kubectl apply 报 YAML 格式错误，说第 14 行有问题" },
      {
        lang: "en",
        kind: "far",
        task: "The cluster won't take my updated rollout spec; the CLI points at row 9",
      },
      { lang: "zh", kind: "far", task: "集群不接受我改过的部署文件" },
      { lang: "en", kind: "near", task: "Scale the deployment to three replicas with kubectl" },
    ],
  },
  {
    id: "regex-backtracking",
    taughtIn: "zh",
    teach: "用正则表达式校验邮箱时，输入一个很长的字符串页面就卡死了",
    condition: "正则表达式在某些输入上执行极慢，导致卡死",
    rule: "这是灾难性回溯：去掉嵌套量词（如 (a+)+），改用更具体的字符类，或先限制输入长度",
    keys: ["正则表达式", "卡死", "灾难性回溯", "邮箱校验", "catastrophic backtracking", "regex hangs"],
    otherKeys: [],
    asks: [
      "输入长一点的文本程序就不动了",
      "CPU 占满，校验函数一直不返回",
      "the validation never returns on long input",
    ],
    probes: [
      { lang: "zh", kind: "taught", task: "邮箱校验的正则表达式遇到长字符串又卡死了" },
      { lang: "zh", kind: "reworded", task: "这个正则在某些输入上跑了好几分钟都不结束" },
      { lang: "en", kind: "reworded", task: "The email validation regex hangs on a long input string" },
      {
        lang: "en",
        kind: "far",
        task: "The signup form freezes the tab when someone pastes a very long address",
      },
      { lang: "zh", kind: "far", task: "注册页面有人粘贴很长的地址后浏览器就没反应了" },
      { lang: "zh", kind: "near", task: "写一个正则表达式匹配手机号" },
    ],
  },
  {
    id: "utf8mb4",
    taughtIn: "zh",
    teach: "往 MySQL 里存表情和中文，报 Incorrect string value: '\\xF0\\x9F\\x98\\x80'",
    condition: "MySQL 存储 emoji 或特殊字符时报错",
    rule: "把库、表和连接的字符集都改成 utf8mb4（连接串加 charset=utf8mb4），utf8 只支持三字节",
    keys: ["Incorrect string value", "utf8mb4", "MySQL", "表情", "字符集", "emoji"],
    otherKeys: [],
    asks: ["用户昵称带表情就保存失败", "saving a message with an emoji fails"],
    probes: [
      { lang: "zh", kind: "taught", task: "MySQL 存带表情的昵称又报 Incorrect string value" },
      { lang: "zh", kind: "reworded", task: "用户名里有 emoji 的时候插入数据库失败" },
      {
        lang: "en",
        kind: "reworded",
        task: "Inserting a comment with an emoji into MySQL fails with Incorrect string value",
      },
      { lang: "en", kind: "far", task: "Saving a chat message with a smiley crashes the backend" },
      { lang: "zh", kind: "far", task: "聊天消息里带个笑脸就发不出去" },
      { lang: "zh", kind: "near", task: "给 MySQL 的 users 表加一个索引" },
    ],
  },
  {
    id: "npm-mirror",
    taughtIn: "zh",
    teach: "npm install 一直卡住，最后报 ETIMEDOUT",
    condition: "安装依赖时网络超时",
    rule: "把 registry 换成公司镜像：npm config set registry https://npm.corp.example/，再重试",
    keys: ["npm install", "ETIMEDOUT", "registry", "依赖安装超时", "镜像", "npm mirror"],
    otherKeys: [],
    asks: ["装包特别慢，半天没反应", "package download hangs"],
    probes: [
      { lang: "zh", kind: "taught", task: "npm install 又卡住了，报 ETIMEDOUT" },
      { lang: "zh", kind: "reworded", task: "安装依赖总是超时，下载不下来" },
      { lang: "en", kind: "reworded", task: "npm install hangs and then times out with ETIMEDOUT" },
      { lang: "en", kind: "far", task: "Pulling the JavaScript packages takes forever and then gives up" },
      { lang: "zh", kind: "far", task: "拉 JS 包拉了半个小时还没好" },
      { lang: "zh", kind: "near", task: "把 npm 升级到最新版本" },
    ],
  },
  {
    id: "celery-queue",
    taughtIn: "zh",
    teach: "Celery 任务提交后一直是 PENDING，worker 日志里什么都没有",
    condition: "后台任务提交了但从不执行",
    rule: "worker 没有监听这个队列：用 celery -A app worker -Q default,reports 启动，队列名要和 task_routes 一致",
    keys: ["Celery", "PENDING", "worker", "队列", "task_routes", "task never runs"],
    otherKeys: [],
    asks: ["异步任务一直在排队没人处理", "background job stuck in pending"],
    probes: [
      { lang: "zh", kind: "taught", task: "Celery 任务又一直卡在 PENDING" },
      { lang: "zh", kind: "reworded", task: "后台任务提交以后从来没执行过" },
      {
        lang: "en",
        kind: "reworded",
        task: "Celery tasks stay PENDING forever and the worker never picks them up",
      },
      {
        lang: "en",
        kind: "far",
        task: "The invoice emails we enqueue are never sent and nothing appears in any log",
      },
      { lang: "zh", kind: "far", task: "排进去的发票邮件一封都没发出去" },
      { lang: "zh", kind: "near", task: "升级 Celery 到 5.4 版本" },
    ],
  },
  {
    id: "vite-env",
    taughtIn: "zh",
    teach: "Vite 项目里 import.meta.env.API_URL 一直是 undefined",
    condition: "前端读取不到 .env 里的环境变量",
    rule: "Vite 只暴露 VITE_ 开头的变量：改名为 VITE_API_URL，并重启 dev server",
    keys: ["import.meta.env", "undefined", "Vite", "环境变量", "VITE_ 前缀", ".env"],
    otherKeys: [],
    asks: ["前端拿不到配置的接口地址", "env variable is empty in the browser"],
    probes: [
      { lang: "zh", kind: "taught", task: "Vite 里 import.meta.env.API_URL 还是 undefined" },
      { lang: "zh", kind: "reworded", task: "前端读不到 .env 文件里配置的变量" },
      { lang: "en", kind: "reworded", task: "import.meta.env.API_URL is undefined in my Vite app" },
      {
        lang: "en",
        kind: "far",
        task: "The web client can't see the backend address I put in the settings file",
      },
      { lang: "zh", kind: "far", task: "网页端拿不到我在配置文件里写的后端地址" },
      { lang: "zh", kind: "near", task: "把 Vite 升级到 6" },
    ],
  },
  {
    id: "git-quotepath",
    taughtIn: "zh",
    teach: "git status 里的中文文件名都显示成 \\346\\226\\207 这样的编码",
    condition: "git 输出中的中文路径显示为转义的八进制",
    rule: "运行 git config --global core.quotepath false",
    keys: ["core.quotepath", "git status", "中文文件名", "八进制", "乱码", "non-ASCII file names"],
    otherKeys: [],
    asks: ["提交记录里的文件名看不懂，全是数字和反斜杠", "git shows escaped paths"],
    probes: [
      { lang: "zh", kind: "taught", task: "git status 显示的中文文件名又变成了 \\346\\226\\207 这种" },
      { lang: "zh", kind: "reworded", task: "git log 里的中文路径都是反斜杠加数字" },
      {
        lang: "en",
        kind: "reworded",
        task: "git status shows Chinese file names as octal escapes like \\346\\226\\207",
      },
      {
        lang: "en",
        kind: "far",
        task: "Paths with non-Latin characters look like gibberish numbers in the version control output",
      },
      { lang: "zh", kind: "far", task: "版本管理工具里汉字的目录名全是看不懂的数字" },
      { lang: "zh", kind: "near", task: "用 git 把最近三次提交合并成一个" },
    ],
  },
];

/** Tasks that need none of the lessons (held out), some with the words every coding task uses. */
export const HELDOUT_UNRELATED = [
  { lang: "en", task: "Generate a random password of 16 characters" },
  { lang: "en", task: "Convert this CSV of temperatures from Fahrenheit to Celsius" },
  { lang: "en", task: "Write a haiku about autumn leaves" },
  { lang: "en", task: "Add pagination to the blog index page" },
  { lang: "en", task: "Refactor the user service to use dependency injection" },
  { lang: "en", task: "What is the difference between a process and a thread?" },
  { lang: "en", task: "Create a new React component that shows a star rating" },
  { lang: "en", task: "Update the copyright year in the footer" },
  { lang: "en", task: "Write a function that checks whether a string is a palindrome" },
  { lang: "en", task: "Draw an ASCII art cat" },
  { lang: "en", task: "Add a command line flag --verbose to the script" },
  { lang: "en", task: "Plan a three-day trip to Kyoto" },
  { lang: "zh", task: "生成一个 16 位的随机密码" },
  { lang: "zh", task: "写一首关于秋天的诗" },
  { lang: "zh", task: "给博客首页加上分页" },
  { lang: "zh", task: "解释一下进程和线程的区别" },
  { lang: "zh", task: "把页脚的版权年份改成 2027" },
  { lang: "zh", task: "写一个判断回文字符串的函数" },
  { lang: "zh", task: "新建一个显示星级评分的 React 组件" },
  { lang: "zh", task: "把这段英文翻译成中文" },
  { lang: "zh", task: "给脚本加一个 --verbose 参数" },
  { lang: "zh", task: "推荐几本学习算法的书" },
  { lang: "zh", task: "计算一下 2 的 20 次方是多少" },
  { lang: "zh", task: "帮我起一个咖啡店的名字" },
];
