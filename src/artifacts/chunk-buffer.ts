// One resident buffer for ranged artifact reads. A fresh multi-MiB buffer per chunk costs more in page faults than the
// read itself (about 25 µs a 4 KiB page on the benchmark's VM, 20 ms a 3 MiB chunk), so a download's chunks reuse it.

/** Below this a read gets its own buffer: small allocations come from the heap's reused pages anyway. */
const REUSE_FROM_BYTES = 256 * 1024;
/**
 * The resident buffer is dropped this long after its last use, so an idle bridge does not keep it: shorter than the
 * serve loop's idle collection (1 s after the last answer), which then frees it; longer than a client's usual pause
 * between two chunks of one download.
 */
const IDLE_DROP_MS = 750;

let resident: Uint8Array | undefined;
let leased = false;
let dropTimer: ReturnType<typeof setTimeout> | undefined;

export interface ChunkBuffer {
  bytes: Uint8Array;
  /** Hands the bytes back: a view on the resident buffer must not be read after this. Idempotent. */
  release(): void;
}

const own = (n: number): ChunkBuffer => ({ bytes: new Uint8Array(n), release: () => {} });

/**
 * `n` bytes to read into: the resident buffer when it is free, else a buffer of their own, so a lease that is never
 * released (or two reads in flight at once) only costs an allocation, never another read's bytes.
 */
export function leaseChunkBuffer(n: number): ChunkBuffer {
  if (leased || n < REUSE_FROM_BYTES) return own(n);
  if (!resident || resident.length < n) resident = new Uint8Array(n);
  leased = true;
  clearTimeout(dropTimer);
  let done = false;
  return {
    bytes: resident.subarray(0, n),
    release() {
      if (done) return;
      done = true;
      leased = false;
      dropTimer = setTimeout(() => {
        if (!leased) resident = undefined;
      }, IDLE_DROP_MS);
      dropTimer.unref?.();
    },
  };
}
