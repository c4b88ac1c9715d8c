/** A state-database problem the user can act on; the message names the path and the remedy. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StoreError";
  }
}
