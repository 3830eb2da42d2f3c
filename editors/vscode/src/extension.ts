// faultline for VS Code: starts `faultline serve` for Go workspaces (beside
// gopls), colours suspicious lines by score, lists them in the "Suspicious
// lines" view and shows the server's progress in the status bar. Nothing is
// started in an untrusted workspace, because the server runs the tests.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  StaticFeature,
  DynamicFeature,
} from 'vscode-languageclient/node';
import { LEVELS, RankingResult, byUri, parseRanking, rowId, rows, RowModel, sameRows } from './ranking';
import { FaultlineNotifications } from './notifications';
import { serverCommand, serverSettings } from './settings';
import { ServerStatus, TopSuspect, runSummary, statusView } from './status';
import { ClientLifecycle, LOCAL_COMMANDS, ServerClient } from './lifecycle';
import { firstRoot, moduleRoot } from './explain';

const SECTION = 'faultline';
const VIEW_ID = 'faultline.suspiciousLines';

class FaultlineClient extends LanguageClient implements ServerClient {
  // The built-in ExecuteCommandFeature registers every server command as a
  // VS Code command for each client, which collides with faultline.run
  // contributed by this extension and, after a restart, with the previous
  // client's registrations; ClientLifecycle registers them once instead,
  // all but LOCAL_COMMANDS.
  public override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    const method = (feature as { registrationType?: { method?: string } }).registrationType?.method;
    if (method === ExecuteCommandRequest.method) {
      return;
    }
    super.registerFeature(feature);
  }

  advertisedCommands(): readonly string[] {
    return this.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  }

  execute(command: string, args: unknown[]): Promise<unknown> {
    return this.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }
}

class SuspiciousLinesView implements vscode.TreeDataProvider<RowModel> {
  private readonly changed = new vscode.EventEmitter<RowModel | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private items: RowModel[] = [];

  // set shows items. A ranking published again unchanged (each analysis
  // result republishes it) leaves the tree as it is: a rebuilt tree drops
  // its rows' commands, and a click landing meanwhile fails with "command
  // not found".
  set(items: RowModel[]): void {
    if (sameRows(this.items, items)) return;
    this.items = items;
    this.changed.fire(undefined);
  }

