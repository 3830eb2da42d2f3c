// Pure logic over the server's faultline/ranking result: the colour level of
// a score and the rows of the "Suspicious lines" view. No vscode import here,
// so it is unit-tested under plain Node.

/** One ranked line as the server sends it (protocol: faultline/ranking). */
export interface RankedLine {
  uri: string;
  file: string;
  line: number; // 1-based
  score: number;
  rank: number;
  tie?: [number, number];
  ef: number;
  ep: number;
  nf: number;
  np: number;
  /** Analysed failing tests that a verified angelic value on the line makes pass. */
  fixes: number;
  /** Why the line stands where it does, in a sentence (the hover's); "" from an older server. */
  why: string;
}

export interface RankingResult {
  formula: string;
  /** "formula", "combined" once verified angelic fixes order the lines, or "learned". */
  order: string;
  /** The learned order's model. */
  model: string;
  failed: number;
  passed: number;
  lines: RankedLine[];
}

/** Number of colour levels (package.json colours faultline.suspicious1..5, faultline.ruler1..5). */
export const LEVELS = 5;

/**
 * level maps a score to 1..LEVELS relative to the top score, so the scale
 * works for bounded formulas (ochiai) and unbounded ones (dstar) alike; 0
 * means "do not colour" (non-positive or missing score).
 */
export function level(score: number, maxScore: number): number {
  if (!Number.isFinite(score) || !Number.isFinite(maxScore) || score <= 0 || maxScore <= 0) {
    return 0;
  }
  return Math.max(1, Math.ceil(Math.min(score / maxScore, 1) * LEVELS));
}

/**
 * lineLevel is a ranked line's colour level: the highest for a line hosting
 * a verified angelic fix, which the combined order puts first whatever its
 * score, and by score otherwise.
 */
export function lineLevel(l: RankedLine, maxScore: number): number {
  return l.fixes > 0 ? LEVELS : level(l.score, maxScore);
}

export function maxScore(lines: readonly RankedLine[]): number {
  return lines.reduce((best, l) => (Number.isFinite(l.score) && l.score > best ? l.score : best), 0);
}

/**
 * parseRanking checks the shape of a faultline/ranking result and returns
 * the well-formed lines sorted by rank (score descending within a rank),
 * each line once.
 * Throws with a clear message when the result is not a ranking at all.
 */
export function parseRanking(raw: unknown): RankingResult {
  if (typeof raw !== 'object' || raw === null) {
    throw new Error(`faultline/ranking returned ${raw === null ? 'null' : typeof raw}, want an object`);
  }
  const r = raw as Record<string, unknown>;
  const lines = Array.isArray(r.lines) ? r.lines : [];
  const valid: RankedLine[] = [];
  for (const l of lines) {
    if (typeof l !== 'object' || l === null) continue;
    const e = l as Record<string, unknown>;
    if (typeof e.uri !== 'string' || typeof e.line !== 'number' || e.line < 1) continue;
    valid.push({
      uri: e.uri,
      file: typeof e.file === 'string' ? e.file : e.uri,
      line: e.line,
      score: typeof e.score === 'number' ? e.score : 0,
      rank: typeof e.rank === 'number' ? e.rank : Number.MAX_SAFE_INTEGER,
      tie: Array.isArray(e.tie) && e.tie.length === 2 ? [Number(e.tie[0]), Number(e.tie[1])] : undefined,
      ef: Number(e.ef ?? 0),
      ep: Number(e.ep ?? 0),
      nf: Number(e.nf ?? 0),
      np: Number(e.np ?? 0),
      fixes: Number(e.fixes ?? 0),
      why: typeof e.why === 'string' ? e.why : '',
    });
  }
  valid.sort((a, b) => a.rank - b.rank || b.score - a.score);
  // A line is one row of the view, named by its place (rowId): a line
  // listed twice keeps its best rank.
  const seen = new Set<string>();
  const unique = valid.filter((l) => {
    const key = `${l.uri}#${l.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    formula: typeof r.formula === 'string' ? r.formula : '',
    order: r.order === 'combined' || r.order === 'learned' ? r.order : 'formula',
    model: typeof r.model === 'string' ? r.model : '',
    failed: Number(r.failed ?? 0),
    passed: Number(r.passed ?? 0),
    lines: unique,
  };
}

/** What the tree view shows for one ranked line. */
export interface RowModel {
  label: string; // "booking.go:42"
  description: string; // "#1 · ochiai 0.87"
  tooltip: string;
  uri: string;
  line: number; // 1-based
  level: number;
}

/** rowId names a row by its line, so that it keeps its name when the order changes. */
export function rowId(row: RowModel): string {
  return `${row.uri}#${row.line}`;
}

/** sameRows reports whether two row lists show the same thing, in the same order. */
export function sameRows(a: readonly RowModel[], b: readonly RowModel[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (r, i) =>
        r.label === b[i].label &&
        r.description === b[i].description &&
        r.tooltip === b[i].tooltip &&
        r.uri === b[i].uri &&
        r.line === b[i].line &&
        r.level === b[i].level,
    )
  );
}

function baseName(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? file : file.slice(i + 1);
}

export function rankText(l: RankedLine): string {
  if (l.tie && l.tie[0] !== l.tie[1]) {
    return `#${l.rank} (tied ${l.tie[0]}–${l.tie[1]})`;
  }
  return `#${l.rank}`;
}

/** rows turns a ranking into tree rows in rank order. */
export function rows(result: RankingResult): RowModel[] {
  const top = maxScore(result.lines);
  const by =
    result.order === 'combined'
      ? `${result.formula} and verified angelic fixes`
      : result.order === 'learned'
        ? `the learned order (model ${result.model})`
        : result.formula;
  return result.lines.map((l) => ({
    label: `${baseName(l.file)}:${l.line}`,
    description: `${rankText(l)} · ${result.formula} ${l.score.toFixed(2)}${l.fixes > 0 ? ` · fixes ${l.fixes}` : ''}`,
    tooltip:
      `${l.file}:${l.line}\n${rankText(l)} by ${by}, score ${l.score.toFixed(4)}\n` +
      `run by ${l.ef} of ${l.ef + l.nf} failing and ${l.ep} of ${l.ep + l.np} passing tests` +
      (l.fixes > 0 ? `\na verified angelic value here makes ${l.fixes} analysed failing test${l.fixes === 1 ? '' : 's'} pass` : '') +
      (l.why ? `\n${l.why}` : ''),
    uri: l.uri,
    line: l.line,
    level: lineLevel(l, top),
  }));
}

/**
 * byUri groups the lines ranked within the first topN per document, each
 * with its colour level; the ranking lists every covered line, but only the
 * top ones are worth colouring.
 */
export function byUri(result: RankingResult, topN: number): Map<string, { line: number; level: number }[]> {
  const top = maxScore(result.lines);
  const out = new Map<string, { line: number; level: number }[]>();
  for (const l of result.lines) {
    if (l.rank > topN) continue;
    const lv = lineLevel(l, top);
    if (lv === 0) continue;
    const list = out.get(l.uri) ?? [];
    list.push({ line: l.line, level: lv });
    out.set(l.uri, list);
  }
  return out;
}
