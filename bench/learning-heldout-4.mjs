// HELD OUT, fourth set (learning.mjs --set heldout4). Written on 2026-12-05 (evening) and
// committed before any change to retrieval in that round; measured on main first. Tuning uses
// learning-families.mjs and the first three held-out sets (all looked at by now); this set's
// cases are not looked at before the final run of a build.
//
// Same shape as learning-heldout-3.mjs: each family is a teaching run and the reflection a
// careful model would write from that run alone, following reson's reflection prompt
// (`ADD: WHEN <condition> THEN <rule> KEYS: …`):
//   keys: what the teaching run showed (the error, commands, files, the task's words), in the
//     teaching task's language and in English;
//   otherKeys: what such a model adds when the request lists the project's languages (English
//     and Chinese) rather than the task's own;
//   asks: two or three rewordings a future task could use (symptoms, the user's words), as the
//     prompt asks for them.
// The lessons were written first, the probes after:
//   taught   - the teaching trouble told again, in the teaching language
//   reworded - the same trouble described differently (may share words), one English, one Chinese
//   far      - the same trouble sharing no content word with condition, rule, keys and
//              otherKeys, one English, one Chinese (checked with reson's own term cutting); the
//              asks were not consulted
//   near     - a task sharing words with the lesson that needs no lesson
// 16 families, 6 of them taught in Chinese; HELDOUT4_UNRELATED: 24 tasks needing no lesson,
// a few of them reporting a trouble of their own that no lesson covers.

