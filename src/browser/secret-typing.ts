// browser_type's text with secrets: a `<secret>name</secret>` is filled in only when the
// field's own page (its frame's document, not merely the tab) matches the secret's URL
// pattern, and so does where the field's form sends it (its action), and the check and the
// value happen in one task in the page, so no redirect can come between them. The value goes
// to the page and nowhere else.
import type { Locator } from "playwright-core";
import { ResonError } from "../core/errors.js";
import type { ToolContext } from "../tools/index.js";

function hostAndPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/** Fills `text` into the element; resolves to the names of the secrets it held. */
export async function typeInto(locator: Locator, text: string, ctx: ToolContext): Promise<string[]> {
  // A bare word may be a secret's name (the vault fills those too, as models forget the tags).
  if (!ctx.secrets || !/<secret>|^[A-Za-z0-9_.-]+$/.test(text)) {
    await locator.fill(text);
    return [];
  }
  const { where, action } = (await locator.evaluate((el) => {
    const form = (el as unknown as { form?: { action?: string } | null }).form;
    return { where: el.ownerDocument.location.href, action: form?.action ? String(form.action) : null };
  })) as { where: string; action: string | null };
  const filled = ctx.secrets.forUrl(text, where);
  // A form sends what is typed to its action, which may be another site than the page's.
  const sentTo = action ? ctx.secrets.forUrl(text, action) : undefined;
  const problems = [
    ...filled.missing.map((name) => `${name} (no such secret)`),
    ...filled.outOfScope.map((name) => `${name} (not for ${hostAndPath(where)})`),
    ...(sentTo?.outOfScope ?? [])
      .filter((name) => !filled.outOfScope.includes(name))
      .map((name) => `${name} (the field's form sends it to ${hostAndPath(action!)}, which it is not for)`),
  ];
  if (problems.length > 0)
    throw new ResonError("secret_unavailable", `Cannot type ${problems.join(", ")}.`, {
      hint: "Use only the secrets listed for the page's site; the user adds secrets in $RESON_HOME/secrets.json.",
    });
  if (filled.used.length === 0) {
    await locator.fill(text);
    return [];
  }
  // Set in the page only if the field's document is still the one checked: one task there,
  // so no navigation can come between the check and the value.
  const origin = new URL(where).origin;
  const actionOrigin = action ? new URL(action).origin : null;
  const set = await locator.evaluate(
    (el, expected) => {
      const input = el as unknown as {
        ownerDocument: { location: { origin: string } };
        form?: { action?: string } | null;
        value: string;
        focus(): void;
        dispatchEvent(event: unknown): boolean;
      };
      if (input.ownerDocument.location.origin !== expected.origin) return false;
      const sendsTo = input.form?.action ? new URL(String(input.form.action)).origin : null;
      if (sendsTo !== expected.actionOrigin) return false;
      input.focus();
      input.value = expected.value;
      const Events = globalThis as unknown as { Event: new (type: string, init: object) => unknown };
      input.dispatchEvent(new Events.Event("input", { bubbles: true }));
      input.dispatchEvent(new Events.Event("change", { bubbles: true }));
      return true;
    },
    { origin, actionOrigin, value: filled.value },
  );
  if (!set)
    throw new ResonError(
      "secret_unavailable",
      "The page changed site (or where its form sends) before the secret could be typed; nothing was typed.",
      {
        hint: "Look at the page state again before typing a secret.",
      },
    );
  return filled.used;
}
