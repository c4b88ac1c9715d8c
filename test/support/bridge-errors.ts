// Test support: catching the BridgeError a bridge operation throws or rejects with, so a test can check the field
// and the words it names; anything else thrown, or nothing at all, fails the test.
import { expect } from "vitest";
import { BridgeError } from "../../src/bridge-error.ts";

/** The BridgeError `fn` throws. */
export function thrownBridgeError(fn: () => unknown): BridgeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BridgeError);
    return err as BridgeError;
  }
  throw new Error("expected a BridgeError, but nothing was thrown");
}

/** The BridgeError `p` rejects with. */
export async function rejectedBridgeError(p: Promise<unknown>): Promise<BridgeError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(BridgeError);
    return err as BridgeError;
  }
  throw new Error("expected a rejection with a BridgeError, but it resolved");
}