  getTreeItem(row: RowModel): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(
      'circle-filled',
      new vscode.ThemeColor(`faultline.ruler${Math.max(row.level, 1)}`),
    );
    // A row keeps its id (and so its handle) when the ranking is published
    // again, and its command has no arguments: VS Code keeps a command with
    // arguments only until the view's next refresh, and a click landing in
    // between failed with "Actual command not found". The command opens the
    // view's selection instead, which the click has just set.
    item.id = rowId(row);
    item.command = { command: 'faultline.openLocation', title: 'Open' };
    item.contextValue = 'suspiciousLine';
    return item;
  }

  getChildren(row?: RowModel): RowModel[] {
    return row ? [] : this.items;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

class Faultline implements vscode.Disposable {
  private readonly lifecycle: ClientLifecycle<FaultlineClient>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly decorations: vscode.TextEditorDecorationType[] = [];
  private readonly view = new SuspiciousLinesView();
  private readonly tree = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this.view, showCollapseAll: false });
  /** selectedRow is the row last selected in the view, kept while the view refreshes. */
  private selectedRow: RowModel | undefined;
  private readonly statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private readonly output = vscode.window.createOutputChannel('faultline');
  private ranking: RankingResult | undefined;
  private status: ServerStatus | undefined;
  private top: TopSuspect | null = null;

  constructor() {
    this.lifecycle = new ClientLifecycle<FaultlineClient>(
      {
        create: () => this.createClient(),
        registerCommand: (id, run) => vscode.commands.registerCommand(id, run),
        startFailed: (err) => this.startFailed(err),
        log: (line) => this.output.appendLine(line),
      },
      LOCAL_COMMANDS,
    );
    for (let lv = 1; lv <= LEVELS; lv++) {
      this.decorations.push(
        vscode.window.createTextEditorDecorationType({
          isWholeLine: true,
          backgroundColor: new vscode.ThemeColor(`faultline.suspicious${lv}`),
          overviewRulerColor: new vscode.ThemeColor(`faultline.ruler${lv}`),
          overviewRulerLane: vscode.OverviewRulerLane.Right,
        }),
      );
    }
    this.statusItem.name = 'faultline';
    this.statusItem.command = 'faultline.showRanking';
    this.disposables.push(
      this.statusItem,
      this.output,
      this.view,
      this.tree,
      this.tree.onDidChangeSelection((e) => {
        if (e.selection.length > 0) this.selectedRow = e.selection[0];
      }),
      vscode.commands.registerCommand('faultline.run', () => this.run()),
      vscode.commands.registerCommand('faultline.showRanking', () => this.showRanking()),
      vscode.commands.registerCommand('faultline.openLocation', (uri?: unknown, line?: unknown) => this.openLocation(uri, line)),
      vscode.commands.registerCommand('faultline.explain', (test?: unknown) => this.explain(test)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paint()),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()),
    );
  }

  /** start starts the server unless the workspace is untrusted or it runs already. */
  async start(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.statusItem.text = '$(shield) faultline: off (untrusted workspace)';
      this.statusItem.tooltip = 'faultline runs the tests of this workspace; trust the workspace to enable it.';
      this.statusItem.show();
      return;
    }
    if (this.lifecycle.current) return;
    if (await this.lifecycle.start()) await this.refresh();
  }

  /** createClient makes a client for the current settings, with the server's notifications wired. */
  private createClient(): FaultlineClient {
    const config = vscode.workspace.getConfiguration(SECTION);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const command = this.serverPath();
    const serverOptions: ServerOptions = { command, args: ['serve'], options: { cwd: folder } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'go' },
        { scheme: 'file', language: 'go.mod' },
      ],
      initializationOptions: serverSettings((key) => config.get(key)),
      synchronize: { configurationSection: SECTION },
      outputChannel: this.output,
    };
    const client = new FaultlineClient('faultline', 'faultline', serverOptions, clientOptions);
    // The server only runs here once VS Code trusts the workspace: the
    // capability says so, and the server does not ask again.
    client.registerFeature(new FaultlineNotifications(vscode.workspace.isTrusted));
    client.onNotification('faultline/rankingChanged', (params: { top?: TopSuspect | null }) => {
      this.top = params?.top ?? null;
      this.renderStatus();
      void this.refresh();
    });
    client.onNotification('faultline/status', (params: ServerStatus) => {
      this.status = params;
      this.renderStatus();
    });
    this.renderStatus();
    return client;
  }

  /** serverPath is the faultline binary faultline.path names, resolved against the workspace. */
  private serverPath(): string {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return serverCommand(vscode.workspace.getConfiguration(SECTION).get<string>('path'), folder, os.homedir());
  }

  private startFailed(err: unknown): void {
    const command = this.serverPath();
    this.statusItem.text = '$(error) faultline: not started';
    this.statusItem.tooltip = `Could not start "${command} serve": ${String(err)}`;
    void vscode.window.showErrorMessage(
      `faultline: could not start "${command} serve" (${String(err)}). Set "faultline.path" to the faultline binary.`,
    );
  }

  /** clearRanking forgets what a stopped server showed. */
  private clearRanking(): void {
    this.ranking = undefined;
    this.view.set([]);
    this.paint();
  }

  async stop(): Promise<void> {
    this.clearRanking();
    await this.lifecycle.stop();
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (e.affectsConfiguration(`${SECTION}.path`)) {
      if (!vscode.workspace.isTrusted) return;
      this.clearRanking();
      void this.lifecycle.restart().then((client) => client && this.refresh());
    } else if (e.affectsConfiguration(`${SECTION}.highlight`) || e.affectsConfiguration(`${SECTION}.top`)) {
      this.paint();
    }
  }

  /** requireClient returns the running client, starting it again if an earlier start failed. */
  private async requireClient(): Promise<FaultlineClient | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('faultline: the workspace is not trusted, so no test is run.');
      return undefined;
    }
    await this.start();
    const client = this.lifecycle.current;
    if (!client) {
      void vscode.window.showWarningMessage('faultline: the server is not running (see the faultline output).');
    }
    return client;
  }

  async run(): Promise<void> {
    const client = await this.requireClient();
    if (!client) return;
    try {
      const result = await client.execute('faultline.run', []);
      vscode.window.setStatusBarMessage(`faultline: ${runSummary(result)}`, 10000);
    } catch (err) {
      void vscode.window.showErrorMessage(`faultline.run failed: ${String(err)}`);
    }
  }

  /**
   * explain explains a failing test from the git history through the
   * server's faultline.explainTest, as the test's code lens does, asking
   * for the test's name unless given; it then reveals the first root change
   * and the Problems view, where the server's diagnostics name each change.
   */
  async explain(given?: unknown): Promise<void> {
    const client = await this.requireClient();
    if (!client) return;
    const test =
      typeof given === 'string' && given.trim() !== ''
        ? given.trim()
        : (
            await vscode.window.showInputBox({
              title: 'faultline: explain a failing test from the git history',
              prompt: 'The failing test, as go test names it (TestX or TestX/case)',
              placeHolder: 'TestX',
            })
          )?.trim();
    if (!test) return;
    // Any file of the module names it to the server: the active one, or
    // the first folder's go.mod.
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = active?.scheme === 'file' ? active : folder && vscode.Uri.joinPath(folder, 'go.mod');
    if (!uri) {
      void vscode.window.showWarningMessage('faultline: open a file of the Go module whose test to explain.');
      return;
    }
    let result: unknown;
    try {
      result = await client.execute('faultline.explainTest', [{ uri: uri.toString(), test }]);
    } catch (err) {
      void vscode.window.showErrorMessage(`faultline: explaining ${test} failed: ${String(err)}`);
      return;
    }
    const root = moduleRoot(path.dirname(uri.fsPath), fs.existsSync);
    const at = root && firstRoot(result, root);
    if (at) await this.open(vscode.Uri.file(at.file).toString(), at.line);
    await vscode.commands.executeCommand('workbench.panel.markers.view.focus');
  }

  async showRanking(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    if (!(await this.requireClient())) return;
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    const client = this.lifecycle.current;
    if (!client) return;
    try {
      this.ranking = parseRanking(await client.sendRequest('faultline/ranking', {}));
    } catch (err) {
      this.output.appendLine(`faultline/ranking failed: ${String(err)}`);
      return;
    }
    this.view.set(rows(this.ranking));
    const first = this.ranking.lines[0];
    if (first && !this.top) {
      this.top = { uri: first.uri, line: first.line, score: first.score };
      this.renderStatus();
    }
    this.paint();
  }

  private paint(): void {
    const config = vscode.workspace.getConfiguration(SECTION);
    const enabled = config.get<boolean>('highlight', true);
    const topN = config.get<number>('top', 10);
    const lines = enabled && this.ranking ? byUri(this.ranking, topN) : new Map<string, { line: number; level: number }[]>();
    for (const editor of vscode.window.visibleTextEditors) {
      const marks = lines.get(editor.document.uri.toString()) ?? [];
      for (let lv = 1; lv <= LEVELS; lv++) {
        const ranges = marks
          .filter((m) => m.level === lv && m.line <= editor.document.lineCount)
          .map((m) => editor.document.lineAt(m.line - 1).range);
        editor.setDecorations(this.decorations[lv - 1], ranges);
      }
    }
  }

  private renderStatus(): void {
    const view = statusView(this.status, this.top);
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.backgroundColor = view.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.statusItem.show();
  }

  /**
   * openLocation opens uri at line, or without them (a click on a row of
   * the view) the selected row.
   */
  private async openLocation(uri: unknown, line: unknown): Promise<void> {
    if (typeof uri === 'string') {
      await this.open(uri, typeof line === 'number' ? line : 1);
      return;
    }
    const row = this.tree.selection[0] ?? this.selectedRow;
    if (row) await this.open(row.uri, row.line);
  }

  private async open(uri: string, line: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    const position = new vscode.Position(Math.max(line - 1, 0), 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(position, position) });
  }

  dispose(): void {
    this.lifecycle.dispose();
    this.decorations.forEach((d) => d.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}

let instance: Faultline | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  instance = new Faultline();
  context.subscriptions.push(instance);
  await instance.start();
}

export async function deactivate(): Promise<void> {
  await instance?.stop();
  instance = undefined;
}
