import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { axeViolations, describeViolations, launchChromium } from "../support/chromium.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { skipWithout } from "../support/requirements.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const TOKEN = "123456:TEST-token";
const OWNER = 42;
const STRANGER = 77;

describe.skipIf(await skipWithout("chromium", "channels page in Chromium"))(
  "channels page in Chromium",
  () => {
    let browser: Browser;
    let model: FakeModelServer;
    let telegram: FakeTelegram;
    let ws: TempDir;
    let served: Served;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser.close();
    });
    beforeEach(async () => {
      model = await startFakeModelServer({ respond: () => ({ text: "hello from reson" }) });
      telegram = await startFakeTelegram({ token: TOKEN });
      ws = tempDir();
      writeChannelsConfig(ws.home, {
        telegram: telegramOnFakes(telegram, model, {
          token: TOKEN,
          workspace: ws.path,
          owner: [String(OWNER)],
        }),
      });
      served = await startServed(ws.home, ws.path);
    });
    afterEach(async () => {
      await killAllReson();
      await telegram.close();
      await model.close();
      ws.remove();
    });

    async function signedIn(options: { width?: number; scheme?: "light" | "dark" } = {}): Promise<Page> {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: 900 },
        bypassCSP: true,
        colorScheme: options.scheme ?? "light",
      });
      const page = await context.newPage();
      await page.goto(`${served.url}/`);
      await page.fill("#token", served.headers.authorization!.replace(/^Bearer /, ""));
      await page.click("button[type=submit]");
      await page.waitForSelector("h1:text('Sessions')");
      return page;
    }

    async function pairings(): Promise<{ status: string; code: string | null; senderId: string }[]> {
      const response = await fetch(`${served.url}/channels/pairings`, { headers: served.headers });
      return (
        (await response.json()) as { pairings: { status: string; code: string | null; senderId: string }[] }
      ).pairings;
    }

    it("shows a stranger's pending pairing; Approve lets them in and their chat's session is linked", async () => {
      telegram.send({ chatId: STRANGER, fromId: STRANGER, text: "let me in", firstName: "Eve" });
      const asked = await telegram.waitForSent((m) => String(m.chat_id) === String(STRANGER));
      const code = /pairing code is ([A-Z0-9]{8})/.exec(asked.text)?.[1];
      expect(code, asked.text).toBeDefined();

      const page = await signedIn();
      await page.click("nav a:text('Channels')");
      await page.waitForSelector("h1:text('Channels')");
      expect(await page.getAttribute("nav a:text('Channels')", "aria-current")).toBe("page");
      expect(await page.textContent("#channels tr[data-channel='telegram']")).toContain(ws.path);
      // It has polled (the stranger got a code): this serve takes its messages.
      expect(await page.textContent("#channels tr[data-channel='telegram'] [data-state]")).toBe(
        "taking messages",
      );
      const row = `#pairings tr[data-code='${code}']`;
      expect(await page.textContent(row)).toContain("Eve (77)");

      // A deep link survives a reload.
      await page.reload();
      await page.waitForSelector(row);

      await page.click(`${row} button:text('Approve')`);
      await page.waitForSelector("#no-pairings");
      expect((await pairings()).find((p) => p.senderId === String(STRANGER))?.status).toBe("approved");

      telegram.send({ chatId: STRANGER, fromId: STRANGER, text: "now?" });
      const answer = await telegram.waitForSent(
        (m) => String(m.chat_id) === String(STRANGER) && m.text === "hello from reson",
      );
      expect(answer.text).toBe("hello from reson");
      await page.reload();
      const link = await page.waitForSelector(".channel-sessions a");
      await link.click();
      await page.waitForSelector("h1");
      expect(page.url()).toMatch(/#\/sessions\/[0-9A-Z]+/);
      await page.context().close();
    }, 90_000);

    it("Deny refuses a sender waiting to pair: their row goes, and they are denied", async () => {
      telegram.send({ chatId: STRANGER, fromId: STRANGER, text: "let me in", firstName: "Eve" });
      const asked = await telegram.waitForSent((m) => String(m.chat_id) === String(STRANGER));
      const code = /pairing code is ([A-Z0-9]{8})/.exec(asked.text)![1]!;
      const page = await signedIn();
      await page.goto(`${served.url}/#/channels`);
      const row = `#pairings tr[data-code='${code}']`;
      await page.waitForSelector(row);
      await page.click(`${row} button:text('Deny')`);
      await page.waitForSelector("#no-pairings");
      expect((await pairings()).find((p) => p.senderId === String(STRANGER))?.status).toBe("denied");
      await page.context().close();
    }, 90_000);

    it("has no axe-core violation, light or dark, at desktop and phone width, and nothing wider than a phone", async () => {
      telegram.send({ chatId: STRANGER, fromId: STRANGER, text: "let me in", firstName: "Eve" });
      await telegram.waitForSent((m) => String(m.chat_id) === String(STRANGER));
      for (const scheme of ["light", "dark"] as const)
        for (const width of [1280, 375]) {
          const page = await signedIn({ width, scheme });
          await page.goto(`${served.url}/#/channels`);
          await page.waitForSelector("#pairings button");
          const violations = await axeViolations(page);
          expect(describeViolations(violations), `${width} px, ${scheme}`).toEqual([]);
          const overflow = Number(
            await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"),
          );
          expect(overflow, `${width} px is wider than the screen`).toBeLessThanOrEqual(0);
          await page.context().close();
        }
    }, 120_000);
  },
);
