// Which commands are tests or builds: their exit codes are what a supervisor checks before accepting work, so waits
// report them as validation and results list them even when everything else is only counted.
const VALIDATION_RE = /\b(test|tests|pytest|jest|vitest|mocha|cargo (test|check|clippy|build)|go (test|vet|build)|tsc|lint|eslint|ruff|mypy|make( check)?|npm run (build|check|lint|test)|build)\b/i;

export function isValidationCommand(command: string): boolean {
  return VALIDATION_RE.test(command);
}
