/** Where CLI commands write: results to stdout, progress and problems to stderr. Injected for tests. */
export interface CliOutput {
  /** A line of the result. */
  out(line: string): void;
  /** A line of progress or a problem. */
  err(line: string): void;
}

/** The process's stdout and stderr. */
export const processOutput: CliOutput = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

/** Exit codes of the CLI. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** No model is configured or bundled: the user must pass one. */
export const EXIT_NO_MODEL = 2;
