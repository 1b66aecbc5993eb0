// The lessons of the learning benchmark (learning.mjs): each family is a teaching run (a task
// that hits an error, then recovers), the reflection a model would write from that run alone
// (condition, rule and retrieval keys: the error seen, the tools and files involved, the task's
// own words, in the task's language and in English), and probe tasks written apart from the
// reflection: "taught" says what the teaching task said in other words, "reworded" describes
// the same trouble differently, "far" shares almost no words with the lesson; one probe is in
// the other language. Half the conditions are worded like the lesson, not like the task.

export const FAMILIES = [
  {
    id: "sqlite-busy",
    teach: "The nightly importer crashes with 'database is locked' when two workers run",
    condition: "several processes write to the same SQLite database at once",
    rule: "set PRAGMA busy_timeout = 5000 on every connection and retry the write on SQLITE_BUSY",
    keys: ["database is locked", "SQLITE_BUSY", "busy_timeout", "nightly importer", "two workers"],
    probes: [
      { lang: "en", kind: "taught", task: "The importer fails again: database is locked" },
      {
        lang: "en",
        kind: "reworded",
        task: "Two cron jobs write to app.db at the same time and one dies with SQLITE_BUSY",
      },
      {
        lang: "en",
        kind: "far",
        task: "Parallel workers keep crashing when they save results to the same sqlite file",
      },
      { lang: "zh", kind: "reworded", task: "两个进程同时写 SQLite 时报 database is locked，怎么解决？" },
    ],
  },
  {
    id: "line-endings",
    teach: "git diff shows every line of config.yml changed after I cloned the repo on Windows",
    condition: "files show as entirely changed after a checkout on Windows",
    rule: "add a .gitattributes with '* text=auto eol=lf' and run git add --renormalize .",
    keys: ["CRLF", "line endings", ".gitattributes", "core.autocrlf", "git diff shows every line changed"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "After cloning on Windows, git diff marks every line of the file as changed",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "My pull request shows all lines modified although I edited only one",
      },
      { lang: "en", kind: "far", task: "A coworker on a Windows laptop gets ^M at the end of each line" },
      { lang: "zh", kind: "reworded", task: "在 Windows 上 clone 之后 git diff 显示整个文件都改了" },
    ],
  },
  {
    id: "make-test",
    teach: "Run the tests",
    condition: "running the project's test suite",
    rule: "run make test; there is no npm test script in this project",
    keys: ["npm test", "missing script: test", "make test", "Makefile", "run the tests"],
    probes: [
      { lang: "en", kind: "taught", task: "please run the tests for me" },
      { lang: "en", kind: "reworded", task: "Check that the unit tests still pass after my change" },
      { lang: "en", kind: "far", task: "Is the suite still green?" },
      { lang: "zh", kind: "reworded", task: "跑一下单元测试，看看 npm test 能不能过" },
    ],
  },
  {
    id: "python-venv",
    teach: "pytest fails with ModuleNotFoundError: No module named 'requests'",
    condition: "Python imports fail although the package is installed",
    rule: "use the project's virtualenv: run .venv/bin/pytest, or activate .venv first",
    keys: ["ModuleNotFoundError", "No module named", ".venv", "virtualenv", "pytest", "pip install"],
    probes: [
      { lang: "en", kind: "taught", task: "pytest again says ModuleNotFoundError for requests" },
      {
        lang: "en",
        kind: "reworded",
        task: "python says no module named yaml but pip told me it is installed",
      },
      { lang: "en", kind: "far", task: "The script cannot import numpy even though I installed it" },
      { lang: "zh", kind: "reworded", task: "运行 pytest 报 ModuleNotFoundError，可是包已经装了" },
    ],
  },
  {
    id: "docker-port",
    teach: "docker compose up fails: port 5432 is already allocated for the postgres container",
    condition: "a container cannot start because its port is taken",
    rule: "stop the local PostgreSQL service (sudo systemctl stop postgresql) or map the container to port 5433",
    keys: [
      "port is already allocated",
      "address already in use",
      "5432",
      "docker compose",
      "postgres",
      "bind",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "docker compose up says port 5432 is allocated" },
      { lang: "en", kind: "reworded", task: "The postgres container won't start: address already in use" },
      { lang: "en", kind: "far", task: "Starting the database container errors out with bind failed" },
      { lang: "zh", kind: "reworded", task: "docker 启动 postgres 容器时提示端口被占用" },
    ],
  },
  {
    id: "timezone",
    teach: "test_report_dates fails only in CI: expected 2026-03-01, got 2026-02-28",
    condition: "date assertions pass on one machine and fail on another",
    rule: "run the tests with TZ=UTC; the report code formats dates in local time",
    keys: [
      "timezone",
      "TZ=UTC",
      "off by one day",
      "date test fails in CI",
      "local time",
      "test_report_dates",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "test_report_dates is red in CI with the wrong date" },
      { lang: "en", kind: "reworded", task: "A date comparison test is off by one day on the build server" },
      { lang: "en", kind: "far", task: "Why does the weekly summary show yesterday for users in Tokyo?" },
      { lang: "zh", kind: "reworded", task: "CI 上的日期测试总是差一天，本地是好的（timezone 问题？）" },
    ],
  },
  {
    id: "git-push",
    teach:
      "git push is rejected: updates were rejected because the remote contains work that you do not have",
    condition: "pushing to the shared branch is refused",
    rule: "run git pull --rebase origin main, resolve any conflicts, then push again; never push --force to main",
    keys: ["git push rejected", "non-fast-forward", "fetch first", "pull --rebase", "remote contains work"],
    probes: [
      { lang: "en", kind: "taught", task: "my git push got rejected again" },
      { lang: "en", kind: "reworded", task: "Pushing my commits to origin fails with non-fast-forward" },
      { lang: "en", kind: "far", task: "The server refuses my upload of the latest commits" },
      { lang: "zh", kind: "reworded", task: "git push 被拒绝了，提示 fetch first" },
    ],
  },
  {
    id: "env-missing",
    teach: "The app crashes on start: KeyError: 'STRIPE_API_KEY'",
    condition: "the app fails at start-up because a setting is missing from the environment",
    rule: "copy .env.example to .env and load it (source .env); the app reads its settings from the environment",
    keys: ["KeyError", "environment variable not set", ".env", ".env.example", "dotenv", "crashes on start"],
    probes: [
      { lang: "en", kind: "taught", task: "the app crashes at startup with KeyError STRIPE_API_KEY" },
      {
        lang: "en",
        kind: "reworded",
        task: "Server won't boot, says the DATABASE_URL environment variable is not set",
      },
      { lang: "en", kind: "far", task: "Where do I put the API credentials so the service comes up?" },
      { lang: "zh", kind: "reworded", task: "启动时报 KeyError，好像环境变量没设置" },
    ],
  },
  {
    id: "migrations",
    teach: 'The API returns 500: relation "users" does not exist',
    condition: "a fresh database is missing its tables",
    rule: "run npm run migrate before starting the server on a new or reset database",
    keys: [
      "relation does not exist",
      "no such table",
      "migrate",
      "migrations",
      "fresh database",
      "API returns 500",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "API gives a 500 error: relation users does not exist" },
      {
        lang: "en",
        kind: "reworded",
        task: "After resetting the database the app says no such table: orders",
      },
      {
        lang: "en",
        kind: "far",
        task: "On the new staging box every request fails because tables are absent",
      },
      { lang: "zh", kind: "reworded", task: "新建的数据库里报 relation does not exist" },
    ],
  },
  {
    id: "gbk-encoding",
    teach: "读取 data.csv 时报 UnicodeDecodeError: 'utf-8' codec can't decode byte 0xd6",
    condition: "读取中文 CSV 或文本文件时出现解码错误",
    rule: "该文件是 GBK 编码：用 encoding='gbk' 打开，或先转成 UTF-8",
    keys: [
      "UnicodeDecodeError",
      "utf-8 codec can't decode",
      "GBK",
      "编码错误",
      "乱码",
      "garbled characters",
      "读取 CSV",
    ],
    probes: [
      { lang: "zh", kind: "taught", task: "读取 data.csv 又报 UnicodeDecodeError 了" },
      { lang: "zh", kind: "reworded", task: "打开导出的 CSV 表格，中文全是乱码" },
      { lang: "en", kind: "reworded", task: "pandas read_csv fails with utf-8 codec can't decode byte" },
      { lang: "en", kind: "far", task: "The exported spreadsheet shows garbled Chinese characters" },
    ],
  },
  {
    id: "node-heap",
    teach: "前端打包 npm run build 报 JavaScript heap out of memory",
    condition: "打包时 Node 内存不足",
    rule: "在 build 脚本里加上 NODE_OPTIONS=--max-old-space-size=4096",
    keys: [
      "JavaScript heap out of memory",
      "NODE_OPTIONS",
      "max-old-space-size",
      "内存不足",
      "前端打包",
      "build out of memory",
    ],
    probes: [
      { lang: "zh", kind: "taught", task: "npm run build 又报 heap out of memory" },
      { lang: "zh", kind: "reworded", task: "前端构建到一半就崩了，提示内存不够" },
      { lang: "en", kind: "reworded", task: "The webpack build dies with JavaScript heap out of memory" },
      { lang: "en", kind: "far", task: "The production bundle step crashes on the CI runner, out of RAM" },
    ],
  },
  {
    id: "exec-permission",
    teach: "运行 ./deploy.sh 提示 Permission denied",
    condition: "运行 shell 脚本时提示权限不足",
    rule: "脚本没有执行权限：先 chmod +x deploy.sh，或用 bash deploy.sh 运行",
    keys: ["Permission denied", "chmod +x", "执行权限", "deploy.sh", "shell script", "运行脚本"],
    probes: [
      { lang: "zh", kind: "taught", task: "执行 ./deploy.sh 还是 Permission denied" },
      { lang: "zh", kind: "reworded", task: "新建的脚本跑不起来，说没有权限" },
      { lang: "en", kind: "reworded", task: "bash: ./build.sh: Permission denied" },
      { lang: "en", kind: "far", task: "I can't execute the install script I just wrote" },
    ],
  },
];

