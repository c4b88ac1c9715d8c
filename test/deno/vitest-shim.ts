// What `import ... from "vitest"` means under `deno test` (npm run test:deno maps it here with an import map): the
// store and platform tests, written for vitest, run unchanged as Deno.test cases with vitest's own expect.

// describe/it register one Deno.test per test, named "suite > test", in file order. Hooks run as vitest runs them:
// beforeAll before a suite's first test, afterAll after its last, beforeEach/afterEach around each test (outer first
// in, inner first out). expect is @vitest/expect on chai, set up as vitest sets it up, so matchers mean the same.
import * as chai from "chai";
import { ASYMMETRIC_MATCHERS_OBJECT, JestAsymmetricMatchers, JestChaiExpect, JestExtend, getState, setState } from "@vitest/expect";

type Fn = () => unknown | Promise<unknown>;
/** vitest's third argument: a timeout in ms, or options carrying one. */
type Timeout = number | { timeout?: number };

// The one Deno API this uses (tsc checks this file with Node's types only).
declare const Deno: {
  test(def: { name: string; ignore: boolean; sanitizeOps: boolean; sanitizeResources: boolean; sanitizeExit: boolean; fn(): Promise<void> }): void;
};

interface Suite {
  name: string;
  parent: Suite | undefined;
  beforeAll: Fn[];
  afterAll: Fn[];
  beforeEach: Fn[];
  afterEach: Fn[];
  /** Tests (this suite's and nested suites') that will run; afterAll runs after the last of them. */
  pending: number;
  started: boolean;
  setupError?: unknown;
}

const newSuite = (name: string, parent: Suite | undefined): Suite => ({
  name,
  parent,
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
  pending: 0,
  started: false,
});

// One root per test file: hooks at a file's top level apply to that file's tests only.
const roots = new Map<string, Suite>();
let current: Suite | undefined;

function callerFile(): string {
  const stack = new Error().stack?.split("\n") ?? [];
  for (const line of stack) {
    const m = /(file:\/\/[^\s)]+?\.test\.ts)/.exec(line);
    if (m) return m[1];
  }
  return "unknown";
}

function scope(): Suite {
  if (current) return current;
  const file = callerFile();
  let root = roots.get(file);
  if (!root) roots.set(file, (root = newSuite("", undefined)));
  return root;
}

function chain(suite: Suite): Suite[] {
  const out: Suite[] = [];
  for (let s: Suite | undefined = suite; s; s = s.parent) out.unshift(s);
  return out;
}

let skipDepth = 0;

function register(name: string, fn: Fn, skipThis: boolean, timeout?: Timeout): void {
  const skip = skipThis || skipDepth > 0;
  const suite = scope();
  const suites = chain(suite);
  const fullName = [...suites.map((s) => s.name).filter(Boolean), name].join(" > ");
  if (!skip) for (const s of suites) s.pending++;
  const timeoutMs = typeof timeout === "number" ? timeout : (timeout?.timeout ?? DEFAULT_TIMEOUT_MS);
  Deno.test({
    name: fullName,
    ignore: skip,
    // vitest has no leak sanitizers; the tests clean up in their own hooks.
    sanitizeOps: false,
    sanitizeResources: false,
    sanitizeExit: false,
    async fn() {
      let failure: unknown;
      try {
        for (const s of suites) {
          if (!s.started) {
            s.started = true;
            try {
              for (const hook of s.beforeAll) await hook();
            } catch (err) {
              s.setupError = err;
            }
          }
          // As under vitest, a failed beforeAll fails every test of its suite.
          if (s.setupError !== undefined) throw s.setupError;
        }
        resetExpectState(fullName);
        finished.length = 0;
        for (const s of suites) for (const hook of s.beforeEach) await hook();
        await withTimeout(fn, timeoutMs, fullName);
      } catch (err) {
        failure = err;
      }
      const cleanup = async (hooks: Fn[]) => {
        for (const hook of [...hooks].reverse()) {
          try {
            await hook();
          } catch (err) {
            failure ??= err;
          }
        }
      };
      // As under vitest: onTestFinished callbacks run after the test, before the afterEach hooks.
      await cleanup(finished.splice(0));
      for (const s of [...suites].reverse()) await cleanup(s.afterEach);
      for (const s of [...suites].reverse()) if (--s.pending === 0) await cleanup(s.afterAll);
      if (failure !== undefined) throw failure;
    },
  });
}