export const HELDOUT4_FAMILIES = [
  {
    id: "presigned-expiry",
    taughtIn: "en",
    teach:
      "Download links from getSignedUrl stop working after about an hour although expiresIn is 604800; S3 answers ExpiredToken",
    condition:
      "an S3 presigned URL expires long before its expiresIn because it was signed with temporary role credentials",
    rule: "sign download URLs with credentials that live as long as the link (a dedicated IAM user), or keep expiresIn under the session's lifetime and re-sign on request",
    keys: [
      "ExpiredToken",
      "getSignedUrl",
      "presigned URL expires early",
      "expiresIn",
      "temporary credentials",
      "S3 download link",
    ],
    otherKeys: ["预签名链接提前失效", "S3 下载链接过期"],
    asks: [
      "shared file links die after an hour",
      "customers get access denied on links we emailed yesterday",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "getSignedUrl links return ExpiredToken after an hour even with expiresIn set to a week",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Our S3 presigned URLs expire much earlier than the expiry we asked for",
      },
      { lang: "zh", kind: "reworded", task: "S3 的预签名 URL 设置了七天，结果一个小时就过期了" },
      {
        lang: "en",
        kind: "far",
        task: "Attachments we mailed to clients this morning can no longer be opened by lunchtime",
      },
      { lang: "zh", kind: "far", task: "早上发给客户的附件地址，中午再点就打不开了" },
      { lang: "en", kind: "near", task: "Add an expiresIn option to the upload helper" },
    ],
  },
  {
    id: "android-cleartext",
    taughtIn: "en",
    teach:
      "The Android app cannot reach http://api.dev.local: java.io.IOException: Cleartext HTTP traffic to api.dev.local not permitted",
    condition: "an Android app on API level 28 or later blocks plain http requests to a host",
    rule: "serve the api over https, or for the dev host only add a network_security_config.xml with cleartextTrafficPermitted for that domain and reference it from AndroidManifest.xml",
    keys: [
      "Cleartext HTTP traffic not permitted",
      "network_security_config.xml",
      "AndroidManifest.xml",
      "Android http request blocked",
      "cleartextTrafficPermitted",
    ],
    otherKeys: ["安卓不允许明文 HTTP", "安卓请求 http 失败"],
    asks: [
      "the phone app cannot talk to our test server",
      "requests work in the emulator on old versions but not on new phones",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Cleartext HTTP traffic to api.dev.local not permitted again in the Android build",
      },
      { lang: "en", kind: "reworded", task: "Android refuses plain http calls to our dev api" },
      { lang: "zh", kind: "reworded", task: "安卓 App 访问 http 接口报 Cleartext traffic not permitted" },
      {
        lang: "en",
        kind: "far",
        task: "On recent Pixel phones our mobile client cannot connect to the staging box",
      },
      { lang: "zh", kind: "far", task: "新款手机上我们的客户端连不上测试服务器，老手机却正常" },
      { lang: "en", kind: "near", task: "Add a dark theme to the Android app's AndroidManifest.xml" },
    ],
  },
  {
    id: "stale-bundle",
    taughtIn: "en",
    teach:
      "After the deploy users still get the old app.js and the page breaks until they hard refresh; index.html is served with Cache-Control: max-age=86400",
    condition:
      "browsers keep running the previous front-end bundle after a deploy because index.html is cached",
    rule: "serve index.html with Cache-Control: no-cache and give bundles content-hashed file names (app.[contenthash].js) cached for a year",
    keys: [
      "old app.js after deploy",
      "hard refresh",
      "Cache-Control no-cache",
      "index.html cached",
      "contenthash",
      "browser cache",
    ],
    otherKeys: ["发布后还是旧版本", "浏览器缓存"],
    asks: [
      "people see yesterday's version of the site",
      "a fix we released does not reach users until they clear their history",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Users get the old app.js after the deploy until they hard refresh",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The browser caches index.html so the new front-end release does not show up",
      },
      { lang: "zh", kind: "reworded", task: "前端发布以后浏览器还在用旧的 js，要强制刷新才行" },
      {
        lang: "en",
        kind: "far",
        task: "We shipped the fix an hour ago, yet visitors still see the broken screen unless they press Ctrl+F5",
      },
      { lang: "zh", kind: "far", task: "修好的页面已经上线，顾客那边看到的依然是坏掉的界面" },
      { lang: "en", kind: "near", task: "Rename app.js to main.js in the webpack config" },
    ],
  },
  {
    id: "submodule-empty",
    taughtIn: "en",
    teach:
      "make fails on a fresh clone: fatal error: vendor/libuv/include/uv.h: No such file or directory; the vendor/libuv folder is empty",
    condition: "a fresh clone builds nothing because its git submodules were never checked out",
    rule: "clone with git clone --recurse-submodules, or run git submodule update --init --recursive before make (the CI checkout needs submodules: recursive too)",
    keys: [
      "git submodule update --init",
      "--recurse-submodules",
      "vendor/libuv empty",
      "uv.h: No such file or directory",
      "fresh clone build fails",
    ],
    otherKeys: ["子模块没有拉下来", "vendor 目录是空的"],
    asks: ["a new teammate cannot build the project after cloning", "a third-party folder has nothing in it"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "Fresh clone fails with uv.h: No such file or directory, vendor/libuv is empty",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "The vendored library folder is empty after cloning so the build breaks",
      },
      { lang: "zh", kind: "reworded", task: "新 clone 的仓库编译失败，vendor 下的子模块目录是空的" },
      {
        lang: "en",
        kind: "far",
        task: "A newcomer fetched our repository and the compiler cannot locate a header from a bundled dependency",
      },
      { lang: "zh", kind: "far", task: "新同事拿到代码后一编译就提示缺头文件，第三方库那块什么都没有" },
      { lang: "en", kind: "near", task: "Upgrade libuv to the latest release" },
    ],
  },
  {
    id: "webhook-raw-body",
    taughtIn: "en",
    teach:
      "Stripe webhook handler throws: No signatures found matching the expected signature for payload; express.json() runs before the route",
    condition: "verifying a webhook signature fails because the body was parsed as JSON before the check",
    rule: "mount express.raw({ type: 'application/json' }) on the webhook route before express.json() and pass the raw Buffer to stripe.webhooks.constructEvent",
    keys: [
      "No signatures found matching the expected signature",
      "constructEvent",
      "express.raw",
      "webhook signature",
      "raw body",
      "Stripe webhook",
    ],
    otherKeys: ["webhook 签名校验失败", "原始请求体"],
    asks: ["payment notifications are rejected as forged", "the provider's callbacks never get accepted"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "The Stripe webhook again fails with No signatures found matching the expected signature",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Webhook signature check fails because express parses the body first",
      },
      { lang: "zh", kind: "reworded", task: "Stripe 的 webhook 验签一直失败，说签名不匹配" },
      {
        lang: "en",
        kind: "far",
        task: "Every charge event the billing vendor posts to us is rejected as tampered",
      },
      { lang: "zh", kind: "far", task: "支付平台推过来的扣款通知，我们这边全当成伪造的拒掉了" },
      { lang: "en", kind: "near", task: "Add a Stripe webhook for subscription cancellations" },
    ],
  },
  {
    id: "bigint-ids",
    taughtIn: "en",
    teach:
      "Order 1234567890123456789 opens the wrong order: JSON.parse turns the id into 1234567890123456800 in the browser",
    condition: "64-bit integer ids lose precision when JavaScript parses them as numbers",
    rule: "send ids as strings in the API responses (serialize Long as string on the server), and keep them as strings in the client",
    keys: [
      "JSON.parse loses precision",
      "64-bit id",
      "Number.MAX_SAFE_INTEGER",
      "id changes in the browser",
      "serialize Long as string",
    ],
    otherKeys: ["长整型 id 精度丢失", "前端 id 不对"],
    asks: ["clicking an item opens a different one", "the last digits of a number are replaced by zeros"],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "JSON.parse changes order id 1234567890123456789 into 1234567890123456800",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Large numeric ids from the API come out slightly different in JavaScript",
      },
      { lang: "zh", kind: "reworded", task: "后端返回的 long 类型 id 到了前端精度丢失，末尾变成 00" },
      {
        lang: "en",
        kind: "far",
        task: "Tapping a purchase in the list shows somebody else's purchase, the trailing digits are rounded",
      },
      { lang: "zh", kind: "far", task: "点列表里的订单打开的却是别人的，编号最后几位都成了零" },
      { lang: "en", kind: "near", task: "Add pagination by id to the orders endpoint" },
    ],
  },
  {
    id: "arm-image",
    taughtIn: "en",
    teach:
      "The image built on my M1 MacBook fails on the server: exec /usr/local/bin/docker-entrypoint.sh: exec format error",
    condition: "a Docker image built on an Apple Silicon Mac is arm64 and cannot run on an amd64 server",
    rule: "build with docker buildx build --platform linux/amd64 (or both platforms) before pushing",
    keys: [
      "exec format error",
      "docker buildx --platform linux/amd64",
      "M1 MacBook",
      "arm64 image",
      "Apple Silicon",
    ],
    otherKeys: ["镜像架构不对", "苹果芯片打的镜像"],
    asks: [
      "the container dies at once in production but runs on my laptop",
      "the new laptop makes images the server cannot start",
    ],
    probes: [
      {
        lang: "en",
        kind: "taught",
        task: "exec format error again when the server runs the image I built on the M1",
      },
      {
        lang: "en",
        kind: "reworded",
        task: "Docker images from my Apple Silicon Mac crash on the amd64 host",
      },
      {
        lang: "zh",
        kind: "reworded",
        task: "在 M1 Mac 上 build 的 docker 镜像到服务器上报 exec format error",
      },
      {
        lang: "en",
        kind: "far",
        task: "Since I switched to the new laptop, the container I publish quits instantly on the cloud VM",
      },
      { lang: "zh", kind: "far", task: "换了新笔记本后推上去的容器，在云主机上一启动就退出" },
      { lang: "en", kind: "near", task: "Add a healthcheck to the Dockerfile" },
    ],
  },
  {
    id: "exif-rotation",
    taughtIn: "en",
    teach:
      "Photos uploaded from iPhones show up sideways in thumbnails; sharp resize drops the EXIF Orientation tag",
    condition: "resized phone photos appear rotated because the EXIF orientation is not applied",
    rule: "call sharp(input).rotate() with no arguments before resize so the EXIF Orientation is applied, in src/images/thumbnail.ts",
    keys: [
      "EXIF Orientation",
      "sharp rotate()",
      "thumbnails sideways",
      "iPhone photos rotated",
      "src/images/thumbnail.ts",
    ],
    otherKeys: ["图片方向不对", "缩略图被旋转"],
    asks: [
      "pictures from phones come out lying on their side",
      "portraits turn into landscapes after upload",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "iPhone photos are sideways in the thumbnails again" },
      { lang: "en", kind: "reworded", task: "Resized images lose their orientation and show rotated" },
      { lang: "zh", kind: "reworded", task: "手机拍的照片上传后缩略图是横着的" },
      {
        lang: "en",
        kind: "far",
        task: "Selfies people post are tipped over by ninety degrees in the gallery",
      },
      { lang: "zh", kind: "far", task: "用户发的自拍在相册页歪了九十度" },
      { lang: "en", kind: "near", task: "Generate WebP thumbnails with sharp" },
    ],
  },
  {
    id: "unicode-nfc",
    taughtIn: "en",
    teach:
      "Files named Résumé.pdf uploaded from macOS are not found by name: the stored name is in NFD, the lookup string in NFC",
    condition: "names with accents do not compare equal because one is Unicode NFD (macOS) and the other NFC",
    rule: "normalize file names with name.normalize('NFC') when storing and when looking up",
    keys: [
      "Unicode normalization",
      "NFC NFD",
      "normalize('NFC')",
      "accented file names not found",
      "macOS file names",
    ],
    otherKeys: ["带重音的文件名找不到", "Unicode 规范化"],
    asks: ["a name that looks identical does not match", "search misses words with special letters"],
    probes: [
      { lang: "en", kind: "taught", task: "Résumé.pdf from a Mac is not found by name again" },
      {
        lang: "en",
        kind: "reworded",
        task: "Accented file names from macOS do not match the same name typed in the app",
      },
      { lang: "zh", kind: "reworded", task: "Mac 上传的带重音符号的文件名，用同样的名字查不到" },
      {
        lang: "en",
        kind: "far",
        task: "Two strings that print identically, like café, are treated as different by our lookup",
      },
      { lang: "zh", kind: "far", task: "两段看着一模一样的字符串，比较起来却说不相等" },
      { lang: "en", kind: "near", task: "Allow PDF files in the upload form" },
    ],
  },
  {
    id: "github-rate-limit",
    taughtIn: "en",
    teach:
      "scripts/changelog.mjs fails in CI with HTTP 403: API rate limit exceeded for 52.14.3.9 when it lists pull requests",
    condition: "a CI script calls the GitHub API without a token and hits the unauthenticated rate limit",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression in the lesson's text
    rule: "pass GITHUB_TOKEN to the script (env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}) and send it as Authorization: Bearer",
    keys: [
      "API rate limit exceeded",
      "HTTP 403",
      "GITHUB_TOKEN",
      "scripts/changelog.mjs",
      "GitHub API without token",
    ],
    otherKeys: ["GitHub 接口限流", "CI 里 403"],
    asks: [
      "the release notes job fails at random on busy days",
      "a script that talks to the code host is refused",
    ],
    probes: [
      { lang: "en", kind: "taught", task: "changelog.mjs hits API rate limit exceeded in CI again" },
      {
        lang: "en",
        kind: "reworded",
        task: "Our pipeline gets 403 from the GitHub API when listing pull requests",
      },
      { lang: "zh", kind: "reworded", task: "CI 里调用 GitHub API 报 rate limit exceeded" },
      {
        lang: "en",
        kind: "far",
        task: "The release-notes step in our automation is being throttled by the code hosting service",
      },
      { lang: "zh", kind: "far", task: "流水线里生成发版说明那一步，被代码托管平台拒绝访问" },
      { lang: "en", kind: "near", task: "Add the pull request author to each changelog line" },
    ],
  },
  {
    id: "payment-idempotent",
    taughtIn: "zh",
    teach: "支付回调接口被微信重复调用，同一笔订单给用户加了两次积分",
    condition: "支付平台的回调通知会重复发送，回调处理不是幂等的",
    rule: "在 handlers/pay_notify.py 里先按 transaction_id 查订单状态，已处理就直接返回成功；transaction_id 加唯一索引",
    keys: [
      "支付回调重复",
      "积分加了两次",
      "幂等",
      "transaction_id 唯一索引",
      "handlers/pay_notify.py",
      "duplicate payment notification",
    ],
    otherKeys: ["payment callback called twice", "idempotent webhook handler"],
    asks: ["同一笔钱记了两次账", "用户付一次款拿到两份奖励"],
    probes: [
      { lang: "zh", kind: "taught", task: "微信支付回调又重复了，订单积分加了两次" },
      {
        lang: "en",
        kind: "reworded",
        task: "The payment callback is delivered twice and the order gets credited twice",
      },
      { lang: "zh", kind: "reworded", task: "支付通知重复推送，同一订单被处理了两遍" },
      {
        lang: "en",
        kind: "far",
        task: "A shopper paid once but the account shows two sets of reward points",
      },
      { lang: "zh", kind: "far", task: "顾客只付了一笔钱，账户里却多出双份奖励" },
      { lang: "zh", kind: "near", task: "给支付回调加上日志" },
    ],
  },
  {
    id: "vue-set",
    taughtIn: "zh",
    teach: "Vue 2 页面里给 form 对象新加了一个 remark 字段，赋值以后界面不刷新",
    condition: "Vue 2 里给响应式对象新增属性，视图不会更新",
    rule: "用 this.$set(this.form, 'remark', value)，或者在 data 里先声明这个字段，或整体替换对象",
    keys: ["Vue 2 新增属性不更新", "this.$set", "界面不刷新", "响应式", "Vue reactivity new property"],
    otherKeys: ["view does not update after adding a field", "Vue.set"],
    asks: ["数据改了但页面没变", "控制台能看到新值，画面还是旧的"],
    probes: [
      { lang: "zh", kind: "taught", task: "又是 Vue 2 给对象加新字段以后界面不刷新" },
      {
        lang: "en",
        kind: "reworded",
        task: "In Vue 2 a property added to an object later does not update the view",
      },
      { lang: "zh", kind: "reworded", task: "Vue 里往 data 对象塞了新属性，模板没有重新渲染" },
      {
        lang: "en",
        kind: "far",
        task: "The number changes in devtools, yet the screen still shows the old text",
      },
      { lang: "zh", kind: "far", task: "调试器里看值已经变了，可网页上显示的还是原来那个" },
      { lang: "zh", kind: "near", task: "把这个 Vue 2 组件改成组合式 API" },
    ],
  },
  {
    id: "integer-cache",
    taughtIn: "zh",
    teach: "Java 里两个 Integer 用 == 比较，数量是 100 时相等，1000 时却返回 false，库存校验因此失败",
    condition: "Java 用 == 比较两个 Integer 对象，超出 -128 到 127 的缓存范围就不相等",
    rule: "包装类型用 equals 或 Objects.equals 比较，或者先转成 int；开启 Alibaba 规约检查",
    keys: [
      "Integer == 比较",
      "Integer 缓存 -128 到 127",
      "Objects.equals",
      "库存校验失败",
      "Java Integer comparison",
    ],
    otherKeys: ["Integer equality with == fails above 127", "boxed integer comparison"],
    asks: ["数小的时候对，数大了就不对", "两个一样的数量判断成不一样"],
    probes: [
      { lang: "zh", kind: "taught", task: "库存校验又失败了，两个 Integer 用 == 比较 1000 不相等" },
      {
        lang: "en",
        kind: "reworded",
        task: "Comparing two Integer values with == in Java works for 100 but fails for 1000",
      },
      { lang: "zh", kind: "reworded", task: "Java 包装类 Integer 用双等号比较，大于 127 就出错" },
      {
        lang: "en",
        kind: "far",
        task: "Our stock check says two matching quantities differ, but only once they go past a few hundred",
      },
      { lang: "zh", kind: "far", task: "仓储数量少的时候判断正常，一过几百就说两边对不上" },
      { lang: "zh", kind: "near", task: "给库存模块写 Java 单元测试" },
    ],
  },
  {
    id: "pdf-cjk-font",
    taughtIn: "zh",
    teach: "用 reportlab 生成的合同 PDF 里中文全是黑方块，英文正常",
    condition: "生成 PDF 时没有嵌入中文字体，中文显示成方块",
    rule: "在 reports/contract.py 里用 TTFont 注册 NotoSansSC 字体并在中文段落使用它，把字体文件放进 fonts/ 并随镜像打包",
    keys: [
      "PDF 中文方块",
      "reportlab",
      "TTFont 注册中文字体",
      "NotoSansSC",
      "reports/contract.py",
      "Chinese characters in PDF show as boxes",
    ],
    otherKeys: ["missing CJK font in generated PDF", "embed a Chinese font"],
    asks: ["导出的文件里汉字变成小方框", "合同打印出来看不到中文"],
    probes: [
      { lang: "zh", kind: "taught", task: "reportlab 生成的合同 PDF 中文又变成黑方块" },
      { lang: "en", kind: "reworded", task: "Chinese text in the generated PDF shows up as black boxes" },
      { lang: "zh", kind: "reworded", task: "导出 PDF 后汉字都显示不出来，只有英文正常" },
      {
        lang: "en",
        kind: "far",
        task: "The agreements our backend prints have little squares wherever a Mandarin name should be",
      },
      { lang: "zh", kind: "far", task: "系统出的协议文档，客户姓名那一栏是一排小框框" },
      { lang: "zh", kind: "near", task: "在合同 PDF 的页脚加上页码" },
    ],
  },
  {
    id: "nginx-504",
    taughtIn: "zh",
    teach: "导出年度报表的接口要跑 90 秒，前面的 nginx 到 60 秒就返回 504 Gateway Time-out",
    condition: "慢接口超过 nginx 默认的 60 秒 proxy_read_timeout，被网关断开返回 504",
    rule: "把导出改成后台任务（先返回任务 id，完成后再下载）；实在要同步就在 nginx/conf.d/api.conf 里给这个 location 调大 proxy_read_timeout",
    keys: [
      "504 Gateway Time-out",
      "proxy_read_timeout",
      "nginx 60 秒超时",
      "导出报表接口",
      "nginx/conf.d/api.conf",
      "long request times out",
    ],
    otherKeys: ["report export times out at 60 seconds", "make the export a background job"],
    asks: ["导出一到一分钟就失败", "数据多的时候下载不下来"],
    probes: [
      { lang: "zh", kind: "taught", task: "年度报表导出又是 60 秒就 504 了" },
      {
        lang: "en",
        kind: "reworded",
        task: "The report export endpoint returns 504 from nginx after a minute",
      },
      { lang: "zh", kind: "reworded", task: "nginx 代理的慢接口总是一分钟就超时" },
      {
        lang: "en",
        kind: "far",
        task: "Downloading a full year of sales data always dies right before it finishes",
      },
      { lang: "zh", kind: "far", task: "拉全年的销售数据，每次快好的时候就断掉" },
      { lang: "zh", kind: "near", task: "给 nginx 开启 gzip 压缩" },
    ],
  },
  {
    id: "windows-rm",
    taughtIn: "zh",
    teach: "Windows 上的同事运行 npm run clean 报错：'rm' 不是内部或外部命令，也不是可运行的程序",
    condition: "package.json 的 npm 脚本用了 rm -rf 等 Unix 命令，在 Windows 的 cmd 里跑不了",
    rule: "把 scripts 里的 rm -rf dist 换成 rimraf dist（加到 devDependencies），cp、mkdir -p 之类也换成跨平台的写法",
    keys: [
      "'rm' 不是内部或外部命令",
      "npm run clean",
      "rimraf",
      "Windows npm 脚本",
      "rm -rf in package.json scripts",
      "cross-platform npm scripts",
    ],
    otherKeys: ["'rm' is not recognized as an internal or external command", "npm script fails on Windows"],
    asks: ["只有一个人的电脑上清理失败", "命令在 PowerShell 里找不到"],
    probes: [
      { lang: "zh", kind: "taught", task: "Windows 上 npm run clean 又报 'rm' 不是内部或外部命令" },
      { lang: "en", kind: "reworded", task: "npm scripts that use rm -rf fail for colleagues on Windows" },
      { lang: "zh", kind: "reworded", task: "package.json 里的清理脚本在 Windows 下跑不起来" },
      {
        lang: "en",
        kind: "far",
        task: "A teammate on a PC cannot wipe the output folder, the shell says it has never heard of that tool",
      },
      { lang: "zh", kind: "far", task: "微软系统上的同事删不掉打包产物，终端说认不出这个指令" },
      { lang: "zh", kind: "near", task: "给 npm 脚本加一个 lint 命令" },
    ],
  },
];

