// The language client's lifecycle apart from VS Code, so that it can be
// tested: start, stop and restart, and the VS Code commands that forward the
// server's own commands (code lenses, code actions) to it.

/**
 * LOCAL_COMMANDS are the commands the extension implements itself (those
 * package.json contributes); the server advertises some of the same ids
 * (faultline.run), and they are not forwarded to it.
 */
export const LOCAL_COMMANDS: ReadonlySet<string> = new Set([
  'faultline.run',
  'faultline.showRanking',
  'faultline.openLocation',
  'faultline.explain',
]);

/** Disposable is what registering a command returns. */
export interface Disposable {
  dispose(): void;
}

/** ServerClient is what the lifecycle needs of a language client. */
export interface ServerClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** advertisedCommands are the ids of the server's executeCommandProvider, once started. */
  advertisedCommands(): readonly string[];
  /** execute sends workspace/executeCommand. */
  execute(command: string, args: unknown[]): Promise<unknown>;
}

/** LifecycleHost is what the lifecycle needs of the editor. */
export interface LifecycleHost<C extends ServerClient> {
  /** create makes a client for the current settings. */
  create(): C;
  /** registerCommand registers a command; like VS Code's, it throws when the id is taken. */
  registerCommand(id: string, run: (...args: unknown[]) => unknown): Disposable;
  /** startFailed reports a client that could not start. */
  startFailed(err: unknown): void;
  /** log writes a line to the extension's output. */
  log(line: string): void;
}

/**
 * ClientLifecycle owns the one client of the extension. Starts and stops
 * run one after another in the order they were asked for, so a stop never
 * meets a client that is still starting (the language client refuses to
 * stop one). The server's commands are registered with VS Code once for
 * the extension's lifetime and always reach the running client: a server
 * restarted with other settings advertises the same ids, and VS Code
 * rejects a second registration of an id.
 */
export class ClientLifecycle<C extends ServerClient> {
  private client: C | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly forwarded = new Map<string, Disposable>();

  /**
   * local are the ids the extension implements itself; the server may
   * advertise them too, and they are not forwarded.
   */
  constructor(
    private readonly host: LifecycleHost<C>,
    private readonly local: ReadonlySet<string>,
  ) {}

  /** current is the running client, if any. */
  get current(): C | undefined {
    return this.client;
  }

  /** start starts a client unless one runs, and returns the running one. */
  start(): Promise<C | undefined> {
    return this.serially(() => this.startNow());
  }

  /** stop stops the running client, if any. */
  stop(): Promise<void> {
    return this.serially(() => this.stopNow());
  }

  /** restart stops the running client and starts another, as for a new faultline.path. */
  restart(): Promise<C | undefined> {
    return this.serially(async () => {
      await this.stopNow();
      return this.startNow();
    });
  }

  /** dispose unregisters the forwarded commands. */
  dispose(): void {
    this.forwarded.forEach((d) => d.dispose());
    this.forwarded.clear();
  }

  private serially<T>(op: () => Promise<T>): Promise<T> {
    const next = this.tail.then(op);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async startNow(): Promise<C | undefined> {
    if (this.client) return this.client;
    const client = this.host.create();
    try {
      await client.start();
    } catch (err) {
      this.host.startFailed(err);
      return undefined;
    }
    this.client = client;
    this.forward(client.advertisedCommands());
    return client;
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.stop();
    } catch (err) {
      this.host.log(`stopping the server failed: ${String(err)}`);
    }
  }

  /** forward registers a command for each advertised id not yet registered. */
  private forward(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.local.has(id) || this.forwarded.has(id)) continue;
      try {
        this.forwarded.set(id, this.host.registerCommand(id, (...args: unknown[]) => this.execute(id, args)));
      } catch (err) {
        // Another extension owns the id: the server's command stays out of reach.
        this.host.log(`cannot forward the server command ${id}: ${String(err)}`);
      }
    }
  }

  /** execute runs a server command on the running client, starting one if none runs. */
  async execute(id: string, args: unknown[]): Promise<unknown> {
    const client = this.client ?? (await this.start());
    if (!client) throw new Error(`faultline: the server is not running, so ${id} cannot run (see the faultline output)`);
    return client.execute(id, args);
  }
}
