// The task card's Markdown renderer, as page script: Codex's final answer shown as formatted text. It escapes
// every character of HTML first, so no tag, attribute or URL from the answer reaches the page as markup; links
// become data attributes the card opens through the host (web links) or the artifact tools (project files).

export const MARKDOWN_JS = String.raw`
function renderMarkdown(src) {
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  // Web links open through the host; a relative path is a project file; any other scheme stays text.
  function link(label, url) {
    const raw = url.replace(/&amp;/g, "&");
    if (/^(https?:|mailto:)/i.test(raw)) return '<a data-url="' + url + '">' + label + "</a>";
    if (!/^[a-z][a-z0-9+.-]*:/i.test(raw) && !raw.startsWith("//") && !raw.startsWith("#")) return '<a data-file="' + url.replace(/^\.\//, "") + '">' + label + "</a>";
    return label;
  }
  function inline(s) {
    const codes = [];
    let t = esc(s).replace(/\x60([^\x60]+)\x60/g, (_, c) => { codes.push(c); return "\u0000" + (codes.length - 1) + "\u0000"; });
    t = t.replace(/\[([^\]]+)\]\(([^()\s]+)\)/g, (_, label, url) => link(label, url));
    t = t.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>").replace(/__([^_]+)__/g, "<strong>$1</strong>");
    t = t.replace(/(^|[^*\w])\*([^*\s][^*]*?)\*(?!\w)/g, "$1<em>$2</em>").replace(/(^|[^_\w])_([^_\s][^_]*?)_(?!\w)/g, "$1<em>$2</em>");
    t = t.replace(/~~([^~]+)~~/g, "<del>$1</del>");
    return t.replace(/\u0000(\d+)\u0000/g, (_, i) => "<code>" + codes[Number(i)] + "</code>");
  }
  const lines = String(src).replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  const LIST = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
  const startsBlock = (l) => /^\s*(\x60\x60\x60|#{1,6}\s|>|([-*_]\s*){3,}$)/.test(l) || LIST.test(l);
  const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (/^\s*$/.test(line)) { i++; continue; }
    const fence = /^\s*\x60\x60\x60/.exec(line);
    if (fence) {
      const code = [];
      for (i++; i < lines.length && !/^\s*\x60\x60\x60/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      out.push("<pre><code>" + esc(code.join("\n")) + "</code></pre>");
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) { const n = Math.min(6, h[1].length + 2); out.push("<h" + n + ">" + inline(h[2]) + "</h" + n + ">"); i++; continue; }
    if (/^\s*([-*_]\s*){3,}$/.test(line)) { out.push("<hr>"); i++; continue; }
    if (/^\s*>/.test(line)) {
      const inner = [];
      for (; i < lines.length && /^\s*>/.test(lines[i]); i++) inner.push(lines[i].replace(/^\s*>\s?/, ""));
      out.push("<blockquote>" + renderMarkdown(inner.join("\n")) + "</blockquote>");
      continue;
    }
    const item = LIST.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1]);
      const items = [];
      for (; i < lines.length; i++) {
        const m = LIST.exec(lines[i]);
        if (m && /\d/.test(m[1]) === ordered) items.push(m[2]);
        else if (m || /^\s*$/.test(lines[i]) || !/^\s+/.test(lines[i])) break;
        else items[items.length - 1] += " " + lines[i].trim();
      }
      const tag = ordered ? "ol" : "ul";
      out.push("<" + tag + ">" + items.map((x) => "<li>" + inline(x) + "</li>").join("") + "</" + tag + ">");
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      const head = cells(line);
      const rows = [];
      for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) rows.push(cells(lines[i]));
      out.push("<table><tr>" + head.map((c) => "<th>" + c + "</th>").join("") + "</tr>" + rows.map((r) => "<tr>" + r.map((c) => "<td>" + c + "</td>").join("") + "</tr>").join("") + "</table>");
      continue;
    }
    const para = [];
    for (; i < lines.length && !/^\s*$/.test(lines[i]) && (para.length === 0 || !startsBlock(lines[i])); i++) para.push(lines[i].trim());
    out.push("<p>" + inline(para.join("\n")).replace(/\n/g, "<br>") + "</p>");
  }
  return out.join("\n");
}
`;