/** Tasks that need none of the lessons (fourth held-out set); some report troubles of their own. */
export const HELDOUT4_UNRELATED = [
  { lang: "en", task: "Write a limerick about a cat who loves boxes" },
  { lang: "en", task: "Add a search box to the blog's sidebar" },
  { lang: "en", task: "Draft an apology email to a customer whose parcel arrived late" },
  { lang: "en", task: "The tooltip on the save button is cut off at the right edge" },
  { lang: "en", task: "Write a regular expression that matches UK postcodes" },
  { lang: "en", task: "Convert the temperature chart from Fahrenheit to Celsius" },
  { lang: "en", task: "Extract the address parsing into its own module" },
  { lang: "en", task: "The progress bar jumps back to zero when the tab loses focus" },
  { lang: "en", task: "Write property-based tests for the date range merger" },
  { lang: "en", task: "Explain how a B-tree index differs from a hash index" },
  { lang: "en", task: "Add a contributors section to the documentation site" },
  { lang: "en", task: "Sort the team page alphabetically by surname" },
  { lang: "zh", task: "写一段中秋节给客户的祝福语" },
  { lang: "zh", task: "给博客侧边栏加一个搜索框" },
  { lang: "zh", task: "把这份产品需求整理成一张功能清单" },
  { lang: "zh", task: "弹窗的关闭按钮在平板上点不到" },
  { lang: "zh", task: "写一个正则匹配国内的手机号" },
  { lang: "zh", task: "把温度图表的单位从华氏度改成摄氏度" },
  { lang: "zh", task: "讲讲乐观锁和悲观锁有什么不同" },
  { lang: "zh", task: "商品详情页的价格少显示了一个小数位" },
  { lang: "zh", task: "给日期区间合并函数写测试" },
  { lang: "zh", task: "把地址解析的代码抽成单独的模块" },
  { lang: "zh", task: "帮我给新上线的小程序想一句宣传口号" },
  { lang: "zh", task: "团队介绍页按姓氏拼音排序" },
];
