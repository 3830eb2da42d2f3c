// Pure rendering of the server's faultline/status and
// faultline/rankingChanged notifications for the status bar item.

export interface ServerStatus {
  state: 'idle' | 'building' | 'running' | 'error';
  done?: number;
  total?: number;
  failing?: number;
  message?: string;
}

export interface TopSuspect {
  uri: string;
  line: number; // 1-based
  score: number;
}

export interface StatusView {
  text: string; // may contain $(codicon) references
  tooltip: string;
  error: boolean;
}

function fileOf(uri: string): string {
  const path = uri.replace(/^file:\/\//, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * statusView renders e.g. "$(sync~spin) faultline: running 37/120 tests,
 * 2 failing" or, once idle with a ranking, "$(debug-breakpoint-unverified)
 * faultline: 2 failing · top booking.go:42".
 */
export function statusView(status: ServerStatus | undefined, top: TopSuspect | null | undefined): StatusView {
  const failing = status?.failing ?? 0;
  const failingText = failing > 0 ? `, ${failing} failing` : '';
  const topText = top ? ` · top ${fileOf(top.uri)}:${top.line}` : '';
  const topTip = top ? `\nMost suspicious: ${fileOf(top.uri)}:${top.line} (score ${top.score.toFixed(3)})` : '';
  switch (status?.state) {
    case 'building':
      return {
        text: `$(sync~spin) faultline: ${status.message || 'building tests'}`,
        tooltip: 'Building the test binaries' + topTip,
        error: false,
      };
    case 'running':
      return {
        // The server's own message says what done/total count.
        text: `$(sync~spin) faultline: ${status.message || `running ${status.done ?? 0}/${status.total ?? 0} tests${failingText}`}`,
        tooltip: `Collecting coverage spectra${topTip}`,
        error: false,
      };
    case 'error':
      return {
        text: '$(error) faultline: error',
        tooltip: (status.message || 'The server reported an error') + topTip,
        error: true,
      };
    case 'idle':
      return {
        text: `$(pulse) faultline${failing > 0 ? `: ${failing} failing` : ': no failing tests'}${topText}`,
        tooltip: `${status.done ?? 0} of ${status.total ?? 0} tests run${failingText}${topTip}\nClick to show the suspicious lines`,
        error: false,
      };
    default:
      return { text: `$(pulse) faultline${topText}`, tooltip: 'faultline is starting' + topTip, error: false };
  }
}

/** One module's outcome in the faultline.run command's result. */
export interface ModuleRun {
  root: string;
  failed: number;
  passed: number;
  buildErrors?: number;
  error?: string;
}

/** runSummary renders the faultline.run result, e.g. "calc: 3 failing, 33 passing". */
export function runSummary(result: unknown): string {
  const modules = (result as { modules?: ModuleRun[] } | null)?.modules;
  if (!Array.isArray(modules) || modules.length === 0) {
    return 'run finished';
  }
  return modules
    .map((m) => {
      const name = String(m.root ?? '?').split('/').pop() || '?';
      if (m.error) return `${name}: error: ${m.error.split('\n')[0]}`;
      const build = m.buildErrors ? `, ${m.buildErrors} packages did not build` : '';
      return `${name}: ${m.failed ?? 0} failing, ${m.passed ?? 0} passing${build}`;
    })
    .join('; ');
}
