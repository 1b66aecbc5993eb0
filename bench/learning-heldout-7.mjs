// HELD OUT, seventh set (learning.mjs --set heldout7). Written on 2026-12-06 (stop 39), before the
// error-time lookup (lessons looked up by a failing command's output) was measured, by someone who
// had not seen that code. Each family: a teaching run (task, the command that failed, its output),
// the lesson a careful model writes from that run alone following reson's reflection prompt
// (condition, rule, keys from the teaching run in its language and English, asks), then probes:
// later tasks worded with no content word in common with the lesson, whose runs hit the same
// trouble with their own output, and one near case (same area, different trouble). Lessons were
// written first, probes after, lessons not edited afterwards. Not to be tuned on.
// HELDOUT7_UNRELATED_ERRORS: failing commands whose trouble no lesson covers.

export const HELDOUT7_FAMILIES = [
  {
    id: "gradle-jdk",
    taughtIn: "en",
    teach: "Build the billing service jar with gradle",
    teachCommand: "./gradlew :billing:bootJar",
    teachError:
      "FAILURE: Build failed with an exception.\n\n* What went wrong:\nA problem occurred configuring root project 'payments'.\n> Could not resolve all files for configuration ':classpath'.\n   > Dependency requires at least JVM runtime version 17. This build uses a Java 11 JVM.\n\nBUILD FAILED in 3s",
    condition:
      "a Gradle build fails because the Spring Boot plugin needs Java 17 but the shell's JAVA_HOME is Java 11",
    rule: "run gradle with JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 (or set org.gradle.java.home in gradle.properties)",
    keys: [
      "Dependency requires at least JVM runtime version 17",
      "This build uses a Java 11 JVM",
      "./gradlew",
      "JAVA_HOME",
      "gradle.properties",
      "bootJar",
    ],
    asks: ["the build complains about the java version", "gradle refuses to start on this machine"],
    probes: [
      {
        lang: "en",
        task: "Package the invoicing microservice for deployment",
        command: "./gradlew :invoice:assemble",
        error:
          "FAILURE: Build failed with an exception.\n\n* What went wrong:\nA problem occurred configuring root project 'ledger'.\n> Could not resolve org.springframework.boot:spring-boot-gradle-plugin:3.2.4.\n     > Dependency requires at least JVM runtime version 17. This build uses a Java 8 JVM.\n\nBUILD FAILED in 1s",
      },
      {
        lang: "zh",
        task: "把对账模块打成可执行包",
        command: "gradle :reconcile:build",
        error:
          "> Task :reconcile:compileJava FAILED\nerror: invalid source release: 17\n\nFAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed for task ':reconcile:compileJava'.\n> error: invalid source release: 17",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Run the billing unit tests",
        command: "./gradlew :billing:test",
        error:
          "BillingServiceTest > refundsPartialAmount() FAILED\n    org.opentest4j.AssertionFailedError: expected: <40.00> but was: <39.99>\n        at BillingServiceTest.java:88\n\n12 tests completed, 1 failed",
      },
    ],
  },
  {
    id: "cargo-openssl",
    taughtIn: "en",
    teach: "Compile the rust crawler in the CI container",
    teachCommand: "cargo build --release",
    teachError:
      "error: failed to run custom build command for `openssl-sys v0.9.102`\n  --- stderr\n  Could not find directory of OpenSSL installation, and this `-sys` crate cannot\n  proceed without this knowledge. If OpenSSL is installed and this crate had\n  trouble finding it,  you can set the `OPENSSL_DIR` environment variable\n  run `pkg-config --libs openssl` failed: The system library `openssl` required by crate `openssl-sys` was not found.",
    condition:
      "cargo build fails in openssl-sys because the container lacks the OpenSSL headers and pkg-config",
    rule: "install pkg-config and libssl-dev (apt-get install -y pkg-config libssl-dev) in the CI image before cargo build",
    keys: [
      "failed to run custom build command for `openssl-sys`",
      "Could not find directory of OpenSSL installation",
      "OPENSSL_DIR",
      "libssl-dev",
      "pkg-config",
      "cargo build",
    ],
    asks: ["rust compile breaks on a fresh image", "the crate needs a system library that is missing"],
    probes: [
      {
        lang: "en",
        task: "Make the webhook relay binary for the slim deploy image",
        command: "cargo install --path relay",
        error:
          "   Compiling openssl-sys v0.9.99\nerror: failed to run custom build command for `openssl-sys v0.9.99`\n  --- stderr\n  thread 'main' panicked at /root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/openssl-sys-0.9.99/build/find_normal.rs:190:5:\n  Could not find openssl via pkg-config:\n  Could not run `PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --libs --cflags openssl`\n  The pkg-config command could not be found.",
      },
      {
        lang: "zh",
        task: "在新装的服务器上编译抓取工具",
        command: "cargo run --bin fetcher",
        error:
          "error: failed to run custom build command for `openssl-sys v0.9.103`\nCaused by:\n  process didn't exit successfully: `/srv/fetcher/target/debug/build/openssl-sys-1c2f/build-script-main` (exit status: 101)\n  openssl-sys@0.9.103: Could not find directory of OpenSSL installation",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Fix the crawler borrow error",
        command: "cargo build",
        error:
          "error[E0502]: cannot borrow `queue` as mutable because it is also borrowed as immutable\n  --> src/crawl.rs:41:9\n   |\n40 |     let head = queue.front();\n41 |     queue.push_back(next);",
      },
    ],
  },
  {
    id: "go-private-module",
    taughtIn: "en",
    teach: "Add the internal auth client to the gateway go module",
    teachCommand: "go get github.com/acme-corp/authclient@v1.4.0",
    teachError:
      "go: github.com/acme-corp/authclient@v1.4.0: verifying module: github.com/acme-corp/authclient@v1.4.0: reading https://sum.golang.org/lookup/github.com/acme-corp/authclient@v1.4.0: 404 Not Found\n\tserver response:\n\tnot found: github.com/acme-corp/authclient@v1.4.0: invalid version: git ls-remote -q origin in /tmp/gopath/pkg/mod/cache/vcs/8e1f: exit status 128:\n\tfatal: could not read Username for 'https://github.com': terminal prompts disabled",
    condition:
      "go get of a private acme-corp module fails because the Go proxy and checksum database cannot see private repositories",
    rule: "set GOPRIVATE=github.com/acme-corp/* (go env -w GOPRIVATE=github.com/acme-corp/*) so the module is fetched directly with git credentials",
    keys: [
      "sum.golang.org/lookup",
      "404 Not Found",
      "terminal prompts disabled",
      "GOPRIVATE",
      "go get",
      "verifying module",
      "github.com/acme-corp",
    ],
    asks: ["our own company packages won't download", "go can't fetch the internal library"],
    probes: [
      {
        lang: "en",
        task: "Pull in the shared metrics helpers that live in our org's repos",
        command: "go mod tidy",
        error:
          "go: finding module for package github.com/acme-corp/telemetry/metrics\ngo: github.com/acme-corp/telemetry@v0.9.2: reading https://proxy.golang.org/github.com/acme-corp/telemetry/@v/v0.9.2.mod: 410 Gone\n\tserver response: not found: github.com/acme-corp/telemetry@v0.9.2: invalid version: unknown revision v0.9.2",
      },
      {
        lang: "zh",
        task: "把公司内部的限流库引进来",
        command: "go build ./...",
        error:
          "main.go:9:2: github.com/acme-corp/ratelimit@v0.3.1: verifying go.mod: github.com/acme-corp/ratelimit@v0.3.1/go.mod: reading https://sum.golang.org/lookup/github.com/acme-corp/ratelimit@v0.3.1: 404 Not Found\n\tserver response: not found: fatal: could not read Username for 'https://github.com': terminal prompts disabled",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Upgrade the gateway to go 1.22",
        command: "go build ./...",
        error: "go: go.mod requires go >= 1.22 (running go 1.21.6; GOTOOLCHAIN=local)",
      },
    ],
  },
  {
    id: "pip-externally-managed",
    taughtIn: "en",
    teach: "Install the report generator's requirements on the new Debian box",
    teachCommand: "pip install -r requirements.txt",
    teachError:
      "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install\n    python3-xyz, where xyz is the package you are trying to\n    install.\n\nnote: If you believe this is a mistake, please contact your Python installation or OS distribution provider. You can override this, at the risk of breaking your Python installation or OS, by passing --break-system-packages.",
    condition:
      "pip install fails with externally-managed-environment on Debian 12 / Ubuntu 24.04 system Python (PEP 668)",
    rule: "create a virtualenv first (python3 -m venv .venv && .venv/bin/pip install -r requirements.txt); do not use --break-system-packages",
    keys: [
      "error: externally-managed-environment",
      "This environment is externally managed",
      "--break-system-packages",
      "pip install -r requirements.txt",
      "python3 -m venv",
      "PEP 668",
    ],
    asks: ["python won't let me add libraries", "installing dependencies is blocked by the OS"],
    probes: [
      {
        lang: "en",
        task: "Set up the scraping notebook tooling on the fresh Ubuntu laptop",
        command: "pip3 install --user pandas jupyter",
        error:
          "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install\n    python3-xyz, where xyz is the package you are trying to\n    install.\n    \n    If you wish to install a non-Ubuntu-packaged Python package,\n    create a virtual environment using python3 -m venv path/to/venv.",
      },
      {
        lang: "zh",
        task: "在新机器上装好爬虫脚本要用的第三方库",
        command: "python3 -m pip install httpx==0.27.0",
        error:
          "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> See /usr/share/doc/python3.12/README.venv for more information.",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Install the report generator's requirements",
        command: ".venv/bin/pip install -r requirements.txt",
        error:
          "ERROR: Could not find a version that satisfies the requirement weasyprint==52.9 (from versions: 60.1, 60.2, 61.0)\nERROR: No matching distribution found for weasyprint==52.9",
      },
    ],
  },
  {
    id: "compose-port-in-use",
    taughtIn: "en",
    teach: "Start the local stack with docker compose",
    teachCommand: "docker compose up -d",
    teachError:
      "[+] Running 2/3\n ✔ Network shop_default  Created\n ✔ Container shop-redis-1  Started\n ✘ Container shop-db-1  Error\nError response from daemon: driver failed programming external connectivity on endpoint shop-db-1 (3f9c…): Bind for 0.0.0.0:5432 failed: port is already allocated",
    condition:
      "docker compose up fails because host port 5432 is already taken by a Postgres installed on the host",
    rule: 'stop the host postgres (sudo systemctl stop postgresql) or map the container to another host port ("5433:5432") in docker-compose.yml',
    keys: [
      "port is already allocated",
      "Bind for 0.0.0.0:5432 failed",
      "driver failed programming external connectivity",
      "docker compose up",
      "docker-compose.yml",
      "systemctl stop postgresql",
    ],
    asks: ["the containers won't come up, something else holds the port", "local environment fails to start"],
    probes: [
      {
        lang: "en",
        task: "Spin up the analytics sandbox so I can try the dashboards",
        command: "docker run -d -p 3000:3000 grafana/grafana",
        error:
          "docker: Error response from daemon: driver failed programming external connectivity on endpoint eager_hopper (a81d2e0c): Error starting userland proxy: listen tcp4 0.0.0.0:3000: bind: address already in use.",
      },
      {
        lang: "zh",
        task: "把消息队列和缓存在本地跑起来",
        command: "docker-compose up rabbitmq",
        error:
          "Creating mq_rabbitmq_1 ... error\nERROR: for rabbitmq  Cannot start service rabbitmq: driver failed programming external connectivity on endpoint mq_rabbitmq_1: Bind for 0.0.0.0:5672 failed: port is already allocated\nERROR: Encountered errors while bringing up the project.",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Start the local stack with docker compose",
        command: "docker compose up -d",
        error:
          "Error response from daemon: pull access denied for shop/api, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
      },
    ],
  },
  {
    id: "k8s-imagepull",
    taughtIn: "en",
    teach: "Roll out the new worker deployment to the staging cluster",
    teachCommand: "kubectl rollout status deploy/worker -n staging",
    teachError:
      'Waiting for deployment "worker" rollout to finish: 0 of 2 updated replicas are available...\nerror: deployment "worker" exceeded its progress deadline\n$ kubectl get pods -n staging\nNAME                      READY   STATUS             RESTARTS   AGE\nworker-7d9f8c6b5-x2kqp    0/1     ImagePullBackOff   0          10m',
    condition:
      "pods stay in ImagePullBackOff because the staging namespace has no pull secret for the private registry",
    rule: "create the regcred secret in the namespace (kubectl create secret docker-registry regcred …) and set imagePullSecrets: [{name: regcred}] in the deployment",
    keys: [
      "ImagePullBackOff",
      "exceeded its progress deadline",
      "kubectl rollout status",
      "imagePullSecrets",
      "regcred",
      "private registry",
    ],
    asks: ["new pods never become ready", "the cluster can't download our container"],
    probes: [
      {
        lang: "en",
        task: "Ship the nightly export cronjob to production",
        command: "kubectl describe pod export-28391040-m4kzd -n prod",
        error:
          'Events:\n  Warning  Failed     12s (x3 over 50s)  kubelet  Failed to pull image "registry.acme.io/export:2.3.1": rpc error: code = Unknown desc = failed to pull and unpack image: failed to resolve reference: pulling from host registry.acme.io failed with status code [manifests 2.3.1]: 401 Unauthorized\n  Warning  Failed     12s (x3 over 50s)  kubelet  Error: ErrImagePull',
      },
      {
        lang: "zh",
        task: "把结算服务发到预发环境",
        command: "kubectl get pods -n pre",
        error:
          "NAME                          READY   STATUS         RESTARTS   AGE\nsettle-5b7c9d8f4-qq8wn        0/1     ErrImagePull   0          40s\nsettle-5b7c9d8f4-t7zcv        0/1     ImagePullBackOff   0      40s",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Roll out the worker deployment",
        command: "kubectl get pods -n staging",
        error:
          "NAME                      READY   STATUS             RESTARTS      AGE\nworker-6c4b7f9d8-pz1ld    0/1     CrashLoopBackOff   5 (30s ago)   4m",
      },
    ],
  },
  {
    id: "nginx-413",
    taughtIn: "en",
    teach: "Users cannot upload videos larger than a megabyte",
    teachCommand: "curl -i -F file=@clip.mp4 https://media.example.com/api/upload",
    teachError:
      "HTTP/1.1 413 Request Entity Too Large\nServer: nginx/1.24.0\nContent-Type: text/html\n\n<html>\n<head><title>413 Request Entity Too Large</title></head>\n<body>\n<center><h1>413 Request Entity Too Large</h1></center>",
    condition: "uploads over 1 MB are rejected by nginx with 413 because client_max_body_size defaults to 1m",
    rule: "set client_max_body_size 200m; in the server block of /etc/nginx/sites-available/media and reload nginx (nginx -t && systemctl reload nginx)",
    keys: [
      "413 Request Entity Too Large",
      "client_max_body_size",
      "nginx",
      "/etc/nginx/sites-available/media",
      "upload",
      "nginx -t",
    ],
    asks: ["big files fail to upload", "sending a large attachment errors"],
    probes: [
      {
        lang: "en",
        task: "Importing the yearly spreadsheet through the admin page breaks",
        command: "tail -n 2 /var/log/nginx/error.log",
        error:
          '2026/12/05 09:14:22 [error] 1187#1187: *5521 client intended to send too large body: 8388608 bytes, client: 10.0.3.7, server: admin.internal, request: "POST /import HTTP/1.1", host: "admin.internal"',
      },
      {
        lang: "zh",
        task: "客户提交附件时一直失败",
        command: "curl -s -o /dev/null -w '%{http_code}' -T contract.pdf https://portal.example.cn/files",
        error: "413",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Uploads time out",
        command: "curl -i https://media.example.com/api/upload",
        error:
          "HTTP/1.1 504 Gateway Time-out\nServer: nginx/1.24.0\n\n<html><head><title>504 Gateway Time-out</title></head>",
      },
    ],
  },
  {
    id: "tls-chain",
    taughtIn: "en",
    teach: "The payment webhook from our partner fails TLS verification against api.shop.example",
    teachCommand: "curl -v https://api.shop.example/health",
    teachError:
      "* SSL certificate problem: unable to get local issuer certificate\n* Closing connection 0\ncurl: (60) SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html",
    condition:
      "clients reject the server's certificate because nginx serves only the leaf cert without the intermediate chain",
    rule: "point ssl_certificate at fullchain.pem (leaf + intermediates) instead of cert.pem and reload; verify with openssl s_client -connect host:443 -showcerts",
    keys: [
      "unable to get local issuer certificate",
      "curl: (60)",
      "SSL certificate problem",
      "fullchain.pem",
      "ssl_certificate",
      "openssl s_client",
    ],
    asks: ["some clients say our https is not trusted", "webhooks from partners fail the secure connection"],
    probes: [
      {
        lang: "en",
        task: "The Android app can't reach the loyalty backend but browsers can",
        command: "node -e \"require('https').get('https://loyalty.example.net')\"",
        error:
          "node:events:497\n      throw er; // Unhandled 'error' event\n      ^\n\nError: unable to verify the first certificate\n    at TLSSocket.onConnectSecureDone (node:_tls_wrap:1674:34)\n  code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'",
      },
      {
        lang: "zh",
        task: "合作方回调我们接口时报握手失败",
        command: "python3 -c \"import requests; requests.get('https://notify.example.cn')\"",
        error:
          "requests.exceptions.SSLError: HTTPSConnectionPool(host='notify.example.cn', port=443): Max retries exceeded with url: / (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))",
      },
    ],
    near: [
      {
        lang: "en",
        task: "Health check of api.shop.example fails",
        command: "curl -v https://api.shop.example/health",
        error:
          "curl: (60) SSL: no alternative certificate subject name matches target host name 'api.shop.example'",
      },
    ],
  },
  {
    id: "mysql-caching-sha2",
    taughtIn: "zh",
    teach: "老的 PHP 后台连不上新装的 MySQL 8 了",
    teachCommand: "php artisan migrate",
    teachError:
      "   Illuminate\\Database\\QueryException \n\n  SQLSTATE[HY000] [2054] The server requested authentication method unknown to the client (SQL: select * from information_schema.tables where table_schema = crm and table_name = migrations)\n\n  at vendor/laravel/framework/src/Illuminate/Database/Connection.php:671",
    condition:
      "旧版 PHP/客户端连接 MySQL 8 时，因为默认认证插件是 caching_sha2_password，客户端不支持而登录失败",
    rule: "把该账号改成 mysql_native_password：ALTER USER 'crm'@'%' IDENTIFIED WITH mysql_native_password BY '…'; 或升级客户端驱动",
    keys: [
      "The server requested authentication method unknown to the client",
      "SQLSTATE[HY000] [2054]",
      "caching_sha2_password",
      "mysql_native_password",
      "php artisan migrate",
      "MySQL 8 认证方式",
      "老后台连不上数据库",
    ],
    asks: ["升级数据库以后程序登录不了", "app can't log in to the database after the upgrade"],
    probes: [
      {
        lang: "en",
        task: "The legacy inventory scripts stopped working once ops moved us to the new DB host",
        command: "node sync-stock.js",
        error:
          "Error: ER_NOT_SUPPORTED_AUTH_MODE: Client does not support authentication protocol requested by server; consider upgrading MySQL client\n    at Handshake.Sequence._packetToError (/opt/stock/node_modules/mysql/lib/protocol/sequences/Sequence.js:47:14)\n  code: 'ER_NOT_SUPPORTED_AUTH_MODE',\n  errno: 1251,\n  sqlState: '08004'",
      },
      {
        lang: "zh",
        task: "报表工具换到新机房以后取不到数",
        command: "python3 export_report.py",
        error:
          "pymysql.err.OperationalError: (2059, \"Authentication plugin 'caching_sha2_password' cannot be loaded: /usr/lib/x86_64-linux-gnu/mariadb19/plugin/caching_sha2_password.so: cannot open shared object file: No such file or directory\")",
      },
    ],
    near: [
      {
        lang: "zh",
        task: "后台连不上 MySQL",
        command: "mysql -h db.internal -u crm -p",
        error: "ERROR 1045 (28000): Access denied for user 'crm'@'10.0.2.15' (using password: YES)",
      },
    ],
  },
  {
    id: "terraform-state-lock",
    taughtIn: "zh",
    teach: "用 terraform 给测试环境加一个 S3 桶",
    teachCommand: "terraform apply -auto-approve",
    teachError:
      "╷\n│ Error: Error acquiring the state lock\n│ \n│ Error message: ConditionalCheckFailedException: The conditional request failed\n│ Lock Info:\n│   ID:        6b1f2c1e-93c4-8d77-0a41-5e2f3d9b7a10\n│   Path:      acme-tfstate/test/terraform.tfstate\n│   Operation: OperationTypeApply\n│   Who:       ci@runner-12\n╵",
    condition: "terraform apply 报 state lock 被占用，是之前中断的 CI 任务留下的 DynamoDB 锁",
    rule: "确认没有别的 apply 在跑后，用 terraform force-unlock <锁 ID> 释放锁再重试",
    keys: [
      "Error acquiring the state lock",
      "ConditionalCheckFailedException",
      "terraform force-unlock",
      "Lock Info",
      "状态锁被占用",
      "terraform apply",
      "DynamoDB lock",
    ],
    asks: ["基础设施变更卡住执行不了", "infra changes are blocked by another run"],
    probes: [
      {
        lang: "en",
        task: "Resize the production database instance class",
        command: "terraform plan -out=tf.plan",
        error:
          "╷\n│ Error: Error acquiring the state lock\n│ \n│ Error message: resource temporarily unavailable\n│ Lock Info:\n│   ID:        a3c09e77-1d2b-40f1-b8c5-77e0d1f4c2aa\n│   Path:      terraform.tfstate\n│   Operation: OperationTypePlan\n│   Who:       dana@laptop\n│   Created:   2026-12-05 17:02:11 UTC\n╵",
      },
      {
        lang: "zh",
        task: "给预发的负载均衡加一条监听规则",
        command: "terragrunt apply",
        error:
          'Error: Error locking state: Error acquiring the state lock: writing "gs://infra-state/pre/lb/default.tflock" failed: googleapi: Error 412: At least one of the pre-conditions you specified did not hold., conditionNotMet\nLock Info:\n  ID:        1733390000123456',
      },
    ],
    near: [
      {
        lang: "zh",
        task: "terraform 加桶失败",
        command: "terraform apply",
        error:
          "│ Error: creating S3 Bucket (acme-test-assets): BucketAlreadyExists: The requested bucket name is not available.",
      },
    ],
  },
  {
    id: "vite-env-prefix",
    taughtIn: "zh",
    teach: "前端页面读不到 .env 里配置的接口地址",
    teachCommand:
      "npm run build && node -e \"console.log(require('fs').readFileSync('dist/assets/index.js','utf8').includes('API_BASE'))\"",
    teachError:
      "vite v5.2.8 building for production...\n✓ 212 modules transformed.\ndist/assets/index-4f1c2a.js  148.20 kB │ gzip: 48.11 kB\n✓ built in 2.31s\n浏览器控制台: GET http://localhost:4173/undefined/users 404 (Not Found)",
    condition:
      "Vite 只把以 VITE_ 开头的环境变量暴露给前端，.env 里的 API_BASE 在 import.meta.env 中是 undefined",
    rule: "把变量改名为 VITE_API_BASE，代码里用 import.meta.env.VITE_API_BASE，改完重新 build",
    keys: [
      "import.meta.env",
      "VITE_ 前缀",
      "undefined/users",
      "API_BASE",
      ".env",
      "环境变量读不到",
      "vite build",
    ],
    asks: ["配置的地址在页面里是空的", "the frontend ignores the setting in the env file"],
    probes: [
      {
        lang: "en",
        task: "The map widget shows a blank tile layer on the deployed preview",
        command: "npx vite preview",
        error:
          "  ➜  Local:   http://localhost:4173/\n[browser] GET https://tiles.example.com/undefined/12/2048/1361.png 401 (Unauthorized)\n[browser] Uncaught TypeError: Cannot read properties of undefined (reading 'MAPBOX_TOKEN') at main.ts:14",
      },
      {
        lang: "zh",
        task: "埋点 SDK 初始化时拿不到密钥",
        command: "pnpm dev",
        error:
          "  VITE v5.4.1  ready in 412 ms\n[browser] analytics.ts:7 Uncaught Error: [tracker] appKey is required, got undefined\n    at init (analytics.ts:7:11)",
      },
    ],
    near: [
      {
        lang: "zh",
        task: "前端打包失败",
        command: "npm run build",
        error:
          '[vite]: Rollup failed to resolve import "@/api/users" from "src/pages/List.vue".\nThis is most likely unintended because it can break your application at runtime.',
      },
    ],
  },
  {
    id: "android-sdk-location",
    taughtIn: "zh",
    teach: "在 CI 上打安卓的 debug 包",
    teachCommand: "./gradlew assembleDebug",
    teachError:
      "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not determine the dependencies of task ':app:compileDebugJavaWithJavac'.\n> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable or by setting the sdk.dir path in your project's local properties file at '/builds/mobile/local.properties'.",
    condition: "CI 机器上没有 local.properties，也没设置 ANDROID_HOME，Gradle 找不到 Android SDK",
    rule: "在 CI 脚本里 export ANDROID_HOME=/opt/android-sdk（或写 sdk.dir 到 local.properties），不要把 local.properties 提交进仓库",
    keys: [
      "SDK location not found",
      "ANDROID_HOME",
      "sdk.dir",
      "local.properties",
      "./gradlew assembleDebug",
      "安卓 SDK 找不到",
      "CI 打包失败",
    ],
    asks: ["流水线上编译手机应用失败", "the app build can't find the android tools"],
    probes: [
      {
        lang: "en",
        task: "Produce a signed release bundle of the tablet app on the new build agent",
        command: "./gradlew bundleRelease",
        error:
          "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not determine the dependencies of task ':tablet:bundleReleaseResources'.\n> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable or by setting the sdk.dir path in your project's local properties file at '/home/agent/work/tablet/local.properties'.",
      },
      {
        lang: "zh",
        task: "新同事第一次跑起来手表端工程就报错",
        command: "flutter build apk",
        error:
          "[!] No Android SDK found. Try setting the ANDROID_HOME environment variable.\nError: No Android SDK found. Try setting the ANDROID_HOME environment variable.",
      },
    ],
    near: [
      {
        lang: "zh",
        task: "安卓 debug 包编译失败",
        command: "./gradlew assembleDebug",
        error:
          "> Task :app:mergeDebugResources FAILED\nERROR: /builds/mobile/app/src/main/res/layout/activity_main.xml:12: AAPT: error: resource drawable/ic_logo (aka com.acme.app:drawable/ic_logo) not found.",
      },
    ],
  },
];