/** Tasks that need none of the lessons, some with the words every coding task uses. */
export const UNRELATED = [
  { lang: "en", task: "Compute the median of this list of numbers: 3, 9, 4, 1" },
  { lang: "en", task: "Write a poem about the sea" },
  { lang: "en", task: "Rename the function parseDate to parseIsoDate everywhere" },
  { lang: "en", task: "Write a unit test for the slugify helper" },
  { lang: "en", task: "Add a dark mode toggle to the settings page" },
  { lang: "en", task: "Explain what this regular expression matches: ^a+b?$" },
  { lang: "en", task: "Translate the README introduction into French" },
  { lang: "en", task: "Fix the typo in the footer of the landing page" },
  { lang: "en", task: "Summarise the changes in the last release notes" },
  { lang: "en", task: "Make the login button blue and a bit larger" },
  { lang: "en", task: "Write a SQL query that lists the ten most recent orders" },
  { lang: "en", task: "Sort the list of users by their last name" },
  { lang: "zh", task: "计算这组数字的平均值：3、9、4、1" },
  { lang: "zh", task: "写一首关于大海的诗" },
  { lang: "zh", task: "把首页的标题改成蓝色" },
  { lang: "zh", task: "解释一下这段正则表达式的意思" },
  { lang: "zh", task: "给 slugify 函数写一个单元测试" },
  { lang: "zh", task: "把 README 的介绍翻译成英文" },
  { lang: "zh", task: "帮我总结一下上次发布的更新内容" },
  { lang: "zh", task: "用户列表按姓氏排序" },
];