// The same per-test limit vitest.config.ts sets.
const DEFAULT_TIMEOUT_MS = 60_000;

async function withTimeout(fn: Fn, ms: number, name: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(fn),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`test timed out in ${ms}ms: ${name}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

type TestFn = {
  (name: string, fn: Fn, timeout?: Timeout): void;
  skip(name: string, fn: Fn, timeout?: Timeout): void;
  skipIf(condition: unknown): (name: string, fn: Fn, timeout?: Timeout) => void;
  runIf(condition: unknown): (name: string, fn: Fn, timeout?: Timeout) => void;
  each<T>(cases: readonly T[]): (name: string, fn: (...args: any[]) => unknown, timeout?: Timeout) => void;
};

function format(name: string, args: unknown[]): string {
  let i = 0;
  return name.replace(/%[sdijo%]/g, (token) => {
    if (token === "%%") return "%";
    const v = args[i++];
    return token === "%s" ? String(v) : token === "%d" || token === "%i" ? String(Number(v)) : JSON.stringify(v);
  });
}

function makeIt(): TestFn {
  const it = ((name: string, fn: Fn, timeout?: Timeout) => register(name, fn, false, timeout)) as TestFn;
  it.skip = (name, fn, timeout) => register(name, fn, true, timeout);
  it.skipIf = (condition) => (name, fn, timeout) => register(name, fn, Boolean(condition), timeout);
  it.runIf = (condition) => (name, fn, timeout) => register(name, fn, !condition, timeout);
  it.each = (cases) => (name, fn, timeout) => {
    for (const c of cases) {
      const args = Array.isArray(c) ? c : [c];
      register(format(name, args), () => fn(...args), false, timeout);
    }
  };
  return it;
}

export const it = makeIt();

type DescribeFn = {
  (name: string, fn: () => void): void;
  skip(name: string, fn: () => void): void;
  skipIf(condition: unknown): (name: string, fn: () => void) => void;
  runIf(condition: unknown): (name: string, fn: () => void) => void;
};

function collect(name: string, fn: () => void, skip: boolean): void {
  const suite = newSuite(name, scope());
  const previous = current;
  current = suite;
  // A skipped suite still registers its tests, as ignored ones, so they show up as skipped as under vitest.
  if (skip) skipDepth++;
  try {
    fn();
  } finally {
    if (skip) skipDepth--;
    current = previous;
  }
}

export const describe = ((name: string, fn: () => void) => collect(name, fn, false)) as DescribeFn;
describe.skip = (name, fn) => collect(name, fn, true);
describe.skipIf = (condition) => (name, fn) => collect(name, fn, Boolean(condition));
describe.runIf = (condition) => (name, fn) => collect(name, fn, !condition);

export const beforeAll = (fn: Fn): void => void scope().beforeAll.push(fn);
export const afterAll = (fn: Fn): void => void scope().afterAll.push(fn);
export const beforeEach = (fn: Fn): void => void scope().beforeEach.push(fn);
export const afterEach = (fn: Fn): void => void scope().afterEach.push(fn);
/** Callbacks registered while the current test runs; called once it finished (outside a test: never, as vitest throws). */
const finished: Fn[] = [];
export const onTestFinished = (fn: Fn): void => void finished.push(fn);

// ---- expect: the same construction as vitest's createExpect, without the runner's per-test bookkeeping.
chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

// deno-lint-ignore no-explicit-any
export const expect: any = (value: unknown, message?: string) => {
  const { assertionCalls } = getState(expect);
  setState({ assertionCalls: assertionCalls + 1 }, expect);
  return chai.expect(value, message);
};
Object.assign(expect, chai.expect);
Object.assign(expect, (globalThis as Record<PropertyKey, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
expect.getState = () => getState(expect);
expect.setState = (state: object) => setState(state, expect);
expect.extend = (matchers: object) => (chai.expect as unknown as { extend(e: unknown, m: object): void }).extend(expect, matchers);

function resetExpectState(name: string): void {
  setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null, currentTestName: name }, expect);
}
