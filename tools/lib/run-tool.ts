import { readCommandLine, UsageError, wantsHelp, type CommandLine, type Flags, type ToolSpec } from './args.js';

export interface RunOptions {
  /** The exit code when the work throws (default 1); a bad command line always exits 2. */
  failureExitCode?: number;
  args?: readonly string[];
}

/**
 * Runs a command-line tool: `--help` / `-h` prints the usage on stdout (exit 0); a bad command
 * line, whether found while parsing or later by the tool, is one line on stderr (exit 2);
 * otherwise the exit code is what `main` answers. Errors are printed as their message, not a stack.
 */
export function runTool<F extends Flags>(spec: ToolSpec<F>, main: (cli: CommandLine<F>) => Promise<number>, options: RunOptions = {}): void {
  const args = options.args ?? process.argv.slice(2);
  if (wantsHelp(args)) {
    process.stdout.write(`${spec.usage}\n`);
    return;
  }
  const fail = (err: unknown): void => {
    if (err instanceof UsageError) {
      process.stderr.write(`${spec.name}: ${err.message}; run with --help for usage\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`${spec.name}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = options.failureExitCode ?? 1;
    }
  };
  try {
    const cli = readCommandLine(spec, args);
    main(cli).then((code) => void (process.exitCode = code), fail);
  } catch (err) {
    fail(err);
  }
}
