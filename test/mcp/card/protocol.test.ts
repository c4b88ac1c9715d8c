// Where the task card finds its task in the tool result a host hands it: hosts differ (Claude Desktop strips
// structuredContent from what a view receives), so every task tool's answer must lead to the task on its own.
import { describe, expect, it } from "vitest";
import { PROTOCOL_JS } from "../../../src/mcp/apps/card/protocol.ts";

const taskIdOf = new Function(`${PROTOCOL_JS}\nreturn taskIdOf;`)() as (r: unknown) => string | null;
const text = (t: string) => [{ type: "text", text: t }];

describe("the task the card follows", () => {
  it("comes from structuredContent when the host passes it: start, wait (next_cursor), status list", () => {
    expect(taskIdOf({ content: text("x"), structuredContent: { task_id: "t_0123456789" } })).toBe("t_0123456789");
    expect(taskIdOf({ content: text("x"), structuredContent: { next_cursor: "t_00000000aa:17" } })).toBe("t_00000000aa");
    expect(taskIdOf({ content: text("x"), structuredContent: { tasks: [{ task_id: "t_00000000bb" }] } })).toBe("t_00000000bb");
  });

  it("comes from the text when structuredContent was stripped", () => {
    expect(taskIdOf({ content: text("t_0123456789 running · cursor t_0123456789:4\nnext: codex_wait") })).toBe("t_0123456789");
    expect(taskIdOf({ content: text("no tasks yet; start one with codex_start") })).toBeNull();
  });
});
