// Bundles a test host page's script (ext-apps' AppBridge and the code around it) for inlining into the page, once
// per script text; the viewer's and the task card's harnesses share it.
import { build } from "esbuild";

const bundles = new Map<string, Promise<string>>();

/** The entry bundled as one IIFE for a browser, with `</script` escaped so it can sit inside a script element. */
export function pageScript(entry: string): Promise<string> {
  let b = bundles.get(entry);
  if (!b) {
    b = build({
      stdin: { contents: entry, resolveDir: process.cwd(), loader: "js" },
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      logLevel: "silent",
    }).then((r) => r.outputFiles[0].text.replace(/<\/script/gi, "<\\/script"));
    bundles.set(entry, b);
  }
  return b;
}
