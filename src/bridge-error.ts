/** A request the supervisor can fix: names the field and what to do. Shown to the model as a tool error. */
export class BridgeError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}