export const HELDOUT7_UNRELATED_ERRORS = [
  {
    lang: "en",
    task: "Load the sample fixtures",
    command: "node scripts/seed.js",
    error:
      "node:internal/fs/utils:356\n    throw err;\n    ^\n\nError: ENOENT: no such file or directory, open '/app/fixtures/users.json'\n  errno: -2,\n  code: 'ENOENT'",
  },
  {
    lang: "en",
    task: "Format the repo",
    command: "prettier --write .",
    error: "bash: prettier: command not found",
  },
  {
    lang: "zh",
    task: "修复折扣计算",
    command: "npx vitest run src/price.test.ts",
    error:
      " FAIL  src/price.test.ts > applyDiscount > rounds to cents\nAssertionError: expected 19.9 to be 19.99 // Object.is equality\n ❯ src/price.test.ts:22:31\n\n Test Files  1 failed (1)\n      Tests  1 failed | 8 passed (9)",
  },
  {
    lang: "en",
    task: "Add the customer filter",
    command: "npx tsc --noEmit",
    error:
      "src/customers/filter.ts:31:7 - error TS2322: Type 'string | undefined' is not assignable to type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\n\nFound 1 error in src/customers/filter.ts:31",
  },
  {
    lang: "en",
    task: "Run the API locally",
    command: "npm run dev",
    error:
      "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  errno: -111,\n  code: 'ECONNREFUSED',\n  syscall: 'connect',\n  address: '127.0.0.1',\n  port: 5432\n}",
  },
  {
    lang: "zh",
    task: "部署静态页面",
    command: "cp -r dist/* /var/www/html/",
    error: "cp: cannot create regular file '/var/www/html/index.html': Permission denied",
  },
  {
    lang: "en",
    task: "Rebase the feature branch on main",
    command: "git rebase main",
    error:
      'Auto-merging src/checkout/cart.ts\nCONFLICT (content): Merge conflict in src/checkout/cart.ts\nerror: could not apply 3e1a9c2... cart: keep coupon on reload\nhint: Resolve all conflicts manually, mark them as resolved with\nhint: "git add/rm <conflicted_files>", then run "git rebase --continue".',
  },
  {
    lang: "en",
    task: "Clean up the upload handler",
    command: "npx eslint src/upload",
    error:
      "/app/src/upload/handler.ts\n  14:9  error  'size' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)",
  },
  {
    lang: "zh",
    task: "跑一遍全量数据导出",
    command: "python3 export_all.py",
    error:
      "Killed\n$ dmesg | tail -1\n[83412.551203] Out of memory: Killed process 20411 (python3) total-vm:9123456kB, anon-rss:7890123kB",
  },
  {
    lang: "en",
    task: "Check the release notes endpoint",
    command: "curl -fsS https://api.example.com/v2/releases/latest",
    error: "curl: (22) The requested URL returned error: 404",
  },
  {
    lang: "en",
    task: "Build the gateway",
    command: "go build ./...",
    error:
      "# github.com/acme-corp/gateway/internal/proxy\ninternal/proxy/route.go:57:14: undefined: rewritePath",
  },
  {
    lang: "en",
    task: "Add retries to the crawler",
    command: "cargo test",
    error:
      "---- fetch::tests::retries_three_times stdout ----\nthread 'fetch::tests::retries_three_times' panicked at src/fetch.rs:120:9:\nassertion `left == right` failed\n  left: 2\n right: 3\n\nfailures:\n    fetch::tests::retries_three_times\n\ntest result: FAILED. 14 passed; 1 failed",
  },
  {
    lang: "zh",
    task: "给报表加一个字段",
    command: "python3 -m pytest tests/test_report.py",
    error:
      "E       KeyError: 'region'\n\ntests/test_report.py:41: KeyError\n=========================== short test summary info ============================\nFAILED tests/test_report.py::test_totals_by_region - KeyError: 'region'",
  },
  {
    lang: "en",
    task: "Start the stack",
    command: "docker compose up -d",
    error: "no configuration file provided: not found",
  },
  {
    lang: "en",
    task: "Apply the new config map",
    command: "kubectl apply -f k8s/configmap.yaml",
    error:
      "error: error parsing k8s/configmap.yaml: error converting YAML to JSON: yaml: line 14: did not find expected key",
  },
  {
    lang: "zh",
    task: "重载网关配置",
    command: "nginx -t",
    error:
      'nginx: [emerg] unexpected "}" in /etc/nginx/conf.d/gateway.conf:42\nnginx: configuration file /etc/nginx/nginx.conf test failed',
  },
  {
    lang: "en",
    task: "Run the migration",
    command: "npx prisma migrate deploy",
    error:
      "Error: P3009\n\nmigrate found failed migrations in the target database, new migrations will not be applied.\nThe `20261201_add_orders_index` migration started at 2026-12-01 10:02:11 UTC failed",
  },
  {
    lang: "en",
    task: "Push the release tag",
    command: "git push origin v2.4.0",
    error:
      "To github.com:acme-corp/shop.git\n ! [rejected]        v2.4.0 -> v2.4.0 (already exists)\nerror: failed to push some refs to 'github.com:acme-corp/shop.git'\nhint: Updates were rejected because the tag already exists in the remote.",
  },
  {
    lang: "zh",
    task: "启动后端服务",
    command: "java -jar build/libs/billing.jar",
    error:
      "***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\nWeb server failed to start. Port 8080 was already in use.",
  },
  {
    lang: "en",
    task: "Parse the settings file",
    command: "node scripts/check-config.js",
    error:
      'undefined:1\n{"timeout": 30,}\n               ^\n\nSyntaxError: Expected double-quoted property name in JSON at position 15 (line 1 column 16)\n    at JSON.parse (<anonymous>)',
  },
];
