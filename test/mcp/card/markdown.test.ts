// The task card's Markdown renderer, run in Node exactly as the page holds it: formatting a final answer shows,
// and nothing in an answer becomes markup, a script or a navigable URL.
import { describe, expect, it } from "vitest";
import { MARKDOWN_JS } from "../../../src/mcp/apps/card/markdown.ts";

const render = new Function(`${MARKDOWN_JS}\nreturn renderMarkdown;`)() as (src: string) => string;

describe("the card's Markdown renderer", () => {
  it("renders headings, emphasis, code, lists, quotes, tables and rules", () => {
    const html = render("# Done\n\nThe **loop** ran `ls` and *wrote* a file.\n\n- one\n- two\n  continued\n\n1. first\n2. second\n\n```\nmake test\n```\n> noted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---");
    expect(html).toContain("<h3>Done</h3>");
    expect(html).toContain("<p>The <strong>loop</strong> ran <code>ls</code> and <em>wrote</em> a file.</p>");
    expect(html).toContain("<ul><li>one</li><li>two continued</li></ul>");
    expect(html).toContain("<ol><li>first</li><li>second</li></ol>");
    expect(html).toContain("<pre><code>make test</code></pre>");
    expect(html).toContain("<blockquote><p>noted</p></blockquote>");
    expect(html).toContain("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>");
    expect(html).toContain("<hr>");
  });

  it("escapes every tag and attribute an answer carries, in text, code and links alike", () => {
    const html = render('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n```\n</script><b>x</b>\n```\n\n`<i>` and [<b>x</b>](https://example.com/"onmouseover="alert)');
    expect(html).not.toMatch(/<(script|img|b|i)[\s>]/);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(html).toContain("<code>&lt;i&gt;</code>");
    expect(html).toContain('data-url="https://example.com/&quot;onmouseover=&quot;alert"');
  });

  it("makes web links and project paths data attributes the card opens, and leaves other schemes as text", () => {
    const html = render("See [the notes](./notes/hello.txt), [docs](https://example.com/a?b=1&c=2) and [x](javascript:alert) or [y](data:text/html,hi).");
    expect(html).toContain('<a data-file="notes/hello.txt">the notes</a>');
    expect(html).toContain('<a data-url="https://example.com/a?b=1&amp;c=2">docs</a>');
    expect(html).not.toMatch(/href=|javascript:alert\)"|data-url="data:/);
    expect(html).toContain("x");
  });

  it("keeps snake_case names and arithmetic as they are", () => {
    expect(render("snake_case_name and 2*3*4")).toBe("<p>snake_case_name and 2*3*4</p>");
  });
});
