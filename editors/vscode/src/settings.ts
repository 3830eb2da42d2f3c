// Pure mapping from the extension's settings to what the server reads
// (initializationOptions and the "faultline" configuration section).
import * as path from 'path';

export interface ServerSettings {
  formula: string;
  top: number;
  threshold: number;
  autoRun: boolean;
  timeout: string;
  parallel: number;
  angelic: boolean;
  order: 'formula' | 'combined' | 'learned';
  budget: string;
  maxAnalyzed: number;
  mutants: number;
  testMemory: number;
  memory: number;
  trust: 'ask' | 'never';
}

export const DEFAULTS: ServerSettings = {
  formula: 'ochiai',
  top: 10,
  threshold: 0,
  autoRun: true,
  timeout: '60s',
  parallel: 0,
  angelic: true,
  order: 'learned',
  budget: '10s',
  maxAnalyzed: 10,
  mutants: 200,
  testMemory: 0,
  memory: 1024,
  trust: 'ask',
};

/** serverSettings reads the server's keys through get, falling back to defaults. */
export function serverSettings(get: <T>(key: string) => T | undefined): ServerSettings {
  return {
    formula: get<string>('formula') ?? DEFAULTS.formula,
    top: get<number>('top') ?? DEFAULTS.top,
    threshold: get<number>('threshold') ?? DEFAULTS.threshold,
    autoRun: get<boolean>('autoRun') ?? DEFAULTS.autoRun,
    timeout: get<string>('timeout') ?? DEFAULTS.timeout,
    parallel: get<number>('parallel') ?? DEFAULTS.parallel,
    angelic: get<boolean>('angelic') ?? DEFAULTS.angelic,
    order: get<'formula' | 'combined' | 'learned'>('order') ?? DEFAULTS.order,
    budget: get<string>('budget') ?? DEFAULTS.budget,
    maxAnalyzed: get<number>('maxAnalyzed') ?? DEFAULTS.maxAnalyzed,
    mutants: get<number>('mutants') ?? DEFAULTS.mutants,
    testMemory: get<number>('testMemory') ?? DEFAULTS.testMemory,
    memory: get<number>('memory') ?? DEFAULTS.memory,
    // Only "never" is sent: the server refuses trust granted by settings.
    trust: get<string>('trust') === 'never' ? 'never' : DEFAULTS.trust,
  };
}

/**
 * serverCommand resolves faultline.path: a bare name is looked up on PATH
 * by the OS, "~/" is the home directory, and a relative path with a slash is
 * taken relative to the first workspace folder.
 */
export function serverCommand(setting: string | undefined, workspaceFolder: string | undefined, home: string): string {
  const value = (setting ?? '').trim() || 'faultline';
  if (value.startsWith('~/')) {
    return path.join(home, value.slice(2));
  }
  if (path.isAbsolute(value) || !value.includes('/') || !workspaceFolder) {
    return value;
  }
  return path.resolve(workspaceFolder, value);
}
