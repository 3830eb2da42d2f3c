// Pure logic of the "Explain a failing test from the git history" command
// over the server's faultline.explainTest: where the command points the
// server, and which change of the explanation it reveals. No vscode import
// here, so it is unit-tested under plain Node.
import * as path from 'path';

/** A change of an explanation, as the server sends it (regress.Change). */
export interface ExplainedChange {
  file: string; // relative to the module root, slash-separated
  line: number; // 1-based
  role: string; // "root" or "auxiliary"
}

/** The parts of an explanation the command reads. */
export interface Explanation {
  test?: string;
  message?: string; // set when nothing could be explained, saying why
  changes?: ExplainedChange[];
}

/**
 * moduleRoot is the directory of the nearest go.mod at or above dir, or
 * undefined when none is; exists says whether a file exists.
 */
export function moduleRoot(dir: string, exists: (file: string) => boolean): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (exists(path.join(d, 'go.mod'))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/**
 * firstRoot is the file (absolute, under root) and 1-based line of the
 * explanation's first root change, which the command reveals; undefined
 * when the explanation names none.
 */
export function firstRoot(ex: unknown, root: string): { file: string; line: number } | undefined {
  const changes = (ex as Explanation | null)?.changes;
  if (!Array.isArray(changes)) return undefined;
  const c = changes.find((c) => c?.role === 'root' && typeof c.file === 'string' && Number.isInteger(c.line));
  if (!c) return undefined;
  return { file: path.join(root, ...c.file.split('/')), line: Math.max(c.line, 1) };
}
