// The task card's stylesheet: light and dark (the host's theme, else the system's), readable from 360 px wide.

export const CARD_CSS = `
:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#5f6068;--line:#d6d6de;--soft:#f4f4f7;--accent:#2563eb;
--ok:#15803d;--bad:#b91c1c;--warn:#a16207;--add:#e6f6ea;--del:#fbe9e9;--addfg:#116329;--delfg:#9a1c1c}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--fg:#e8e8ee;--bg:#17171b;--muted:#a0a0aa;--line:#3a3a44;
--soft:#22222a;--accent:#60a5fa;--ok:#4ade80;--bad:#f87171;--warn:#facc15;--add:#11301c;--del:#3a1717;--addfg:#86efac;--delfg:#fca5a5}}
[data-theme=dark]{--fg:#e8e8ee;--bg:#17171b;--muted:#a0a0aa;--line:#3a3a44;--soft:#22222a;--accent:#60a5fa;--ok:#4ade80;
--bad:#f87171;--warn:#facc15;--add:#11301c;--del:#3a1717;--addfg:#86efac;--delfg:#fca5a5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{padding:12px;display:flex;flex-direction:column;gap:10px;max-width:960px}
header{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center}
h2{font-size:13px;margin:0 0 4px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
section{border:1px solid var(--line);border-radius:8px;padding:8px 10px;min-width:0}
.badge{font-weight:600;padding:1px 8px;border-radius:999px;background:var(--soft);border:1px solid var(--line)}
.badge.running,.badge.starting{color:var(--accent)}.badge.completed{color:var(--ok)}
.badge.failed,.badge.interrupted,.badge.connection_lost,.badge.unknown{color:var(--bad)}
.badge.waiting_for_approval,.badge.waiting_for_tool{color:var(--warn)}
.muted{color:var(--muted);font-size:12px}
.id{font:12px ui-monospace,monospace;color:var(--muted);word-break:break-all}
#doing{font-weight:500;word-break:break-word}
code,pre,.mono{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
code{background:var(--soft);padding:0 3px;border-radius:4px;word-break:break-word}
pre{margin:4px 0;padding:8px;background:var(--soft);border-radius:6px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
pre code{background:none;padding:0}
details{border-top:1px solid var(--line);padding:4px 0}details:first-of-type{border-top:0}
summary{cursor:pointer;list-style-position:outside;margin-left:16px;word-break:break-word}
.exit0{color:var(--ok)}.exitbad{color:var(--bad)}.exitrun{color:var(--accent)}
.ask{border:2px solid var(--warn);border-radius:8px;padding:8px 10px;display:flex;flex-direction:column;gap:6px}
.ask .who{font-size:12px;color:var(--muted)}
.row{display:flex;flex-wrap:wrap;gap:6px}
button{font:inherit;padding:5px 12px;border:1px solid var(--line);border-radius:6px;background:var(--soft);color:var(--fg);cursor:pointer;min-height:32px}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button:disabled{opacity:.5;cursor:default}
input,select{font:inherit;padding:4px 6px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);max-width:100%}
label{display:flex;flex-direction:column;gap:2px}
a{color:var(--accent);cursor:pointer;text-decoration:underline;word-break:break-all}
ul.plain{list-style:none;margin:0;padding:0}ul.plain li{padding:2px 0;word-break:break-word}
.plan li.completed{color:var(--muted);text-decoration:line-through}.plan li.inProgress,.plan li.in_progress{font-weight:600}
.diff{padding:0}.diff span{display:block;padding:0 8px;white-space:pre-wrap;word-break:break-all}
.diff .a{background:var(--add);color:var(--addfg)}.diff .d{background:var(--del);color:var(--delfg)}.diff .h{color:var(--muted)}
.md{word-break:break-word}.md>*:first-child{margin-top:0}.md>*:last-child{margin-bottom:0}
.md h3,.md h4,.md h5,.md h6{margin:10px 0 4px}.md p{margin:6px 0}.md ul,.md ol{margin:4px 0;padding-left:22px}
.md blockquote{margin:6px 0;padding-left:10px;border-left:3px solid var(--line);color:var(--muted)}
.md table{border-collapse:collapse;display:block;overflow:auto}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
#status{font-size:12px;color:var(--bad)}#status:empty,#note:empty,#said:empty{display:none}
#viewer img{max-width:100%}
`;
