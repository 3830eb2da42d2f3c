import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClientLifecycle, LOCAL_COMMANDS, LifecycleHost, ServerClient } from '../lifecycle';

const ADVERTISED = ['faultline.run', 'faultline.localizeTest', 'faultline.explainTest'];
const LOCAL = new Set(['faultline.run']);

/**
 * FakeClient behaves as vscode-languageclient's LanguageClient where it
 * matters: starting takes a while, and stopping a client that is still
 * starting is refused.
 */
class FakeClient implements ServerClient {
  state: 'initial' | 'starting' | 'running' | 'stopped' = 'initial';
  readonly calls: string[] = [];
  private release: (() => void) | undefined;
  readonly started: Promise<void>;

  constructor(readonly name: string) {
    this.started = new Promise((resolve) => (this.release = resolve));
  }

  /** finishStarting lets a pending start complete. */
  finishStarting(): void {
    this.release?.();
  }

  async start(): Promise<void> {
    this.state = 'starting';
    await this.started;
    this.state = 'running';
  }

  async stop(): Promise<void> {
    if (this.state !== 'running') throw new Error(`Client is not running and can't be stopped. It's current state is: ${this.state}`);
    this.state = 'stopped';
  }

  advertisedCommands(): readonly string[] {
    return ADVERTISED;
  }

  async execute(command: string): Promise<unknown> {
    if (this.state !== 'running') throw new Error(`${this.name} is ${this.state}`);
    this.calls.push(command);
    return this.name;
  }
}

/** FakeHost registers commands as VS Code does: a taken id throws. */
class FakeHost implements LifecycleHost<FakeClient> {
  readonly clients: FakeClient[] = [];
  readonly commands = new Map<string, (...args: unknown[]) => unknown>();
  readonly failures: unknown[] = [];
  readonly lines: string[] = [];

  create(): FakeClient {
    const c = new FakeClient(`client${this.clients.length + 1}`);
    this.clients.push(c);
    return c;
  }

  registerCommand(id: string, run: (...args: unknown[]) => unknown) {
    if (this.commands.has(id)) throw new Error(`command '${id}' already exists`);
    this.commands.set(id, run);
    return { dispose: () => this.commands.delete(id) };
  }

  startFailed(err: unknown): void {
    this.failures.push(err);
  }

  log(line: string): void {
    this.lines.push(line);
  }
}

/** settle lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a restart asked for while the client starts waits for it, and the server commands are registered once', async () => {
  const host = new FakeHost();
  const life = new ClientLifecycle(host, LOCAL);
  const first = life.start();
  await settle();
  // faultline.path changes while the first server is still initializing.
  const restarted = life.restart();
  await settle();
  host.clients[0].finishStarting();
  await first;
  await settle();
  host.clients[1].finishStarting();
  assert.equal((await restarted)?.name, 'client2');
  // A command asking for the client afterwards finds the running one.
  assert.equal((await life.start())?.name, 'client2');
  assert.deepEqual(host.clients.map((c) => c.state), ['stopped', 'running']);
  assert.deepEqual([...host.commands.keys()].sort(), ['faultline.explainTest', 'faultline.localizeTest']);
  assert.deepEqual(host.lines, []);
  // The forwarded command reaches the client that runs now.
  assert.equal(await host.commands.get('faultline.localizeTest')!({ test: 'TestX' }), 'client2');
  assert.deepEqual(host.clients[1].calls, ['faultline.localizeTest']);
});

test('a forwarded command starts the server again after it was stopped', async () => {
  const host = new FakeHost();
  const life = new ClientLifecycle(host, LOCAL);
  const first = life.start();
  await settle();
  host.clients[0].finishStarting();
  await first;
  await life.stop();
  const run = host.commands.get('faultline.explainTest')!({});
  await settle();
  host.clients[1].finishStarting();
  assert.equal(await run, 'client2');
  life.dispose();
  assert.equal(host.commands.size, 0);
});

test('a client that fails to start is reported and a later start tries again', async () => {
  const host = new FakeHost();
  const life = new ClientLifecycle(host, LOCAL);
  const broken = host.create();
  broken.start = async () => {
    throw new Error('spawn faultline ENOENT');
  };
  host.create = () => broken;
  assert.equal(await life.start(), undefined);
  assert.equal(host.failures.length, 1);
  assert.equal(host.commands.size, 0);
  await assert.rejects(life.execute('faultline.localizeTest', []), /server is not running/);
  assert.equal(host.failures.length, 2);
});

test('the extension implements exactly the commands package.json contributes, and forwards none of them', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual([...LOCAL_COMMANDS].sort(), contributed);
});
