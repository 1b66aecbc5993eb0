// The browser module: one Chromium per run through playwright-core, page snapshots with
// element refs, the browser tools, and the checks on where the browser may go.
export { isPrivateHost, refusalFor } from "../core/address-guard.js";
export { BrowserPool, BrowserSession, type BrowserSettings } from "./browser-session.js";
export { BROWSER_TOOL_NAMES, createBrowserTools } from "./browser-tools.js";
export { findChromium, MAX_SKEW_MAJORS, majorOf, playwrightBuild, skewWarning } from "./executable.js";
export { cutToBudget, MASK, maskPasswords } from "./page-state.js";
